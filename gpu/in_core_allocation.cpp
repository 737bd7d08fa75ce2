#include "gpu/in_core_allocation.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>

#include "core/error.hpp"
#include "gpu/memory_plan.cuh"

namespace rmgsort {
namespace {

// The GPU whose usable memory is the smallest part of what `plan` needs of it, when one has less.
std::optional<GpuShortfall> shortfall_of(const InCorePlan& plan, const std::vector<GpuFreeMemory>& now) {
  std::optional<GpuShortfall> worst;
  for (std::size_t i = 0; i < now.size(); ++i) {
    const std::uint64_t planned = plan.need[i].total();
    if (now[i].usable >= planned) continue;
    const auto part = [](std::uint64_t usable, std::uint64_t of) { return double(usable) / double(of); };
    if (!worst || part(now[i].usable, planned) < part(worst->usable, worst->planned))
      worst = GpuShortfall{now[i].device, now[i].free, now[i].usable, planned};
  }
  return worst;
}

}  // namespace

InCoreAllocation allocate_in_core(const InCorePlan& plan, std::uint64_t keys,
                                  std::optional<std::uint64_t> gpu_memory_bytes) {
  const auto start = std::chrono::steady_clock::now();
  InCoreAllocation allocation;
  allocation.first_round_keys = plan.round_keys;
  const auto done = [&] {
    allocation.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(allocation);
  };
  try {
    allocation.sorter = std::make_unique<InCoreSorter>(plan);
    return done();
  } catch (const Error& error) {
    allocation.first_failure = error.what();
  }
  // The failed sorter's buffers are freed by now: what is free is what the other processes left.
  std::vector<GpuFreeMemory> now;
  try {
    now = gpu_free_memory(plan.gpus, gpu_memory_bytes);
  } catch (const Error&) {
    throw Error(allocation.first_failure);  // a device fault, not a lack of memory
  }
  allocation.shortfall = shortfall_of(plan, now);
  // One budget for every GPU: a round's chunks are equal, so the GPU with the least decides anyway.
  std::uint64_t usable = now.front().usable;
  for (const GpuFreeMemory& gpu : now) usable = std::min(usable, gpu.usable);
  try {
    const InCorePlan largest = plan_in_core(plan.type, plan.gpus, usable, plan.value_bytes);
    allocation.sorter =
        std::make_unique<InCoreSorter>(shrink_in_core_plan(largest, std::min(keys, largest.round_keys)));
  } catch (const Error& error) {
    allocation.replan_failure = error.what();
  }
  return done();
}

void wait_for_gpus(const std::vector<int>& gpus) noexcept {
  // Errors are ignored: the sort's own failure is what is being reported.
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) return;
  for (int device : gpus)
    if (cudaSetDevice(device) == cudaSuccess) (void)cudaDeviceSynchronize();
  (void)cudaSetDevice(current);
  (void)cudaGetLastError();  // so that no later check reports this failure again
}

}  // namespace rmgsort
