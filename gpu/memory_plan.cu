#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>

#include "gpu/cuda_check.hpp"
#include "gpu/device_resources.hpp"
#include "gpu/gpu_policy.hpp"
#include "gpu/memory_plan.cuh"
#include "gpu/partition_planner.hpp"

namespace rmgsort {
namespace {

template <class Bits>
std::uint64_t sort_temporary_bytes(std::uint64_t keys, std::size_t value_bytes) {
  std::size_t bytes = 0;
  cub::DoubleBuffer<Bits> buffers(nullptr, nullptr);
  if (value_bytes == 0) {
    RMGSORT_CUDA_TRY(cub::DeviceRadixSort::SortKeys(nullptr, bytes, buffers, keys, 0, int(8 * sizeof(Bits))));
  } else {
    cub::DoubleBuffer<std::uint64_t> values(nullptr, nullptr);
    RMGSORT_CUDA_TRY(
        cub::DeviceRadixSort::SortPairs(nullptr, bytes, buffers, values, keys, 0, int(8 * sizeof(Bits))));
  }
  return bytes;
}

std::uint64_t scan_temporary_bytes(std::uint64_t items) {
  std::size_t bytes = 0;
  RMGSORT_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<std::uint32_t*>(nullptr),
                                                 static_cast<std::uint32_t*>(nullptr), items));
  return bytes;
}

std::uint64_t available_bytes(int device, std::optional<std::uint64_t> gpu_memory_bytes) {
  ScopedDevice scope(device);
  std::size_t free = 0, total = 0;
  RMGSORT_CUDA_TRY(cudaMemGetInfo(&free, &total));
  if (gpu_memory_bytes) {
    if (*gpu_memory_bytes > free)
      throw Error("GPU " + std::to_string(device) + ": --gpu-memory " + std::to_string(*gpu_memory_bytes) +
                  " bytes is more than its " + std::to_string(free) + " free bytes");
    return *gpu_memory_bytes;
  }
  return free > kGpuMemoryMargin ? free - kGpuMemoryMargin : 0;
}

}  // namespace

GpuLayout gpu_layout(KeyType type, std::uint64_t chunk_keys, int gpus, std::size_t value_bytes) {
  RMGSORT_EXPECTS(value_bytes == 0 || value_bytes == sizeof(std::uint64_t), "values are u64");
  const int width = int(key_width(type));
  GpuLayout layout;
  layout.chunk_keys = chunk_keys;
  layout.epsilon_keys = std::uint64_t(double(chunk_keys) * gpu_policy::kEpsilonFraction);
  layout.buffer_keys = chunk_keys + 2 * layout.epsilon_keys;
  layout.block_count_slots = (gpu_policy::blocks_for(chunk_keys, width) + std::uint64_t(gpus)) * gpu_policy::kDigits;
  layout.scan_temporary_bytes = scan_temporary_bytes(std::max<std::uint64_t>(layout.block_count_slots, 1));
  const std::uint64_t sorted = std::max<std::uint64_t>(layout.buffer_keys, 1);
  layout.sort_temporary_bytes = width == 4 ? sort_temporary_bytes<std::uint32_t>(sorted, value_bytes)
                                           : sort_temporary_bytes<std::uint64_t>(sorted, value_bytes);
  layout.need.key_buffers = 2 * layout.buffer_keys * std::uint64_t(width);
  layout.need.value_buffers = 2 * layout.buffer_keys * value_bytes;
  layout.need.cub_temporary = gpu_policy::kSortStreams * layout.sort_temporary_bytes + layout.scan_temporary_bytes;
  // Block-local histograms are reused by every pass (thesis §4.5's reduction); the digit tables of
  // the spanning buckets (at most s_max) go straight to pinned host memory for the planner.
  layout.need.histograms = layout.block_count_slots * sizeof(std::uint32_t);
  return layout;
}

std::vector<GpuFreeMemory> gpu_free_memory(const std::vector<int>& gpus,
                                           std::optional<std::uint64_t> gpu_memory_bytes) {
  std::vector<GpuFreeMemory> memory;
  for (int device : gpus) {
    ScopedDevice scope(device);
    std::size_t free = 0, total = 0;
    RMGSORT_CUDA_TRY(cudaMemGetInfo(&free, &total));
    std::uint64_t usable = free > kGpuMemoryMargin ? free - kGpuMemoryMargin : 0;
    if (gpu_memory_bytes) usable = std::min(usable, *gpu_memory_bytes);
    memory.push_back(GpuFreeMemory{device, free, usable});
  }
  return memory;
}

namespace {

// The plan for `round_keys` keys: what each GPU needs, not compared with what it has.
InCorePlan plan_without_memory_check(KeyType type, const std::vector<int>& gpus, std::uint64_t round_keys,
                                     std::size_t value_bytes) {
  if (gpus.empty()) throw Error("the in-core GPU sort needs at least one GPU");
  InCorePlan plan;
  plan.type = type;
  plan.value_bytes = value_bytes;
  plan.gpus = gpus;
  plan.round_keys = round_keys;
  plan.chunk_keys = equal_chunks(round_keys, gpus.size()).front();
  if (plan.chunk_keys > gpu_policy::kMaxPlannedChunk)
    throw Error("a round of " + std::to_string(round_keys) + " keys gives " + std::to_string(plan.chunk_keys) +
                " keys per GPU; with its epsilon padding that is more than the 2^32 a pass can count");
  for (int device : gpus) {
    ScopedDevice scope(device);
    plan.need.push_back(gpu_layout(type, plan.chunk_keys, int(gpus.size()), value_bytes).need);
  }
  return plan;
}

}  // namespace

InCorePlan plan_in_core_for(KeyType type, const std::vector<int>& gpus, std::uint64_t round_keys,
                            std::optional<std::uint64_t> gpu_memory_bytes, std::size_t value_bytes) {
  InCorePlan plan = plan_without_memory_check(type, gpus, round_keys, value_bytes);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const std::uint64_t available = available_bytes(gpus[i], gpu_memory_bytes);
    if (plan.need[i].total() > available)
      throw Error("GPU " + std::to_string(gpus[i]) + ": a round of " + std::to_string(round_keys) + " keys needs " +
                  std::to_string(plan.need[i].total()) + " bytes on each GPU, more than the " +
                  std::to_string(available) + " available" + (gpu_memory_bytes ? " (--gpu-memory)" : ""));
  }
  return plan;
}

InCorePlan shrink_in_core_plan(const InCorePlan& fitted, std::uint64_t round_keys) {
  RMGSORT_EXPECTS(round_keys <= fitted.round_keys, "shrink_in_core_plan: a round no larger than the plan's");
  return plan_without_memory_check(fitted.type, fitted.gpus, round_keys, fitted.value_bytes);
}

InCorePlan plan_in_core(KeyType type, const std::vector<int>& gpus, std::optional<std::uint64_t> gpu_memory_bytes,
                        std::size_t value_bytes) {
  if (gpus.empty()) throw Error("the in-core GPU sort needs at least one GPU");
  // The largest chunk that fits every GPU: the need grows with the chunk, so bisect.
  std::uint64_t fits = 0;
  for (int device : gpus) {
    ScopedDevice scope(device);
    // The first query of CUB's temporary storage loads its kernels, which takes device memory
    // (lazy module loading): load them before free memory is read, or plan_in_core_for below,
    // which reads it again, finds a few MB less than the bisection did.
    // (Small and large sorts take different kernels.)
    for (std::uint64_t keys : {std::uint64_t{1}, gpu_policy::kMaxPlannedChunk})
      (void)gpu_layout(type, keys, int(gpus.size()), value_bytes);
    const std::uint64_t available = available_bytes(device, gpu_memory_bytes);
    std::uint64_t lo = 0, hi = gpu_policy::kMaxPlannedChunk;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo + 1) / 2;
      if (gpu_layout(type, mid, int(gpus.size()), value_bytes).need.total() <= available) lo = mid; else hi = mid - 1;
    }
    if (lo == 0)
      throw Error("GPU " + std::to_string(device) + ": " + std::to_string(available) +
                  " bytes of GPU memory do not hold even one key per GPU");
    fits = fits == 0 ? lo : std::min(fits, lo);
  }
  // From the free memory the bisection read, not a second reading: another process may have taken
  // some in between, and that is the allocation's to find out (gpu/in_core_allocation.hpp re-plans),
  // not an error of planning.
  return plan_without_memory_check(type, gpus, fits * gpus.size(), value_bytes);
}

}  // namespace rmgsort
