#include "host/splitters.hpp"

#include <algorithm>
#include <limits>

namespace rmgsort {

template <class Bits>
std::vector<Bits> Splitters<Bits>::bounds_for(std::span<const Bits> sorted, std::size_t rounds) {
  const std::size_t n = sorted.size();
  const std::size_t share = std::max<std::size_t>(1, n / rounds);
  std::vector<Bits> bounds;
  // Quantile boundaries: the value at each share's end starts the next round.
  for (std::size_t r = 1; r < rounds; ++r) bounds.push_back(sorted[std::min(n - 1, r * share)]);
  // Heavy values: a run of one value longer than a share is bounded on both sides.
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && sorted[j] == sorted[i]) ++j;
    if (j - i > share) {
      bounds.push_back(sorted[i]);
      if (sorted[i] != std::numeric_limits<Bits>::max()) bounds.push_back(Bits(sorted[i] + 1));
    }
    i = j;
  }
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  // A boundary at the smallest possible value leaves the first round empty: drop it.
  if (!bounds.empty() && bounds.front() == 0) bounds.erase(bounds.begin());
  return bounds;
}

template <class Bits>
Splitters<Bits> Splitters<Bits>::from_sample(std::span<Bits> sample, std::size_t rounds, Bits lowest,
                                             Bits highest) {
  Splitters result;
  std::sort(sample.begin(), sample.end());
  if (rounds > 1 && !sample.empty()) {
    // Each heavy value adds up to two boundaries. Fewer shares mean fewer boundaries of both kinds;
    // two shares make at most one heavy value and three boundaries.
    for (std::size_t shares = rounds;;) {
      result.bounds_ = bounds_for(sample, shares);
      if (result.bounds_.size() < rounds || shares == 2) break;
      shares = std::max<std::size_t>(2, std::min(shares - 1, shares * (rounds - 1) / result.bounds_.size()));
    }
    if (result.bounds_.size() >= rounds) result.bounds_.resize(rounds - 1);  // rounds 2 or 3 asked for
  }
  if (result.bounds_.empty() && rounds > 1 && lowest < highest) {
    result.bounds_.push_back(Bits(lowest + (highest - lowest) / 2 + 1));  // in (lowest, highest]
  }
  return result;
}

template <class Bits>
Splitters<Bits> Splitters<Bits>::evenly(std::size_t rounds, Bits lowest, Bits highest) {
  Splitters result;
  if (rounds < 2 || lowest >= highest) return result;
  const Bits range = Bits(highest - lowest);
  // Rounds of `step` values each, the last one possibly narrower: step - 1 <= range / rounds.
  const Bits step = Bits(range / rounds + 1);
  for (Bits above = step; above <= range; above = Bits(above + step)) {
    result.bounds_.push_back(Bits(lowest + above));
    if (range - above < step) break;  // the next would pass `highest` (or wrap around)
  }
  return result;
}

template class Splitters<std::uint32_t>;
template class Splitters<std::uint64_t>;

}  // namespace rmgsort
