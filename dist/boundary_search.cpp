#include "dist/boundary_search.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>

#include "core/error.hpp"

namespace rmgsort::dist {
namespace {

// What a level counts, for keys of one word (numbers, bytes:1..8), as plain integers: by value, so
// that the loop keeps them in registers (the counters are uint64s too, which could alias anything
// the loop reached through a reference).
struct OneWordLevel {
  KeyShape shape;
  std::size_t record_size;
  std::uint64_t prefix_mask, low, high;  // the bits above the digit; the first and last bucket's
  const std::uint64_t* buckets;          // each bucket's prefix, ascending
  std::size_t bucket_count;
  int digit_shift, width;
};

template <class Rank>
void count_one_word(const Rank rank, const OneWordLevel level, const std::byte* records, std::uint64_t begin,
                    std::uint64_t end, std::uint64_t* counts) {
  const std::uint64_t digit_mask = (std::uint64_t{1} << level.width) - 1;
  for (std::uint64_t i = begin; i != end; ++i) {
    const std::uint64_t key = rank_key_word(rank, records + i * level.record_size, level.shape);
    const std::uint64_t prefix = key & level.prefix_mask;
    if (prefix < level.low || prefix > level.high) continue;
    std::size_t bucket = 0;
    if (level.bucket_count > 1) {
      const std::uint64_t* found = std::lower_bound(level.buckets, level.buckets + level.bucket_count, prefix);
      if (*found != prefix) continue;
      bucket = std::size_t(found - level.buckets);
    }
    ++counts[bucket << level.width | ((key >> level.digit_shift) & digit_mask)];
  }
}

}  // namespace

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
  const KeyShape shape = key_shape(layout_);
  const int words = key_words(layout_);
  const KeyLess less{words};
  const std::size_t record_size = layout_.record_size;
  // Most records lie in no bucket after the first level: those outside [first, last] are passed over
  // before any search.
  const RankKey first = buckets_.front(), last = buckets_.back();
  // Keys of one word (numbers, bytes:1..8) take a path of plain integers: a level of 25 M u64 keys
  // took 0.28 s (the first 0.08 s) against 0.62-0.70 s through RankKeys, whose 32-byte copies stall
  // on store forwarding (2 threads of a 2-core machine that others loaded too).
  std::vector<std::uint64_t> first_words;
  for (const RankKey& bucket : buckets_) first_words.push_back(bucket[0]);
  const OneWordLevel one_word{shape, record_size, bit == 0 ? 0 : ~std::uint64_t{0} << (64 - bit), first[0], last[0],
                              first_words.data(), first_words.size(), 64 - bit - width, width};
  tbb::enumerable_thread_specific<std::vector<std::uint64_t>> local([&] { return std::vector<std::uint64_t>(counts.size()); });
  visit_rank(layout_, order_, [&](const auto& rank) {
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, 1 << 16), [&](const auto& range) {
      std::vector<std::uint64_t>& mine = local.local();
      if (words == 1) {
        count_one_word(rank, one_word, records, range.begin(), range.end(), mine.data());
        return;
      }
      for (std::uint64_t i = range.begin(); i != range.end(); ++i) {
        const RankKey key = rank_key(rank, records + i * record_size, shape);
        const RankKey prefix = prefix_of(key, bit);
        if (less(prefix, first) || less(last, prefix)) continue;
        std::size_t bucket = 0;
        if (buckets_.size() > 1) {
          const auto found = std::lower_bound(buckets_.begin(), buckets_.end(), prefix, less);
          if (!same_key(*found, prefix, words)) continue;
          bucket = std::size_t(found - buckets_.begin());
        }
        ++mine[bucket << width | digit_at(key, bit, width)];
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
