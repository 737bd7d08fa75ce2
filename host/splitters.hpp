// Round boundaries chosen from a sample, for inputs that are partitioned while they stream past (the
// spill path: the records do not fit memory, so no exact histogram precedes the partition). Values are
// unsigned words that order as the keys do (the spill path's: one 64-bit rank word of the key,
// core/record_rank.hpp), so one comparison order serves every key type and direction.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace rmgsort {

// Round r holds the keys k with splitters[r - 1] <= k < splitters[r] (as words; the first round has
// no lower bound, the last no upper one): rounds are value-disjoint and ordered.
template <class Bits>
class Splitters {
 public:
  // From `sample` (the keys as words, any order; sorted in place), aiming at `rounds` rounds of equal
  // expected size, and never more than `rounds` rounds. A value that fills more than a round's share
  // of the sample gets a round of its own (it cannot be split by value, and a round of one value
  // needs no sort); where heavy values would make more rounds than asked for, the shares grow until
  // they fit. When the sample offers no boundary (one value) but the keys span [lowest, highest]
  // with lowest < highest, the middle of that range is the boundary, so that partitioning again
  // always makes progress.
  static Splitters from_sample(std::span<Bits> sample, std::size_t rounds, Bits lowest, Bits highest);
  // Rounds of equal width over [lowest, highest] (at most `rounds`, at least 2 when lowest <
  // highest): each round's range is at most (highest - lowest) / rounds wide, so a round
  // partitioned this way again and again ends in single values after log_rounds(range) passes.
  static Splitters evenly(std::size_t rounds, Bits lowest, Bits highest);

  [[nodiscard]] std::size_t rounds() const { return bounds_.size() + 1; }
  // The bounds at or below `value` (std::upper_bound's index), by halving a window with a
  // conditional move at each step rather than a branch: spread keys would mispredict one at random
  // at every level, and the spill pass asks twice per record (count, scatter).
  [[nodiscard]] std::size_t round_of(Bits value) const {
    const Bits* const first = bounds_.data();
    std::size_t n = bounds_.size();
    if (n == 0) return 0;
    const Bits* base = first;
    while (n > 1) {
      const std::size_t half = n / 2;
      base = base[half] <= value ? base + half : base;  // [base, base + n) still holds the last bound <= value, if any
      n -= half;
    }
    return std::size_t(base - first) + std::size_t(*base <= value);
  }
  [[nodiscard]] const std::vector<Bits>& bounds() const { return bounds_; }

 private:
  // Quantile boundaries of the sorted sample for `rounds` shares, and both sides of every value
  // that fills more than a share.
  static std::vector<Bits> bounds_for(std::span<const Bits> sorted, std::size_t rounds);

  std::vector<Bits> bounds_;  // strictly increasing
};

extern template class Splitters<std::uint32_t>;
extern template class Splitters<std::uint64_t>;

}  // namespace rmgsort
