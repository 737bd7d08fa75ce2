// The in-core sorter allocated for a plan made a moment earlier from the GPUs' free memory. Another
// process may take memory in between: when the allocation fails on GPUs that still answer, the
// plan is made once more from what each GPU has free now (smaller rounds), and when that cannot be
// allocated either, there is no sorter and the caller sorts on the CPU. Nothing here prints: the
// caller words what happened for its user.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpu/in_core_sort.hpp"

namespace rmgsort {

// The GPU furthest below what the first plan needed of it, read after that plan's allocation failed.
struct GpuShortfall {
  int device = 0;
  std::uint64_t free = 0;     // free now
  std::uint64_t usable = 0;   // of it, what a plan may take (gpu/memory_plan.cuh: GpuFreeMemory)
  std::uint64_t planned = 0;  // what the first plan needed on it
};

struct InCoreAllocation {
  std::unique_ptr<InCoreSorter> sorter;  // nullptr: neither plan could be allocated
  std::uint64_t first_round_keys = 0;    // the round of the plan first made
  std::string first_failure;             // why that plan was not allocated; "" when it was
  std::optional<GpuShortfall> shortfall;  // after a failure: the GPU short of that plan, when one is
  std::string replan_failure;            // why the plan made again was not allocated either
  double seconds = 0;                    // allocating, re-planning included
};

// Allocates a sorter for `plan`, which plan_in_core_for made for min(keys, the largest round that
// fitted) within `gpu_memory_bytes` (--gpu-memory; nullopt: free memory less the margin). When that
// fails, plans again for min(keys, the largest round that fits what is usable now on every GPU) and
// allocates that. A GPU that cannot report its free memory after a failure (a device fault) is an
// Error: the first failure's.
[[nodiscard]] InCoreAllocation allocate_in_core(const InCorePlan& plan, std::uint64_t keys,
                                                std::optional<std::uint64_t> gpu_memory_bytes);

// Waits for everything enqueued on `gpus`, ignoring errors: after a sort failed part way, so that no
// copy still writes host memory the caller is about to free. Synchronous; never throws.
void wait_for_gpus(const std::vector<int>& gpus) noexcept;

}  // namespace rmgsort
