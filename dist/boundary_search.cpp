#include "dist/boundary_search.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <type_traits>

#include "core/error.hpp"

namespace rmgsort::dist {
namespace {

// Where a level reads its keys: records of the slice through their rank (core/record_rank.hpp), or
// keys collected before as rank words, `words` a key (dist/boundary_candidates.hpp).
template <class Rank>
struct RecordKeys {
  Rank rank;
  const std::byte* records;
  std::size_t record_size;
  KeyShape shape;
  [[nodiscard]] std::uint64_t word(std::uint64_t i) const { return rank_key_word(rank, records + i * record_size, shape); }
  [[nodiscard]] RankKey key(std::uint64_t i) const { return rank_key(rank, records + i * record_size, shape); }
};

struct WordKeys {
  const std::uint64_t* keys;
  std::size_t words;
  [[nodiscard]] std::uint64_t word(std::uint64_t i) const { return keys[i * words]; }
  [[nodiscard]] RankKey key(std::uint64_t i) const {
    RankKey key{};
    std::copy_n(keys + i * words, words, key.begin());
    return key;
  }
};

// What a level looks for, for keys of one word (numbers, bytes:1..8), as plain integers: by value,
// so that the loop keeps them in registers (the counters are uint64s too, which could alias anything
// the loop reached through a reference).
struct OneWordLevel {
  std::uint64_t prefix_mask, low, high;  // the bits above the digit; the first and last bucket's
  const std::uint64_t* buckets;          // each bucket's prefix, ascending
  std::size_t bucket_count;
  int digit_shift, width;
};

// Calls f(i, bucket, digit) for every key i of KEYS in [begin, end) that lies in one of the level's
// buckets. Most keys lie in none after the first level: those outside [first, last] are passed over
// before any search. Keys of one word take a path of plain integers: a level of 25 M u64 keys took
// 0.28 s (the first 0.08 s) against 0.62-0.70 s through RankKeys, whose 32-byte copies stall on
// store forwarding (2 threads of a 2-core machine that others loaded too).
template <class Keys, class F>
void for_each_in_buckets(const Keys& keys, const std::vector<RankKey>& buckets, int bit, int width, int words,
                         std::uint64_t begin, std::uint64_t end, F&& f) {
  if (words == 1) {
    std::vector<std::uint64_t> first_words;  // (one a bucket: a few)
    for (const RankKey& bucket : buckets) first_words.push_back(bucket[0]);
    const OneWordLevel level{bit == 0 ? 0 : ~std::uint64_t{0} << (64 - bit), buckets.front()[0], buckets.back()[0],
                             first_words.data(), first_words.size(), 64 - bit - width, width};
    const std::uint64_t digit_mask = (std::uint64_t{1} << level.width) - 1;
    for (std::uint64_t i = begin; i != end; ++i) {
      const std::uint64_t key = keys.word(i);
      const std::uint64_t prefix = key & level.prefix_mask;
      if (prefix < level.low || prefix > level.high) continue;
      std::size_t bucket = 0;
      if (level.bucket_count > 1) {
        const std::uint64_t* found = std::lower_bound(level.buckets, level.buckets + level.bucket_count, prefix);
        if (*found != prefix) continue;
        bucket = std::size_t(found - level.buckets);
      }
      f(i, bucket, (key >> level.digit_shift) & digit_mask);
    }
    return;
  }
  const KeyLess less{words};
  const RankKey first = buckets.front(), last = buckets.back();
  for (std::uint64_t i = begin; i != end; ++i) {
    const RankKey key = keys.key(i);
    const RankKey prefix = prefix_of(key, bit);
    if (less(prefix, first) || less(last, prefix)) continue;
    std::size_t bucket = 0;
    if (buckets.size() > 1) {
      const auto found = std::lower_bound(buckets.begin(), buckets.end(), prefix, less);
      if (!same_key(*found, prefix, words)) continue;
      bucket = std::size_t(found - buckets.begin());
    }
    f(i, bucket, digit_at(key, bit, width));
  }
}

// Adds to COUNTS the digits of the COUNT keys of KEYS that lie in BUCKETS, on every thread.
template <class Keys>
void count_digits(const Keys& keys, std::uint64_t count, const std::vector<RankKey>& buckets, int bit, int width,
                  int words, std::span<std::uint64_t> counts) {
  const auto count_into = [&](std::uint64_t* const into, std::uint64_t begin, std::uint64_t end) {
    for_each_in_buckets(keys, buckets, bit, width, words, begin, end,
                        [into, width](std::uint64_t, std::size_t bucket, std::uint64_t digit) {
                          ++into[bucket << width | digit];
                        });
  };
  constexpr std::uint64_t kGrain = std::uint64_t{1} << 16;
  if (count <= kGrain) {  // (one thread's work: no counters of its own to allocate and add)
    count_into(counts.data(), 0, count);
    return;
  }
  tbb::enumerable_thread_specific<std::vector<std::uint64_t>> local([&] { return std::vector<std::uint64_t>(counts.size()); });
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, kGrain), [&](const auto& range) {
    count_into(local.local().data(), range.begin(), range.end());
  });
  for (const std::vector<std::uint64_t>& mine : local)
    for (std::size_t c = 0; c < counts.size(); ++c) counts[c] += mine[c];
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
  const KeyShape shape = key_shape(layout_);
  visit_rank(layout_, order_, [&](const auto& rank) {
    const RecordKeys<std::decay_t<decltype(rank)>> keys{rank, records, layout_.record_size, shape};
    count_digits(keys, count, buckets_, bit_, digit_bits(), key_words(layout_), counts);
  });
}

void BoundarySearch::count_keys(const std::uint64_t* keys, std::uint64_t count, std::span<std::uint64_t> counts) const {
  RMGSORT_EXPECTS(counts.size() == counters(), "a level's counters");
  const int words = key_words(layout_);
  count_digits(WordKeys{keys, std::size_t(words)}, count, buckets_, bit_, digit_bits(), words, counts);
}

void BoundarySearch::collect(const std::byte* records, std::uint64_t count, std::vector<std::uint64_t>& keys) const {
  const KeyShape shape = key_shape(layout_);
  const int words = key_words(layout_);
  visit_rank(layout_, order_, [&](const auto& rank) {
    const RecordKeys<std::decay_t<decltype(rank)>> from{rank, records, layout_.record_size, shape};
    for_each_in_buckets(from, buckets_, bit_, digit_bits(), words, 0, count,
                        [&](std::uint64_t i, std::size_t, std::uint64_t) {
                          const RankKey key = from.key(i);
                          keys.insert(keys.end(), key.begin(), key.begin() + words);
                        });
  });
}

std::uint64_t BoundarySearch::held(std::span<const std::uint64_t> level_counts) const {
  std::uint64_t records = 0;
  for (std::size_t cell : held_cells_) records += level_counts[cell];
  return records;
}

void BoundarySearch::advance(std::span<const std::uint64_t> global_counts) {
  RMGSORT_EXPECTS(global_counts.size() == counters(), "a level's counters");
  const int width = digit_bits();
  const std::size_t digits = std::size_t{1} << width;
  std::size_t bucket = 0;
  held_cells_.clear();
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
    const std::size_t cell = bucket * digits + digit;
    if (held_cells_.empty() || held_cells_.back() != cell) held_cells_.push_back(cell);
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
