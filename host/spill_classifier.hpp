// The spill path's classification of a chunk of keys into rounds (sort/spill_sort.hpp): the rounds
// are value ranges between splitters chosen from a sample (host/splitters.hpp), as the keys stream
// past too many to count first. Each chunk's keys are grouped by round, in their order within each
// round, for one append to the pass's spill file, and the pass learns each round's key count and
// value range (whether it fits a sort, or holds one value, or must be partitioned again, and over
// what range). The counting sort is the round partition's (host/chunk_buckets.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "core/key_order.hpp"
#include "host/splitters.hpp"

namespace rmgsort {

// What a pass learned of one round's keys: how many, and the lowest and highest (encoded).
template <class Bits>
struct RoundExtent {
  std::uint64_t keys = 0;
  Bits lowest = std::numeric_limits<Bits>::max();
  Bits highest = 0;
  void add(const RoundExtent& other) {
    keys += other.keys;
    lowest = std::min(lowest, other.lowest);
    highest = std::max(highest, other.highest);
  }
};

template <class T>
class SpillClassifier {
 public:
  using Bits = RadixBits<T>;

  // Keys of type T in `order`, into the rounds of `splitters` (which outlive the classifier).
  SpillClassifier(const Splitters<Bits>& splitters, SortOrder order) : splitters_(splitters), order_(order) {}

  // Groups the keys of `chunk` (whole keys) by round into `grouped` (room for chunk.size() bytes, not
  // overlapping it), in parallel; adds what it found to `extents` (one per round). Returns where each
  // round's keys end in `grouped`, in bytes (the last: chunk.size()).
  std::vector<std::uint64_t> classify(std::span<const std::byte> chunk, std::byte* grouped,
                                      std::vector<RoundExtent<Bits>>& extents) const;

 private:
  template <SortOrder kOrder>
  std::vector<std::uint64_t> classify_in(std::span<const std::byte> chunk, std::byte* grouped,
                                         std::vector<RoundExtent<Bits>>& extents) const;

  const Splitters<Bits>& splitters_;
  SortOrder order_;
};

}  // namespace rmgsort
