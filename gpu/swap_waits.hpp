// Which transfers of the swap each bucket sort waits for, so that a GPU sorts (and copies back) its
// first buckets while the rest of the swap is still under way, instead of after all of it. Pure
// host code, from the planner's swap plan and sort plans.
//
// A sort of keys [offset, offset + keys) of GPU j reads and writes that range of the buffer j
// receives into, and writes the same range of the buffer j sends from (the sort's double buffer).
// So it waits for every transfer that writes into the first range (to j) and every transfer that
// reads from the second (from j). Each pair of GPUs has one stream, whose transfers run in plan
// order, so waiting for the last such transfer of each stream is enough. The plan lists its
// transfers by bucket, so the offsets on each GPU grow along it (checked): GPU j's first buckets
// arrive first, and one walk over each GPU's transfers beside its sorts finds every overlap.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "gpu/partition_planner.hpp"

namespace rmgsort {

struct SwapWaits {
  // [gpu][sort]: indices into the swap plan, at most one per stream (src, dst), ascending.
  std::vector<std::vector<std::vector<std::size_t>>> of_sort;
  // [transfer]: whether any sort waits for it (the swap records an event after those only).
  std::vector<bool> awaited;
};

// `sorts[j]` is planner.sort_plan(j) for each GPU j; `transfers` is planner.swap_plan().
[[nodiscard]] SwapWaits swap_waits(std::span<const KeyTransfer> transfers,
                                   const std::vector<std::vector<BucketSort>>& sorts);

}  // namespace rmgsort
