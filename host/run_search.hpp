// Binary search of a sorted run (host/merge_run.hpp) for a key, comparing rank words as the merge
// does: where the splitters of the parallel merge and the mergeable prefix of a window cut a run.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/record_rank.hpp"
#include "host/merge_run.hpp"

namespace rmgsort {

// The number of RUN's records whose key ranks before the key of the record at KEY (UPPER: before or
// with it): std::lower_bound (std::upper_bound) over the run's keys.
template <class Rank>
[[nodiscard]] std::uint64_t run_bound(const Rank& rank, const MergeRun& run, const std::byte* key, bool upper) {
  std::uint64_t low = 0, high = run.count;
  while (low < high) {
    const std::uint64_t middle = low + (high - low) / 2;
    const int c = compare_ranks(rank, run.record(middle), key);
    if (c < 0 || (upper && c == 0)) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

}  // namespace rmgsort
