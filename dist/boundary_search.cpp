#include "dist/boundary_search.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>

#include "core/error.hpp"

namespace rmgsort::dist {

BoundarySearch::BoundarySearch(std::uint64_t total, int ranks, const RecordLayout& layout, SortOrder order)
    : total_(total), layout_(layout), order_(order), bits_(key_bits(layout)) {
  RMGSORT_EXPECTS(ranks >= 1, "at least one rank");
  for (int j = 1; j < ranks; ++j) boundaries_.push_back(Boundary{part_start(total, ranks, j)});
  if (!done()) make_buckets();
}

void BoundarySearch::make_buckets() {
  buckets_.clear();
  for (const Boundary& boundary : boundaries_)
    if (buckets_.empty() || buckets_.back() != boundary.value) buckets_.push_back(boundary.value);
}

void BoundarySearch::count(const std::byte* records, std::uint64_t count, std::span<std::uint64_t> counts) const {
  RMGSORT_EXPECTS(counts.size() == counters(), "a level's counters");
  const int width = digit_bits(), bit = bit_;
  const KeyShape shift = key_shape(layout_);
  const std::size_t record_size = layout_.record_size;
  tbb::enumerable_thread_specific<std::vector<std::uint64_t>> local([&] { return std::vector<std::uint64_t>(counts.size()); });
  visit_rank(layout_, order_, [&](const auto& rank) {
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, 1 << 16), [&](const auto& range) {
      std::vector<std::uint64_t>& mine = local.local();
      for (std::uint64_t i = range.begin(); i != range.end(); ++i) {
        const RankKey key = rank_key(rank, records + i * record_size, shift);
        const RankKey prefix = prefix_of(key, bit);
        const auto found = std::lower_bound(buckets_.begin(), buckets_.end(), prefix);
        if (found == buckets_.end() || *found != prefix) continue;
        ++mine[std::size_t(found - buckets_.begin()) << width | digit_at(key, bit, width)];
      }
    });
  });
  for (const std::vector<std::uint64_t>& mine : local)
    for (std::size_t c = 0; c < counts.size(); ++c) counts[c] += mine[c];
}

void BoundarySearch::advance(std::span<const std::uint64_t> global_counts) {
  RMGSORT_EXPECTS(global_counts.size() == counters(), "a level's counters");
  const int width = digit_bits();
  const std::size_t digits = std::size_t{1} << width;
  std::size_t bucket = 0;
  for (Boundary& boundary : boundaries_) {
    while (buckets_[bucket] != boundary.value) ++bucket;  // both ascending
    const std::uint64_t* counts = global_counts.data() + bucket * digits;
    // Invariant: below <= target < below + (records with this prefix), so some digit holds it.
    std::uint64_t below = boundary.below;
    std::size_t digit = 0;
    while (digit < digits && below + counts[digit] <= boundary.target) below += counts[digit++];
    RMGSORT_EXPECTS(digit < digits, "a boundary's bucket holds its target (the ranks' counts disagree)");
    boundary.below = below;
    boundary.value = with_digit(boundary.value, bit_, width, digit);
  }
  bit_ += width;
  if (done()) {
    // A first digit wider than the key (bytes:1) took padding bits into the values: cut them off.
    for (Boundary& boundary : boundaries_) boundary.value = prefix_of(boundary.value, bits_);
  } else {
    make_buckets();
  }
}

}  // namespace rmgsort::dist
