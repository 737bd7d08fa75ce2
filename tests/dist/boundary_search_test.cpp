// The distributed splitters without MPI: P ranks simulated in one process, each holding its slice
// [r n / P, (r + 1) n / P) of the input; a level's counts summed over the slices as MPI_Allreduce
// sums them, the boundary keys' earlier counts as MPI_Exscan adds them. The reference is
// std::stable_sort with compare_ranks: rank j must receive exactly the records of sorted positions
// [j n / P, (j + 1) n / P), in input order (so that a stable local sort gives the global order).
#include "dist/boundary_search.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <tuple>
#include <vector>

#include "dist/boundary_candidates.hpp"
#include "dist/destinations.hpp"
#include "tests/host/record_test_layouts.hpp"

namespace rmgsort::dist {
namespace {

using testing::layout_name;
using testing::random_records;
using testing::record_test_layouts;
using testing::stable_argsort;

// Collected keys: never (the search counts every level over the slices), from the first level on
// (no bound), or once they fit a bound of 40 bytes a rank (5 u64 keys: often not, and so later).
constexpr std::uint64_t kNeverCollect = 0;
constexpr std::uint64_t kAlwaysCollect = ~std::uint64_t{0};
constexpr std::uint64_t kSmallBound = 40;

// Each record's destination rank, found as the distributed sort finds it over RANKS slices
// (dist/global_splitters.cpp), its keys collected once every rank's fit CANDIDATE_BYTES; PASSES:
// the passes over the slices it took.
std::vector<int> simulate(const std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order,
                          int ranks, std::uint64_t candidate_bytes = kNeverCollect, int* passes = nullptr) {
  const std::size_t size = layout.record_size;
  const std::uint64_t n = records.size() / size;
  const auto slice = [&](int r) { return records.data() + part_start(n, ranks, r) * size; };
  const auto slice_count = [&](int r) { return part_start(n, ranks, r + 1) - part_start(n, ranks, r); };
  BoundarySearch search(n, ranks, layout, order);
  std::vector<BoundaryCandidates> candidates;  // a rank's, once collected
  int slice_passes = 0;
  while (!search.done()) {
    std::vector<std::uint64_t> total(search.counters());
    // Each rank's counts, kept while the keys may yet be collected.
    const bool may_collect = candidates.empty() && candidate_bytes != kNeverCollect;
    std::vector<std::vector<std::uint64_t>> mine(may_collect ? std::size_t(ranks) : 1);
    for (int r = 0; r < ranks; ++r) {
      std::vector<std::uint64_t>& counts = mine[may_collect ? std::size_t(r) : 0];
      counts.assign(search.counters(), 0);
      if (candidates.empty()) {
        search.count(slice(r), slice_count(r), counts);
      } else {
        candidates[std::size_t(r)].count(search, counts);
      }
      for (std::size_t c = 0; c < total.size(); ++c) total[c] += counts[c];
    }
    if (candidates.empty()) ++slice_passes;
    search.advance(total);
    if (!may_collect || search.done()) continue;
    std::uint64_t most = 0;
    for (int r = 0; r < ranks; ++r) most = std::max(most, search.held(mine[std::size_t(r)]));
    if (!BoundaryCandidates::fit(layout, most, candidate_bytes)) continue;
    for (int r = 0; r < ranks; ++r) {
      candidates.emplace_back(search, slice(r), slice_count(r), layout);
      EXPECT_EQ(candidates.back().size(), search.held(mine[std::size_t(r)])) << "rank " << r;
    }
    ++slice_passes;
  }
  const std::vector<RankKey> keys = boundary_keys(search.boundaries());
  std::vector<std::uint64_t> earlier(keys.size());  // an exclusive scan over the ranks
  std::vector<int> destinations;
  for (int r = 0; r < ranks; ++r) {
    Destinations classify(search.boundaries(), earlier, key_words(layout));
    const std::vector<std::uint64_t> mine = candidates.empty()
                                                ? count_boundary_keys(slice(r), slice_count(r), layout, order, keys)
                                                : candidates[std::size_t(r)].count_keys(keys);
    EXPECT_EQ(mine, count_boundary_keys(slice(r), slice_count(r), layout, order, keys));
    for (std::size_t k = 0; k < keys.size(); ++k) earlier[k] += mine[k];
    visit_rank(layout, order, [&](const auto& rank) {
      for (std::uint64_t i = 0; i < slice_count(r); ++i)
        destinations.push_back(classify.next(rank_key(rank, slice(r) + i * size, key_shape(layout))));
    });
  }
  if (passes != nullptr) *passes = slice_passes + (candidates.empty() && !keys.empty() ? 1 : 0);
  return destinations;
}

// Rank j's records, in input order, are the sorted positions [t_j, t_{j+1}) of the reference, with
// the keys collected never, at once, or once they fit a small bound.
void expect_exact_shares(const std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order,
                         int ranks) {
  const std::uint64_t n = records.size() / layout.record_size;
  const std::vector<std::uint64_t> sorted = stable_argsort(records, layout, order);
  for (std::uint64_t bound : {kNeverCollect, kAlwaysCollect, kSmallBound}) {
    const std::vector<int> destinations = simulate(records, layout, order, ranks, bound);
    ASSERT_EQ(destinations.size(), n);
    for (int j = 0; j < ranks; ++j) {
      std::vector<std::uint64_t> expected(sorted.begin() + std::ptrdiff_t(part_start(n, ranks, j)),
                                          sorted.begin() + std::ptrdiff_t(part_start(n, ranks, j + 1)));
      std::sort(expected.begin(), expected.end());
      std::vector<std::uint64_t> received;
      for (std::uint64_t i = 0; i < n; ++i)
        if (destinations[i] == j) received.push_back(i);
      EXPECT_EQ(received, expected) << "rank " << j << " of " << ranks << ", keys collected within " << bound
                                    << " bytes";
    }
  }
}

TEST(PartStartTest, IsExactAtTheExtremes) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(part_start(kMax, 3, 0), 0u);
  EXPECT_EQ(part_start(kMax, 3, 3), kMax);
  EXPECT_EQ(part_start(kMax, 3, 1), kMax / 3);
  EXPECT_EQ(part_start(3, 4, 1), 0u);
  EXPECT_EQ(part_start(3, 4, 2), 1u);
  EXPECT_EQ(part_start(3, 4, 3), 2u);
  EXPECT_EQ(part_start(0, 4, 2), 0u);
}

TEST(RankKeyTest, OrdersAsCompareRanks) {
  for (const RecordLayout& layout : record_test_layouts()) {
    SCOPED_TRACE(layout_name(layout));
    const std::vector<std::byte> records = random_records(layout, 64, 7);
    for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
      visit_rank(layout, order, [&](const auto& rank) {
        for (std::size_t a = 0; a < 64; ++a)
          for (std::size_t b = 0; b < 64; ++b) {
            const std::byte* x = records.data() + a * layout.record_size;
            const std::byte* y = records.data() + b * layout.record_size;
            const RankKey kx = rank_key(rank, x, key_shape(layout)), ky = rank_key(rank, y, key_shape(layout));
            const int by_key = kx < ky ? -1 : (ky < kx ? 1 : 0);
            ASSERT_EQ(by_key, compare_ranks(rank, x, y));
          }
      });
    }
  }
}

TEST(RankKeyTest, DigitsAndPrefixesCutAtTheirBit) {
  const RankKey key{0x0123456789abcdefULL, 0xfedcba9876543210ULL, 0, 0};
  EXPECT_EQ(digit_at(key, 0, 16), 0x0123u);
  EXPECT_EQ(digit_at(key, 56, 8), 0xefu);
  EXPECT_EQ(digit_at(key, 64, 16), 0xfedcu);
  EXPECT_EQ(prefix_of(key, 72), (RankKey{0x0123456789abcdefULL, 0xfe00000000000000ULL, 0, 0}));
  EXPECT_EQ(prefix_of(key, 0), RankKey{});
  EXPECT_EQ(with_digit(RankKey{}, 64, 8, 0xfe), (RankKey{0, 0xfe00000000000000ULL, 0, 0}));
}

// Every layout (number keys, bytes:N, unaligned offsets), both orders, records fewer than, equal to
// and many more than the ranks: keys from edge values (NaNs, +-0, extremes), a pool of 5 (many equal
// keys across slices) and random ones.
TEST(BoundarySearchTest, EveryRankGetsItsExactShareForEveryLayout) {
  for (const RecordLayout& layout : record_test_layouts()) {
    SCOPED_TRACE(layout_name(layout));
    for (std::size_t n : {0, 1, 3, 7, 300}) {
      const std::vector<std::byte> records = random_records(layout, n, 11 + n);
      for (SortOrder order : {SortOrder::ascending, SortOrder::descending})
        for (int ranks : {1, 2, 3, 4, 7}) expect_exact_shares(records, layout, order, ranks);
    }
  }
}

template <class T>
class BoundarySearchKeysTest : public ::testing::Test {};
using NumberTypes = ::testing::Types<std::uint32_t, std::uint64_t, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(BoundarySearchKeysTest, NumberTypes);

template <class T>
RecordLayout bare_layout() {
  return RecordLayout::bare_key(KeyTypeOf<T>::value);
}

template <class T>
std::vector<std::byte> keys_of(const std::vector<T>& keys) {
  std::vector<std::byte> bytes(keys.size() * sizeof(T));
  std::memcpy(bytes.data(), keys.data(), bytes.size());
  return bytes;
}

// One value everywhere: it is split by input position alone, n / P records each.
TYPED_TEST(BoundarySearchKeysTest, AllKeysEqualAreSplitByPosition) {
  const std::vector<std::byte> records = keys_of(std::vector<TypeParam>(1001, TypeParam(5)));
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending})
    for (int ranks : {2, 3, 4, 8}) expect_exact_shares(records, bare_layout<TypeParam>(), order, ranks);
}

// Zipf-like: half the keys one value, a quarter the next, ...; the heavy values span several ranks.
TYPED_TEST(BoundarySearchKeysTest, SkewedKeysStillGiveExactShares) {
  std::mt19937_64 random(3);
  std::vector<TypeParam> keys(2000);
  for (TypeParam& key : keys) {
    int value = 0;
    while (value < 20 && random() % 2 == 0) ++value;
    key = TypeParam(value);
  }
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending})
    for (int ranks : {2, 3, 4, 16}) expect_exact_shares(keys_of(keys), bare_layout<TypeParam>(), order, ranks);
}

// The extremes of the type (and for floats +-inf, +-0 and NaNs, bare keys ordering NaNs by bits).
TYPED_TEST(BoundarySearchKeysTest, ExtremeKeys) {
  using L = std::numeric_limits<TypeParam>;
  std::vector<TypeParam> pool{L::lowest(), L::max(), TypeParam(0), L::min()};
  if constexpr (L::has_quiet_NaN)
    pool.insert(pool.end(), {-TypeParam(0), L::infinity(), -L::infinity(), L::quiet_NaN(), -L::quiet_NaN()});
  std::mt19937_64 random(5);
  std::vector<TypeParam> keys(503);
  for (TypeParam& key : keys) key = pool[random() % pool.size()];
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending})
    for (int ranks : {2, 4, 5}) expect_exact_shares(keys_of(keys), bare_layout<TypeParam>(), order, ranks);
}

TYPED_TEST(BoundarySearchKeysTest, SortedAndReversedInputs) {
  std::vector<TypeParam> keys(777);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = TypeParam(i / 3);
  for (int ranks : {2, 4, 6}) {
    expect_exact_shares(keys_of(keys), bare_layout<TypeParam>(), SortOrder::ascending, ranks);
    expect_exact_shares(keys_of(keys), bare_layout<TypeParam>(), SortOrder::descending, ranks);
  }
}

// Regression: a bytes:1 key's first digit (16 bits) holds 8 bits of padding, all ones when
// descending; the boundary's key must not keep them, or no record equals it.
TEST(BoundarySearchTest, BytesOneDescendingPaddingIsCut) {
  const RecordLayout layout = RecordLayout::of({KeyType::bytes, 1}, 1, 0);
  const std::vector<std::byte> records{std::byte{1}, std::byte{0}, std::byte{1}};
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending})
    for (int ranks : {2, 3}) expect_exact_shares(records, layout, order, ranks);
}

TEST(BoundarySearchTest, OneRankOrNoRecordNeedsNoLevel) {
  EXPECT_TRUE(BoundarySearch(1000, 1, RecordLayout::bare_key(KeyType::u64), SortOrder::ascending).done());
  EXPECT_TRUE(BoundarySearch(0, 4, RecordLayout::bare_key(KeyType::u64), SortOrder::ascending).done());
  BoundarySearch search(10, 4, RecordLayout::bare_key(KeyType::u32), SortOrder::ascending);
  EXPECT_FALSE(search.done());
  EXPECT_EQ(search.counters(), std::size_t{1} << BoundarySearch::kFirstDigitBits);  // one bucket: every key
}

// With 3 ranks (2 boundaries: wide digits) a u32 takes two levels (16 + 16 bits), a u64 four, a
// bytes:10 key five, a bytes:1 key one; with 5 ranks (4 boundaries: 8-bit digits after the first) a
// u32 takes three (16 + 8 + 8), a u64 seven, a bytes:10 key nine.
TEST(BoundarySearchTest, LevelsFollowTheKeyBitsAndTheBoundaries) {
  const RecordLayout u32 = RecordLayout::bare_key(KeyType::u32), u64 = RecordLayout::bare_key(KeyType::u64);
  const RecordLayout bytes10 = RecordLayout::of({KeyType::bytes, 10}, 100, 90);
  const RecordLayout bytes1 = RecordLayout::of({KeyType::bytes, 1}, 13, 12);
  for (const auto& [layout, ranks, levels] : {std::tuple{u32, 3, 2}, std::tuple{u64, 3, 4}, std::tuple{bytes10, 3, 5},
                                              std::tuple{bytes1, 3, 1}, std::tuple{u32, 5, 3}, std::tuple{u64, 5, 7},
                                              std::tuple{bytes10, 5, 9}}) {
    // Keys all different, so that 4 boundaries lie in 4 buckets at every level.
    std::vector<std::byte> records = random_records(layout, 5000, 1);
    for (std::uint64_t i = 0; i < 5000; ++i) {
      const std::uint64_t spread = i * 0x9e3779b97f4a7c15ULL;
      std::memcpy(records.data() + i * layout.record_size + layout.key_offset, &spread, std::min<std::size_t>(8, layout.key_size));
    }
    BoundarySearch search(5000, ranks, layout, SortOrder::ascending);
    int seen = 0;
    while (!search.done()) {
      std::vector<std::uint64_t> counts(search.counters());
      search.count(records.data(), 5000, counts);
      search.advance(counts);
      ++seen;
    }
    EXPECT_EQ(seen, levels) << layout_name(layout) << ", " << ranks << " ranks";
  }
}

// Uniform u64 keys over 2 ranks: the keys of the first level's bucket are collected (one pass), the
// three later levels counted over them; no pass counts the boundary key's records.
TEST(BoundaryCandidatesTest, UniformKeysTakeTwoPassesOverTheSlices) {
  const RecordLayout layout = RecordLayout::bare_key(KeyType::u64);
  std::vector<std::uint64_t> keys(20000);
  std::mt19937_64 random(17);
  for (std::uint64_t& key : keys) key = random();
  std::vector<std::byte> records(keys.size() * 8);
  std::memcpy(records.data(), keys.data(), records.size());
  int passes = 0, never = 0;
  EXPECT_EQ(simulate(records, layout, SortOrder::ascending, 2, kAlwaysCollect, &passes),
            simulate(records, layout, SortOrder::ascending, 2, kNeverCollect, &never));
  EXPECT_EQ(passes, 2);
  EXPECT_EQ(never, 5);  // 4 levels (16-bit digits) and the boundary key's count
}

// One heavy key fills the boundary's bucket: over the bound, the search stays on the slices (and
// is exact); within it, the heavy key's records are collected and split by position.
TEST(BoundaryCandidatesTest, HeavyKeyInABoundaryBucket) {
  const RecordLayout layout = RecordLayout::bare_key(KeyType::u64);
  std::vector<std::uint64_t> keys(5000);
  std::mt19937_64 random(19);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = i % 3 == 0 ? random() : 0x123456789abcdefULL;
  std::vector<std::byte> records(keys.size() * 8);
  std::memcpy(records.data(), keys.data(), records.size());
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending})
    for (int ranks : {2, 3, 5}) {
      expect_exact_shares(records, layout, order, ranks);
      int passes = 0;
      (void)simulate(records, layout, order, ranks, kSmallBound, &passes);
      EXPECT_GT(passes, 2) << "the heavy key's bucket is over the bound";
      (void)simulate(records, layout, order, ranks, kAlwaysCollect, &passes);
      EXPECT_EQ(passes, 2);
    }
}

// Collected keys of bytes:N (several words a key), with many equal keys and both orders.
TEST(BoundaryCandidatesTest, BytesKeysOfSeveralWords) {
  for (std::size_t bytes : {3, 10, 16, 32}) {
    const RecordLayout layout = RecordLayout::of({KeyType::bytes, bytes}, bytes + 3, 1);
    std::vector<std::byte> records = random_records(layout, 2000, bytes);
    for (std::size_t i = 0; i < 2000; i += 3)  // every third record a copy of the first
      std::memcpy(records.data() + i * layout.record_size, records.data(), layout.record_size);
    for (SortOrder order : {SortOrder::ascending, SortOrder::descending})
      for (int ranks : {2, 4, 16}) expect_exact_shares(records, layout, order, ranks);
  }
}

}  // namespace
}  // namespace rmgsort::dist
