#include "host/splitters.hpp"

#include <limits>

namespace rmgsort {

template <class Bits>
Splitters<Bits> Splitters<Bits>::from_sample(std::vector<Bits>& sample, std::size_t rounds, Bits lowest,
                                             Bits highest) {
  Splitters result;
  std::sort(sample.begin(), sample.end());
  const std::size_t n = sample.size();
  if (rounds > 1 && n > 0) {
    const std::size_t share = std::max<std::size_t>(1, n / rounds);
    std::vector<Bits> bounds;
    // Quantile boundaries: the value at each share's end starts the next round.
    for (std::size_t r = 1; r < rounds; ++r) bounds.push_back(sample[std::min(n - 1, r * share)]);
    // Heavy values: a run of one value longer than a share is bounded on both sides.
    for (std::size_t i = 0; i < n;) {
      std::size_t j = i;
      while (j < n && sample[j] == sample[i]) ++j;
      if (j - i > share) {
        bounds.push_back(sample[i]);
        if (sample[i] != std::numeric_limits<Bits>::max()) bounds.push_back(Bits(sample[i] + 1));
      }
      i = j;
    }
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    // A boundary at the smallest possible value leaves the first round empty: drop it.
    if (!bounds.empty() && bounds.front() == 0) bounds.erase(bounds.begin());
    result.bounds_ = std::move(bounds);
  }
  if (result.bounds_.empty() && rounds > 1 && lowest < highest) {
    result.bounds_.push_back(Bits(lowest + (highest - lowest) / 2 + 1));  // in (lowest, highest]
  }
  return result;
}

template class Splitters<std::uint32_t>;
template class Splitters<std::uint64_t>;

}  // namespace rmgsort
