// 4. Bucket sorts on reduced bit ranges, each bucket copied back as soon as it is sorted. The sorts
// alternate between two streams; the copies back run on a stream of their own, in bucket order,
// each after its bucket's sort. The sorts run ahead of the copies (they take about half as long),
// so the device-to-host copies follow each other with no gap. (Each copy on its bucket's sort
// stream, as before, left the copy engine idle whenever both streams were sorting: on one H200,
// sort + copy out of 16 GB took 300-303 ms against a 290 ms copy, 296-299 ms now.)
// Waits for every GPU's copies back.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>

#include "gpu/in_core_state.hpp"
#include "gpu/key_transform_kernels.cuh"
#include "gpu/record_pair_kernels.cuh"

namespace rmgsort {
namespace {

// The copy-back stream, once it has waited for the bucket just enqueued on sort stream `s`. (An
// event may be recorded again once a wait for it is enqueued: the wait holds the earlier record.)
cudaStream_t after_bucket_sort(GpuState& gpu, std::size_t s) {
  gpu.bucket_sorted[s].record(gpu.sort[s].get());
  RMGSORT_CUDA_TRY(cudaStreamWaitEvent(gpu.copy_back.get(), gpu.bucket_sorted[s].get(), 0));
  return gpu.copy_back.get();
}

// One bucket of the keys `gpu` received, on its sort stream `s`: sorted by the bits partitioning
// left (none when it consumed them all), decoded, and copied to `host`, the place of the GPU's
// first received key, on the copy-back stream.
template <class T>
void sort_and_copy_back(GpuState& gpu, const BucketSort& sort, std::size_t s, std::byte* host, SortOrder order) {
  using Bits = RadixBits<T>;
  Bits* received = gpu.keys[std::size_t(1 - gpu.current)].as<Bits>();
  Bits* spare = gpu.keys[std::size_t(gpu.current)].as<Bits>();
  cudaStream_t stream = gpu.sort[s].get();
  Bits* result = received + sort.offset;
  if (sort.end_bit > 0 && sort.keys > 1) {
    cub::DoubleBuffer<Bits> buffers(received + sort.offset, spare + sort.offset);
    std::size_t temporary_bytes = gpu.layout.sort_temporary_bytes;
    RMGSORT_CUDA_TRY(cub::DeviceRadixSort::SortKeys(gpu.sort_temporary[s].as(), temporary_bytes, buffers, sort.keys,
                                                    0, sort.end_bit, stream));
    result = buffers.Current();
  }
  if (!encoding_is_identity<T>(order)) decode_keys_async<T>(result, sort.keys, order, stream);
  RMGSORT_CUDA_TRY(cudaMemcpyAsync(host + sort.offset * sizeof(T), result, sort.keys * sizeof(T),
                                   cudaMemcpyDeviceToHost, after_bucket_sort(gpu, s)));
}

// The same for a bucket of pairs: sorted with their values, joined into records in the key and
// value buffers' free halves (the double buffer's other side, n x (key width + 8) bytes, enough
// for n records), and copied to `host`, the place of the GPU's first received record; values that
// are input positions also go to `positions` (the same place's), unless it is null. The copies run
// on the copy-back stream.
template <class Bits>
void sort_join_and_copy_back(GpuState& gpu, const BucketSort& sort, std::size_t s, std::byte* host,
                             std::uint64_t* positions, const RecordLayout& layout, SortOrder order) {
  std::array<Bits*, 2> keys{gpu.keys[std::size_t(1 - gpu.current)].as<Bits>() + sort.offset,
                            gpu.keys[std::size_t(gpu.current)].as<Bits>() + sort.offset};
  std::array<std::uint64_t*, 2> values{gpu.values[std::size_t(1 - gpu.current)].as<std::uint64_t>() + sort.offset,
                                       gpu.values[std::size_t(gpu.current)].as<std::uint64_t>() + sort.offset};
  cudaStream_t stream = gpu.sort[s].get();
  int result = 0;  // which side holds the sorted pairs
  if (sort.end_bit > 0 && sort.keys > 1) {
    cub::DoubleBuffer<Bits> key_buffers(keys[0], keys[1]);
    cub::DoubleBuffer<std::uint64_t> value_buffers(values[0], values[1]);
    std::size_t temporary_bytes = gpu.layout.sort_temporary_bytes;
    RMGSORT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(gpu.sort_temporary[s].as(), temporary_bytes, key_buffers,
                                                     value_buffers, sort.keys, 0, sort.end_bit, stream));
    result = key_buffers.selector;
  }
  const int free_side = 1 - result;
  const StagedRecords<std::byte> staged{reinterpret_cast<std::byte*>(keys[std::size_t(free_side)]),
                                        sort.keys * sizeof(Bits), reinterpret_cast<std::byte*>(values[std::size_t(free_side)])};
  join_records_async<Bits>(keys[std::size_t(result)], values[std::size_t(result)], sort.keys, layout, order,
                           positions != nullptr, staged, stream);
  cudaStream_t copy = after_bucket_sort(gpu, s);
  if (positions != nullptr)
    RMGSORT_CUDA_TRY(cudaMemcpyAsync(positions + sort.offset, values[std::size_t(result)],
                                     sort.keys * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, copy));
  const std::uint64_t bytes = sort.keys * layout.record_size;
  const std::uint64_t first = std::min<std::uint64_t>(bytes, staged.first_bytes);
  std::byte* to = host + sort.offset * layout.record_size;
  RMGSORT_CUDA_TRY(cudaMemcpyAsync(to, staged.first, first, cudaMemcpyDeviceToHost, copy));
  if (bytes > first)
    RMGSORT_CUDA_TRY(cudaMemcpyAsync(to + first, staged.rest, bytes - first, cudaMemcpyDeviceToHost, copy));
}

}  // namespace

// Every GPU's bucket sorts, as swap() planned them: each waits for its transfers of the swap, then
// sort_one(gpu, bucket, stream, first) enqueues it on alternating streams with its copy back
// (first: the GPU's first received key's place in the round), and the main stream waits for the
// sorts and the copies (and, since finish_swap(), for the GPU's sends). The host enqueues the k-th
// bucket of every GPU in turn, each after the transfers it waits for, so that every GPU starts
// sorting and copying back as soon as its first keys have arrived. (GPU by GPU, after the whole
// swap, GPU 0's first copy back ended 4.8-5.6 ms after the swap's start on 2 H200s and GPU 1's
// 10.6-16.7 ms, once GPU 0's 128 sorts were enqueued: its copies back ended that much later.)
// Waits for every GPU.
template <class SortOne>
void InCoreSorter::Impl::sort_each_bucket(const PartitionPlanner& planner, InCoreStats& stats, SortOne&& sort_one) {
  std::size_t most_sorts = 0;
  for (std::size_t j = 0; j < gpus.size(); ++j) {
    GpuState& gpu = gpus[j];
    at(gpu.device, "bucket sorts and copy back");
    ScopedDevice scope(gpu.device);
    // After the GPU's own passes (a bucket's keys may all come from other GPUs).
    for (auto& stream : gpu.sort) RMGSORT_CUDA_TRY(cudaStreamWaitEvent(stream.get(), gpu.swap_start.get(), 0));
    most_sorts = std::max(most_sorts, bucket_sorts[j].size());
  }
  for (std::size_t k = 0; k < most_sorts; ++k) {
    for (std::size_t j = 0; j < gpus.size(); ++j) {
      const std::vector<BucketSort>& sorts = bucket_sorts[j];
      if (k >= sorts.size()) continue;
      const std::vector<std::size_t>& awaited = waits.of_sort[j][k];  // one per stream at most
      for (const std::size_t t : awaited) enqueue_through(t);
      GpuState& gpu = gpus[j];
      at(gpu.device, "bucket sorts and copy back");
      ScopedDevice scope(gpu.device);
      const std::size_t s = k % gpu_policy::kSortStreams;
      for (const std::size_t t : awaited)
        RMGSORT_CUDA_TRY(cudaStreamWaitEvent(gpu.sort[s].get(), transfer_events[t]->get(), 0));
      sort_one(gpu, sorts[k], s, planner.boundaries()[j]);
      if (k == 0) gpu.first_copied_back.record(gpu.copy_back.get());
    }
  }
  finish_swap();
  for (std::size_t j = 0; j < gpus.size(); ++j) {
    GpuState& gpu = gpus[j];
    at(gpu.device, "bucket sorts and copy back");
    ScopedDevice scope(gpu.device);
    if (bucket_sorts[j].empty()) gpu.first_copied_back.record(gpu.main.get());  // after swap_start: no copy back
    for (std::size_t s = 0; s < gpu.sort.size(); ++s) {
      gpu.sort_stream_done[s].record(gpu.sort[s].get());
      RMGSORT_CUDA_TRY(cudaStreamWaitEvent(gpu.main.get(), gpu.sort_stream_done[s].get(), 0));
    }
    gpu.copied_back.record(gpu.copy_back.get());
    RMGSORT_CUDA_TRY(cudaStreamWaitEvent(gpu.main.get(), gpu.copied_back.get(), 0));
    gpu.sorted.record(gpu.main.get());
    stats.gpus[j].bucket_sorts = bucket_sorts[j].size();
    stats.gpus[j].keys_received = planner.boundaries()[j + 1] - planner.boundaries()[j];
  }
  for (GpuState& gpu : gpus) {
    at(gpu.device, "bucket sorts and copy back");
    gpu.main.synchronize();
  }
}

template <class T>
void InCoreSorter::Impl::sort_buckets(std::byte* host, const PartitionPlanner& planner, SortOrder order,
                                      InCoreStats& stats) {
  sort_each_bucket(planner, stats, [&](GpuState& gpu, const BucketSort& sort, std::size_t s, std::uint64_t first) {
    sort_and_copy_back<T>(gpu, sort, s, host + first * sizeof(T), order);
  });
}

template <class Bits>
void InCoreSorter::Impl::sort_pair_buckets(std::byte* host, std::uint64_t* positions, const PartitionPlanner& planner,
                                           const RecordLayout& layout, SortOrder order, InCoreStats& stats) {
  sort_each_bucket(planner, stats, [&](GpuState& gpu, const BucketSort& sort, std::size_t s, std::uint64_t first) {
    sort_join_and_copy_back<Bits>(gpu, sort, s, host + first * layout.record_size,
                                  positions != nullptr ? positions + first : nullptr, layout, order);
  });
}
template void InCoreSorter::Impl::sort_pair_buckets<std::uint32_t>(std::byte*, std::uint64_t*, const PartitionPlanner&,
                                                                   const RecordLayout&, SortOrder, InCoreStats&);
template void InCoreSorter::Impl::sort_pair_buckets<std::uint64_t>(std::byte*, std::uint64_t*, const PartitionPlanner&,
                                                                   const RecordLayout&, SortOrder, InCoreStats&);

#define RMGSORT_INSTANTIATE_BUCKET_SORTS(T) \
  template void InCoreSorter::Impl::sort_buckets<T>(std::byte*, const PartitionPlanner&, SortOrder, InCoreStats&);
RMGSORT_IN_CORE_KEY_TYPES(RMGSORT_INSTANTIATE_BUCKET_SORTS)

}  // namespace rmgsort
