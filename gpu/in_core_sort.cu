// The in-core RMG pipeline for one round: copy in, partitioning passes driven by the
// PartitionPlanner, one all-to-all swap, bucket sorts overlapped with the copies back.
#include "gpu/in_core_sort.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <array>
#include <numeric>

#include "gpu/cuda_check.hpp"
#include "gpu/device_resources.hpp"
#include "gpu/gpu_policy.hpp"
#include "gpu/key_transform_kernels.cuh"
#include "gpu/memory_plan.cuh"
#include "gpu/partition_kernels.cuh"
#include "gpu/partition_planner.hpp"
#include "gpu/pass_parts.hpp"

namespace rmgsort {
namespace {

constexpr int kMaxPasses = 64 / gpu_policy::kDigitBits;

// Makes a device current while the members declared after it are built: streams, events and
// buffers belong to the device that was current when they were created.
struct CurrentDevice {
  explicit CurrentDevice(int device) { RMGSORT_CUDA_TRY(cudaSetDevice(device)); }
};

// Everything one GPU owns, allocated once, on that GPU.
struct GpuState {
  explicit GpuState(int ordinal) : on_device(ordinal), device(ordinal) {}
  CurrentDevice on_device;  // first: every member below is created on `device`
  int device = 0;
  GpuLayout layout;
  std::array<DeviceBuffer, 2> keys;  // the double buffer
  DeviceBuffer block_counts;         // digit-major block histograms, scanned in place into offsets
  DeviceBuffer scan_temporary;
  std::array<DeviceBuffer, gpu_policy::kSortStreams> sort_temporary;
  Stream main;                                // copy in, passes
  std::array<Stream, gpu_policy::kSortStreams> sort;      // bucket sorts and copies back
  std::vector<Stream> to_gpu;                 // swap: one stream per destination GPU
  Event start, copied_in, swap_start, swap_done, sorted;
  std::array<Event, kMaxPasses> histogram_start, histogram_done, scatter_start, scatter_done;
  std::array<Event, gpu_policy::kSortStreams> sort_stream_done;
  std::vector<Event> sent_to;                 // per destination
  int current = 0;                            // which of `keys` holds this GPU's keys
};

}  // namespace

struct InCoreSorter::Impl {
  // Where the pipeline is, so that a CUDA error can name the GPU and the stage (an asynchronous
  // error surfaces at the next synchronisation, which is labelled with the stage it ends).
  struct Where {
    int device = -1;
    std::string stage = "setup";
  } where;
  void at(int device, std::string stage) { where = Where{device, std::move(stage)}; }

  InCorePlan plan;
  std::vector<GpuState> gpus;
  PinnedHostBuffer digit_starts;  // [spanning bucket][gpu][digit] of the current pass
  std::size_t digit_start_slots = 0;
  std::vector<std::string> staged_pairs;

  explicit Impl(const InCorePlan& p) : plan(p) {
    const std::size_t g = plan.gpus.size();
    const int key_bits = int(8 * key_width(plan.type));
    ScopedDevice restore(plan.gpus[0]);  // leaves the caller's current device as it was
    gpus.reserve(g);                     // GpuState is built in place and never moves
    for (std::size_t i = 0; i < g; ++i) {
      GpuState& gpu = gpus.emplace_back(plan.gpus[i]);
      ScopedDevice scope(gpu.device);
      gpu.layout = gpu_layout(plan.type, plan.chunk_keys, int(g));
      const std::uint64_t key_bytes = gpu.layout.buffer_keys * key_width(plan.type);
      gpu.keys[0] = DeviceBuffer(key_bytes, "the key buffer");
      gpu.keys[1] = DeviceBuffer(key_bytes, "the second key buffer");
      gpu.block_counts = DeviceBuffer(gpu.layout.block_count_slots * sizeof(std::uint32_t), "block histograms");
      gpu.scan_temporary = DeviceBuffer(gpu.layout.scan_temporary_bytes, "the histogram scan");
      for (auto& temporary : gpu.sort_temporary)
        temporary = DeviceBuffer(gpu.layout.sort_temporary_bytes, "bucket sort storage");
      for (std::size_t j = 0; j < g; ++j) {
        gpu.to_gpu.emplace_back();
        gpu.sent_to.emplace_back();
      }
    }
    // Peer access between every pair that supports it; the others are staged by the driver.
    for (std::size_t i = 0; i < g; ++i) {
      for (std::size_t j = 0; j < g; ++j) {
        if (i == j || gpus[i].device == gpus[j].device) continue;
        int can = 0;
        RMGSORT_CUDA_TRY(cudaDeviceCanAccessPeer(&can, gpus[i].device, gpus[j].device));
        if (!can) {
          staged_pairs.push_back(std::to_string(gpus[i].device) + "->" + std::to_string(gpus[j].device));
          continue;
        }
        ScopedDevice scope(gpus[i].device);
        const cudaError_t status = cudaDeviceEnablePeerAccess(gpus[j].device, 0);
        if (status == cudaErrorPeerAccessAlreadyEnabled) {
          (void)cudaGetLastError();
        } else {
          RMGSORT_CUDA_TRY(status);
        }
      }
    }
    digit_start_slots = PartitionPlanner::max_spanning_buckets(int(g), key_bits, gpu_policy::kDigitBits) * g;
    digit_starts = PinnedHostBuffer(digit_start_slots * gpu_policy::kDigits * sizeof(std::uint32_t));
  }

  template <class T>
  InCoreStats sort_typed(std::byte* host, std::uint64_t count, SortOrder order);
};

template <class T>
InCoreStats InCoreSorter::Impl::sort_typed(std::byte* host, std::uint64_t count, SortOrder order) {
  using Bits = RadixBits<T>;
  constexpr std::size_t width = sizeof(T);
  const std::size_t g = gpus.size();
  const bool identity = encoding_is_identity<T>(order);
  InCoreStats stats;
  stats.gpus.resize(g);
  for (std::size_t i = 0; i < g; ++i) stats.gpus[i].device = gpus[i].device;
  stats.bytes_between.assign(g, std::vector<std::uint64_t>(g, 0));
  stats.staged_pairs = staged_pairs;
  if (count == 0) return stats;

  // 1. Copy in, all GPUs at once. The keys stay raw: the first pass encodes them as it reads.
  const std::vector<std::uint64_t> chunks = equal_chunks(count, g);
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < g; ++i) {
    GpuState& gpu = gpus[i];
    at(gpu.device, "copy in");
    ScopedDevice scope(gpu.device);
    gpu.current = 0;
    gpu.start.record(gpu.main.get());
    RMGSORT_CUDA_TRY(cudaMemcpyAsync(gpu.keys[0].as(), host + offset * width, chunks[i] * width,
                                     cudaMemcpyHostToDevice, gpu.main.get()));
    gpu.copied_in.record(gpu.main.get());
    offset += chunks[i];
  }

  // 2. Partitioning passes until no bucket spans two GPUs.
  PlannerConfig config;
  config.key_bits = int(8 * width);
  PartitionPlanner planner(chunks, config);
  // The first pass covers every GPU's whole chunk (the planner's initial bucket) and reads raw keys.
  const KeyInput raw_input = identity ? KeyInput::encoded
                             : order == SortOrder::ascending ? KeyInput::raw_ascending : KeyInput::raw_descending;
  while (!planner.done()) {
    const int pass = planner.passes_done();
    const KeyInput input = pass == 0 ? raw_input : KeyInput::encoded;
    const PassParts parts = pass_parts(planner.spanning(), g, int(width));
    RMGSORT_EXPECTS(parts.rows <= digit_start_slots, "at most s_max spanning buckets");
    auto* starts = digit_starts.as<std::uint32_t>();
    // Histograms of every part: block counts, scanned in place into scatter offsets; the digit
    // starts (each digit's first block's offset) go to the host for the planner.
    for (std::size_t i = 0; i < g; ++i) {
      GpuState& gpu = gpus[i];
      at(gpu.device, "histogram of pass " + std::to_string(pass + 1));
      ScopedDevice scope(gpu.device);
      gpu.histogram_start[std::size_t(pass)].record(gpu.main.get());
      for (const PassPart& part : parts.on_gpu[i]) {
        std::uint32_t* counts = gpu.block_counts.as<std::uint32_t>() + part.slot;
        const Bits* keys = gpu.keys[std::size_t(gpu.current)].as<Bits>() + part.range.offset;
        block_histograms_async<T>(keys, std::uint32_t(part.range.keys), part.digit_shift, input, counts, gpu.main.get());
        std::size_t temporary_bytes = gpu.layout.scan_temporary_bytes;
        RMGSORT_CUDA_TRY(cub::DeviceScan::ExclusiveSum(gpu.scan_temporary.as(), temporary_bytes, counts, counts,
                                                       part.blocks * gpu_policy::kDigits, gpu.main.get()));
        RMGSORT_CUDA_TRY(cudaMemcpy2DAsync(starts + part.row * gpu_policy::kDigits, sizeof(std::uint32_t), counts,
                                           part.blocks * sizeof(std::uint32_t), sizeof(std::uint32_t),
                                           gpu_policy::kDigits, cudaMemcpyDeviceToHost, gpu.main.get()));
      }
      gpu.histogram_done[std::size_t(pass)].record(gpu.main.get());
    }
    for (GpuState& gpu : gpus) {
      at(gpu.device, "copy in or histogram of pass " + std::to_string(pass + 1));
      gpu.main.synchronize();
    }

    const std::vector<std::vector<std::uint64_t>> histograms = digit_histograms(parts, starts);

    // Scatter each part into the other buffer, unless all its keys share the digit (thesis §4.2:
    // then the part is already partitioned). A part that is not the whole chunk is copied back, so
    // that each GPU's keys stay in one buffer.
    for (std::size_t i = 0; i < g; ++i) {
      GpuState& gpu = gpus[i];
      at(gpu.device, "scatter of pass " + std::to_string(pass + 1));
      ScopedDevice scope(gpu.device);
      gpu.scatter_start[std::size_t(pass)].record(gpu.main.get());
      for (const PassPart& part : parts.on_gpu[i]) {
        const GpuRange range = part.range;
        const std::vector<std::uint64_t>& histogram = histograms[part.row];
        const bool one_digit = std::find(histogram.begin(), histogram.end(), range.keys) != histogram.end();
        if (!one_digit) {
          Bits* in = gpu.keys[std::size_t(gpu.current)].as<Bits>();
          Bits* out = gpu.keys[std::size_t(1 - gpu.current)].as<Bits>();
          scatter_async<T>(in + range.offset, std::uint32_t(range.keys), part.digit_shift, input,
                           gpu.block_counts.as<std::uint32_t>() + part.slot, out + range.offset, gpu.main.get());
          if (range.offset == 0 && range.keys == chunks[i]) {
            gpu.current = 1 - gpu.current;  // the whole chunk moved: flip instead of copying back
          } else {
            RMGSORT_CUDA_TRY(cudaMemcpyAsync(in + range.offset, out + range.offset, range.keys * width,
                                             cudaMemcpyDeviceToDevice, gpu.main.get()));
          }
        } else if (input != KeyInput::encoded) {
          // A first pass that moved nothing left raw keys: encode them in place (skewed data only).
          encode_keys_async<T>(gpu.keys[std::size_t(gpu.current)].as<Bits>() + range.offset, range.keys, order,
                               gpu.main.get());
        }
      }
      gpu.scatter_done[std::size_t(pass)].record(gpu.main.get());
    }
    planner.refine(histograms);
  }
  for (GpuState& gpu : gpus) {
    at(gpu.device, "scatter of the last pass");
    gpu.main.synchronize();
  }

  // 3. The swap: every source sends its buckets' parts to their destinations, one stream per pair.
  for (std::size_t i = 0; i < g; ++i) {
    ScopedDevice scope(gpus[i].device);
    gpus[i].swap_start.record(gpus[i].main.get());
    for (std::size_t j = 0; j < g; ++j)
      RMGSORT_CUDA_TRY(cudaStreamWaitEvent(gpus[i].to_gpu[j].get(), gpus[i].swap_start.get(), 0));
  }
  for (const KeyTransfer& t : planner.swap_plan()) {
    GpuState& src = gpus[std::size_t(t.src_gpu)];
    GpuState& dst = gpus[std::size_t(t.dst_gpu)];
    at(src.device, "key swap to GPU " + std::to_string(dst.device));
    ScopedDevice scope(src.device);
    const std::byte* from = src.keys[std::size_t(src.current)].as() + t.src_offset * width;
    std::byte* to = dst.keys[std::size_t(1 - dst.current)].as() + t.dst_offset * width;
    cudaStream_t stream = src.to_gpu[std::size_t(t.dst_gpu)].get();
    if (src.device == dst.device) {
      RMGSORT_CUDA_TRY(cudaMemcpyAsync(to, from, t.keys * width, cudaMemcpyDeviceToDevice, stream));
    } else {
      RMGSORT_CUDA_TRY(cudaMemcpyPeerAsync(to, dst.device, from, src.device, t.keys * width, stream));
    }
    stats.bytes_between[std::size_t(t.src_gpu)][std::size_t(t.dst_gpu)] += t.keys * width;
  }
  for (std::size_t i = 0; i < g; ++i) {
    ScopedDevice scope(gpus[i].device);
    for (std::size_t j = 0; j < g; ++j) {
      gpus[i].sent_to[j].record(gpus[i].to_gpu[j].get());
      RMGSORT_CUDA_TRY(cudaStreamWaitEvent(gpus[i].main.get(), gpus[i].sent_to[j].get(), 0));
    }
    gpus[i].swap_done.record(gpus[i].main.get());
  }
  // A GPU's sorts overwrite its sending buffer: every transfer, from and to it, must be done.
  for (GpuState& gpu : gpus) {
    at(gpu.device, "key swap");
    gpu.main.synchronize();
  }

  // 4. Bucket sorts on reduced bit ranges, each bucket copied back as soon as it is sorted; two
  // streams, so one bucket sorts while the previous one is copied.
  for (std::size_t j = 0; j < g; ++j) {
    GpuState& gpu = gpus[j];
    at(gpu.device, "bucket sorts and copy back");
    ScopedDevice scope(gpu.device);
    const std::uint64_t base = planner.boundaries()[j];
    Bits* received = gpu.keys[std::size_t(1 - gpu.current)].as<Bits>();
    Bits* spare = gpu.keys[std::size_t(gpu.current)].as<Bits>();
    const std::vector<BucketSort> sorts = planner.sort_plan(int(j));
    for (auto& stream : gpu.sort) RMGSORT_CUDA_TRY(cudaStreamWaitEvent(stream.get(), gpu.swap_done.get(), 0));
    for (std::size_t k = 0; k < sorts.size(); ++k) {
      const BucketSort& sort = sorts[k];
      cudaStream_t stream = gpu.sort[k % gpu_policy::kSortStreams].get();
      Bits* result = received + sort.offset;
      if (sort.end_bit > 0 && sort.keys > 1) {
        cub::DoubleBuffer<Bits> buffers(received + sort.offset, spare + sort.offset);
        std::size_t temporary_bytes = gpu.layout.sort_temporary_bytes;
        RMGSORT_CUDA_TRY(cub::DeviceRadixSort::SortKeys(gpu.sort_temporary[k % gpu_policy::kSortStreams].as(), temporary_bytes,
                                                        buffers, sort.keys, 0, sort.end_bit, stream));
        result = buffers.Current();
      }
      if (!identity) decode_keys_async<T>(result, sort.keys, order, stream);
      RMGSORT_CUDA_TRY(cudaMemcpyAsync(host + (base + sort.offset) * width, result, sort.keys * width,
                                       cudaMemcpyDeviceToHost, stream));
    }
    for (int k = 0; k < gpu_policy::kSortStreams; ++k) {
      gpu.sort_stream_done[std::size_t(k)].record(gpu.sort[std::size_t(k)].get());
      RMGSORT_CUDA_TRY(cudaStreamWaitEvent(gpu.main.get(), gpu.sort_stream_done[std::size_t(k)].get(), 0));
    }
    gpu.sorted.record(gpu.main.get());
    stats.gpus[j].bucket_sorts = sorts.size();
    stats.gpus[j].keys_received = planner.boundaries()[j + 1] - base;
  }
  for (GpuState& gpu : gpus) {
    at(gpu.device, "bucket sorts and copy back");
    gpu.main.synchronize();
  }

  // 5. Statistics from the events.
  stats.passes = planner.passes_done();
  stats.buckets = planner.bucket_count();
  for (std::size_t i = 0; i < g; ++i) {
    const GpuState& gpu = gpus[i];
    InCoreStats::Gpu& out = stats.gpus[i];
    out.device = gpu.device;
    out.copy_in_ms = gpu.copied_in.since(gpu.start);
    for (int pass = 0; pass < stats.passes; ++pass) {
      out.histogram_ms.push_back(gpu.histogram_done[std::size_t(pass)].since(gpu.histogram_start[std::size_t(pass)]));
      out.exchange_ms.push_back(gpu.scatter_start[std::size_t(pass)].since(gpu.histogram_done[std::size_t(pass)]));
      out.scatter_ms.push_back(gpu.scatter_done[std::size_t(pass)].since(gpu.scatter_start[std::size_t(pass)]));
    }
    out.swap_ms = gpu.swap_done.since(gpu.swap_start);
    out.sort_and_copy_back_ms = gpu.sorted.since(gpu.swap_done);
    stats.total_ms = std::max(stats.total_ms, double(gpu.sorted.since(gpu.start)));
  }
  return stats;
}

InCoreSorter::InCoreSorter(const InCorePlan& plan) {
  try {
    impl_ = std::make_unique<Impl>(plan);
  } catch (const Error& e) {
    throw Error(std::string("in-core sort setup: ") + e.what());
  }
}
InCoreSorter::~InCoreSorter() = default;
const InCorePlan& InCoreSorter::plan() const { return impl_->plan; }

InCoreStats InCoreSorter::sort(std::byte* keys, std::uint64_t count, SortOrder order) {
  if (count > impl_->plan.round_keys)
    throw Error("in-core sort: " + std::to_string(count) + " keys exceed the planned round of " +
                std::to_string(impl_->plan.round_keys));
  if (count == 0)
    return visit_key_type(impl_->plan.type, [&]<class T>(T) { return impl_->sort_typed<T>(keys, 0, order); });
  // Page-locked memory copies at full speed and asynchronously; lock pageable memory for the call.
  cudaPointerAttributes attributes{};
  RMGSORT_CUDA_TRY(cudaPointerGetAttributes(&attributes, keys));
  PinnedRegistration pinned;
  if (attributes.type != cudaMemoryTypeHost)
    pinned = PinnedRegistration(keys, count * key_width(impl_->plan.type));
  try {
    return visit_key_type(impl_->plan.type, [&]<class T>(T) { return impl_->sort_typed<T>(keys, count, order); });
  } catch (const Error& e) {
    throw Error("GPU " + std::to_string(impl_->where.device) + ", " + impl_->where.stage + ": " + e.what());
  }
}

PinnedRegistration::PinnedRegistration(void* data, std::size_t bytes) {
  if (bytes == 0) return;
  RMGSORT_CUDA_TRY(cudaHostRegister(data, bytes, cudaHostRegisterPortable));
  data_ = data;
}
PinnedRegistration::~PinnedRegistration() {
  if (data_) (void)cudaHostUnregister(data_);
}
PinnedRegistration::PinnedRegistration(PinnedRegistration&& other) noexcept : data_(std::exchange(other.data_, nullptr)) {}
PinnedRegistration& PinnedRegistration::operator=(PinnedRegistration&& other) noexcept {
  std::swap(data_, other.data_);
  return *this;
}

}  // namespace rmgsort
