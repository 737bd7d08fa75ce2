// The offsets of a parallel radix pass in which task t owns one part of a range and scatters it
// after counting it: every bucket receives task 0's keys first, then task 1's, and so on (so the
// pass is stable). Shared by the key sort (host/radix_sort.cpp) and the tag sort (host/tag_sort.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rmgsort {

// counts[t][d], task t's keys of bucket d, becomes task t's first write position in bucket d, the
// buckets laid out from `begin` in order; returns each bucket's size.
template <std::size_t kBuckets>
std::array<std::uint64_t, kBuckets> to_task_offsets(std::vector<std::array<std::uint64_t, kBuckets>>& counts,
                                                    std::uint64_t begin) {
  std::array<std::uint64_t, kBuckets> bucket_size{};
  std::uint64_t offset = begin;
  for (std::size_t d = 0; d < kBuckets; ++d) {
    for (auto& task : counts) {
      const std::uint64_t c = task[d];
      task[d] = offset;
      offset += c;
      bucket_size[d] += c;
    }
  }
  return bucket_size;
}

}  // namespace rmgsort
