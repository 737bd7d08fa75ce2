// 3. The swap: every source sends its buckets' parts to their destinations, one stream per pair of
// GPUs, in bucket order (a GPU that would only copy its keys to the same places in its other
// buffer swaps the buffers' roles instead: 7.5 ms of 615 for 16 GB on one H200). Nothing waits for
// it as a whole: a bucket sort overwrites its range of the GPU's sending buffer and reads its range
// of the receiving one, so it waits for the transfers from and to those ranges only
// (swap_waits.hpp), and the first buckets sort and copy back while the swap goes on. (Waiting for
// the whole swap left PCIe idle for it: 12.3-12.7 ms of 324-346 ms, 4e9 u32 and 2e9 u64 on 2 H200s.)
// The transfers are enqueued as the sorts need them, between the sorts (in_core_bucket_sorts.cu),
// instead of all before the first sort, which every GPU's first copy back then waited for (with
// GPU 0's sorts, 4.8-5.6 ms after the swap's start on 2 H200s); and each stream only as far as a
// sort waits on it, not every transfer before that one in the plan: the plan lists the transfers
// by bucket, GPU 0's first, so the last GPU's first sort waited behind the enqueueing (and the
// link time) of most of the others' transfers (its first copy back ended ~16 ms into the swap on
// 4 H200s, the first GPU's ~5 ms).
#include <span>

#include "gpu/in_core_state.hpp"

namespace rmgsort {
namespace {

// The swap stream a transfer goes on: one per (source, destination) pair of GPUs.
std::size_t swap_stream_index(const KeyTransfer& t, std::size_t gpu_count) {
  return std::size_t(t.src_gpu) * gpu_count + std::size_t(t.dst_gpu);
}

// Each GPU's main stream goes on when all its sends are done.
void join_swap_streams(std::vector<GpuState>& gpus) {
  for (GpuState& gpu : gpus) {
    ScopedDevice scope(gpu.device);
    for (std::size_t j = 0; j < gpu.to_gpu.size(); ++j) {
      gpu.sent_to[j].record(gpu.to_gpu[j].get());
      RMGSORT_CUDA_TRY(cudaStreamWaitEvent(gpu.main.get(), gpu.sent_to[j].get(), 0));
    }
    gpu.swap_done.record(gpu.main.get());
  }
}

// One piece of the swap, on the source's stream towards the destination.
void copy_between(const GpuState& src, const GpuState& dst, const std::byte* from, std::byte* to, std::size_t bytes,
                  cudaStream_t stream) {
  if (src.device == dst.device) {
    RMGSORT_CUDA_TRY(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream));
  } else {
    RMGSORT_CUDA_TRY(cudaMemcpyPeerAsync(to, dst.device, from, src.device, bytes, stream));
  }
}

// Whether each GPU keeps its keys in place: it sends only to itself, each key to the place it has
// (one GPU always; several where the passes left every key on its GPU, as with sorted input). Its
// buffers then change roles instead of one being copied to the other.
std::vector<bool> keeps_keys_in_place(std::span<const KeyTransfer> transfers, std::size_t gpus) {
  std::vector<bool> in_place(gpus, true);
  for (const KeyTransfer& t : transfers) {
    if (t.src_gpu != t.dst_gpu || t.src_offset != t.dst_offset) {
      in_place[std::size_t(t.src_gpu)] = false;
      in_place[std::size_t(t.dst_gpu)] = false;
    }
  }
  return in_place;
}

}  // namespace

void InCoreSorter::Impl::swap(const PartitionPlanner& planner, std::size_t width, InCoreStats& stats) {
  const std::size_t key_and_value = width + plan.value_bytes;
  const std::vector<KeyTransfer> planned = planner.swap_plan();
  const std::vector<bool> in_place = keeps_keys_in_place(planned, gpus.size());
  transfers.clear();
  for (const KeyTransfer& t : planned) {
    stats.bytes_between[std::size_t(t.src_gpu)][std::size_t(t.dst_gpu)] += t.keys * key_and_value;
    if (!in_place[std::size_t(t.src_gpu)]) transfers.push_back(t);
  }
  bucket_sorts.clear();
  for (std::size_t j = 0; j < gpus.size(); ++j) bucket_sorts.push_back(planner.sort_plan(int(j)));
  waits = swap_waits(transfers, bucket_sorts);
  transfer_events.assign(transfers.size(), nullptr);
  transfer_events_used.assign(gpus.size(), 0);
  stream_transfers.assign(gpus.size() * gpus.size(), {});
  for (std::size_t i = 0; i < transfers.size(); ++i)
    stream_transfers[swap_stream_index(transfers[i], gpus.size())].push_back(i);
  stream_enqueued.assign(stream_transfers.size(), 0);
  swap_width = width;

  // Each GPU's streams to the others start when its main stream (the last pass) is done.
  for (std::size_t j = 0; j < gpus.size(); ++j) {
    GpuState& gpu = gpus[j];
    at(gpu.device, "key swap");
    ScopedDevice scope(gpu.device);
    gpu.swap_start.record(gpu.main.get());
    for (const Stream& stream : gpu.to_gpu)
      RMGSORT_CUDA_TRY(cudaStreamWaitEvent(stream.get(), gpu.swap_start.get(), 0));
    if (in_place[j]) gpu.current = 1 - gpu.current;  // the sorts' received keys are where they are
  }
}

void InCoreSorter::Impl::enqueue_through(std::size_t transfer) {
  const KeyTransfer& last = transfers[transfer];
  const std::size_t stream = swap_stream_index(last, gpus.size());
  const std::vector<std::size_t>& on_stream = stream_transfers[stream];
  std::size_t& enqueued = stream_enqueued[stream];
  for (; enqueued < on_stream.size() && on_stream[enqueued] <= transfer; ++enqueued)
    enqueue_transfer(on_stream[enqueued]);
}

void InCoreSorter::Impl::enqueue_transfer(std::size_t i) {
  const std::size_t width = swap_width;
  const KeyTransfer& t = transfers[i];
  GpuState& src = gpus[std::size_t(t.src_gpu)];
  GpuState& dst = gpus[std::size_t(t.dst_gpu)];
  at(src.device, "key swap to GPU " + std::to_string(dst.device));
  ScopedDevice scope(src.device);
  const std::byte* from = src.keys[std::size_t(src.current)].as() + t.src_offset * width;
  std::byte* to = dst.keys[std::size_t(1 - dst.current)].as() + t.dst_offset * width;
  cudaStream_t stream = src.to_gpu[std::size_t(t.dst_gpu)].get();
  copy_between(src, dst, from, to, t.keys * width, stream);
  if (carries_values()) {
    // The values go the same way, on the same stream.
    const std::size_t value = plan.value_bytes;
    copy_between(src, dst, src.values[std::size_t(src.current)].as() + t.src_offset * value,
                 dst.values[std::size_t(1 - dst.current)].as() + t.dst_offset * value, t.keys * value, stream);
  }
  if (waits.awaited[i]) {
    std::size_t& used = transfer_events_used[std::size_t(t.src_gpu)];
    if (used == src.transfer_done.size()) src.transfer_done.emplace_back();  // on src.device (scope)
    const Event& done = src.transfer_done[used++];
    done.record(stream);
    transfer_events[i] = &done;
  }
}

void InCoreSorter::Impl::finish_swap() {
  for (std::size_t stream = 0; stream < stream_transfers.size(); ++stream)
    if (!stream_transfers[stream].empty()) enqueue_through(stream_transfers[stream].back());
  join_swap_streams(gpus);
}

}  // namespace rmgsort
