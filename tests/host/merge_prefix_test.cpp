#include "host/merge_prefix.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "host/multiway_merge.hpp"
#include "tests/core/key_types.hpp"
#include "tests/host/merge_test_runs.hpp"
#include "tests/host/record_test_layouts.hpp"

namespace rmgsort {
namespace {

using testing::TestRuns;

// Merges RUNS as a merge of inputs larger than memory does: each input seen through a window of at
// most WINDOW records (loaded as the window empties), every round merging mergeable_prefix() of the
// windows. Returns the positions in merged order; checks that every round takes a whole window.
std::vector<std::uint64_t> merge_through_windows(const TestRuns& runs, SortOrder order, std::uint64_t window,
                                                 std::mt19937_64& random) {
  const std::vector<MergeRun> whole = runs.views();
  const std::size_t k = whole.size();
  std::vector<std::uint64_t> merged_to(k, 0), loaded_to(k, 0);
  std::vector<std::uint64_t> positions;
  for (;;) {
    // Load: a window that emptied gets 1 .. WINDOW records (a short read sometimes), others keep theirs.
    std::vector<MergeRun> windows(k);
    std::vector<std::uint8_t> ended(k);
    for (std::size_t i = 0; i < k; ++i) {
      if (loaded_to[i] == merged_to[i]) loaded_to[i] = std::min(whole[i].count, merged_to[i] + 1 + random() % window);
      windows[i] = whole[i];
      windows[i].records = whole[i].record(merged_to[i]);
      windows[i].count = loaded_to[i] - merged_to[i];
      windows[i].first_position += merged_to[i];
      ended[i] = loaded_to[i] == whole[i].count ? 1 : 0;
    }
    std::uint64_t left = 0;
    for (std::size_t i = 0; i < k; ++i) left += windows[i].count;
    if (left == 0) break;
    const std::vector<std::uint64_t> take = mergeable_prefix(runs.layout, order, windows, ended);
    bool a_window_whole = false;
    std::uint64_t taken = 0;
    for (std::size_t i = 0; i < k; ++i) {
      EXPECT_LE(take[i], windows[i].count);
      if (ended[i] == 0 && take[i] == windows[i].count) a_window_whole = true;
      taken += take[i];
    }
    const bool all_ended = std::all_of(ended.begin(), ended.end(), [](std::uint8_t e) { return e != 0; });
    EXPECT_TRUE(a_window_whole || all_ended) << "a round takes a whole window of an input that goes on";
    std::vector<std::uint64_t> round(taken);
    std::vector<std::uint64_t> zero(k, 0);
    merge_part(runs.layout, order, windows, zero, take, MergeTarget{nullptr, runs.layout.record_size, round.data()}, 0);
    positions.insert(positions.end(), round.begin(), round.end());
    for (std::size_t i = 0; i < k; ++i) merged_to[i] += take[i];
  }
  return positions;
}

template <class T>
class MergePrefixKeysTest : public ::testing::Test {};
TYPED_TEST_SUITE(MergePrefixKeysTest, testing::AllKeyTypes);

TYPED_TEST(MergePrefixKeysTest, RoundsOfMergeablePrefixesMergeTheWholeInputs) {
  const RecordLayout layout = RecordLayout::bare_key(KeyTypeOf<TypeParam>::value);
  std::mt19937_64 random(5);
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    const TestRuns runs = testing::make_runs(layout, order, {0, 1, 7, 500, 120, 7, 900}, 17);
    for (std::uint64_t window : {1, 3, 64}) {
      EXPECT_EQ(merge_through_windows(runs, order, window, random), testing::reference_merge_positions(runs, order))
          << "window " << window;
    }
  }
}

TEST(MergePrefixRecordsTest, RoundsOfMergeablePrefixesMergeEveryLayout) {
  std::mt19937_64 random(6);
  for (const RecordLayout& layout : testing::record_test_layouts()) {
    SCOPED_TRACE(testing::layout_name(layout));
    for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
      const TestRuns runs = testing::make_runs(layout, order, {60, 0, 7, 1, 90}, 9);
      EXPECT_EQ(merge_through_windows(runs, order, 5, random), testing::reference_merge_positions(runs, order));
    }
  }
}

// Every key equal: only the first window that goes on may be taken, with what ended before it;
// the later ones wait (their equal keys come after all of the earlier inputs').
TEST(MergePrefixRecordsTest, EqualKeysWaitForTheEarlierInputs) {
  const RecordLayout layout = RecordLayout::bare_key(KeyType::i32);
  const std::vector<std::int32_t> keys(10, -4);
  const auto* bytes = reinterpret_cast<const std::byte*>(keys.data());
  const std::vector<MergeRun> windows{{bytes, 3, 4, false, 0}, {bytes, 2, 4, false, 0}, {bytes, 4, 4, false, 0},
                                      {bytes, 1, 4, false, 0}};
  const std::vector<std::uint8_t> ended{1, 0, 0, 1};
  EXPECT_EQ(mergeable_prefix(layout, SortOrder::ascending, windows, ended), (std::vector<std::uint64_t>{3, 2, 0, 0}));
  const std::vector<std::uint8_t> all_ended{1, 1, 1, 1};
  EXPECT_EQ(mergeable_prefix(layout, SortOrder::descending, windows, all_ended),
            (std::vector<std::uint64_t>{3, 2, 4, 1}));
}

TEST(MergePrefixRecordsTest, NoWindows) {
  EXPECT_TRUE(mergeable_prefix(RecordLayout::bare_key(KeyType::u64), SortOrder::ascending, {}, {}).empty());
}

template <class T>
std::vector<T> from_bits(std::initializer_list<std::uint64_t> bits) {
  std::vector<T> keys;
  for (std::uint64_t b : bits) {
    T key;
    const auto narrow = RadixBits<T>(b);
    std::memcpy(&key, &narrow, sizeof(T));
    keys.push_back(key);
  }
  return keys;
}

template <class T>
std::optional<std::uint64_t> descent(const std::vector<T>& keys, SortOrder order, const T* previous = nullptr) {
  return first_descent(RecordLayout::bare_key(KeyTypeOf<T>::value), order,
                       reinterpret_cast<const std::byte*>(keys.data()), keys.size(), sizeof(T),
                       reinterpret_cast<const std::byte*>(previous));
}

TYPED_TEST(MergePrefixKeysTest, FirstDescentFindsTheFirstRecordOutOfOrder) {
  using T = TypeParam;
  const RecordLayout layout = RecordLayout::bare_key(KeyTypeOf<T>::value);
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    const TestRuns runs = testing::make_runs(layout, order, {200000}, 2);
    std::vector<T> keys(runs.total());
    std::memcpy(keys.data(), runs.records.data(), runs.records.size());
    EXPECT_FALSE(descent(keys, order).has_value());
    EXPECT_FALSE(descent(std::vector<T>{}, order).has_value());
    EXPECT_FALSE(descent(std::vector<T>(1, keys[5]), order).has_value());
    // Two breaks, far apart: the earlier one is found, whichever task sees it.
    const auto differs = [&](std::size_t a, std::size_t b) { return std::memcmp(&keys[a], &keys[b], sizeof(T)) != 0; };
    std::size_t first = 150000, second = 190000;
    while (!differs(first + 1, keys.size() - 1)) ++first;
    while (!differs(second - 1, 0)) ++second;
    std::vector<T> broken = keys;
    broken[second] = keys[0];
    broken[first] = keys.back();
    EXPECT_EQ(descent(broken, order), first + 1);
    // The kept key of the previous window: the last key, before the first, is a descent at 0.
    EXPECT_EQ(descent(keys, order, &keys.back()), std::optional<std::uint64_t>(0));
    EXPECT_FALSE(descent(keys, order, &keys[0]).has_value());
  }
}

// Bare floats are ordered by their radix bits: -0 before +0, NaNs last and ordered by their bits;
// equal keys are no descent.
TEST(MergePrefixRecordsTest, FloatEdgesInTheMergeOrder) {
  const auto keys = from_bits<float>({0xff800000, 0x80000000, 0x00000000, 0x00000000, 0x7f800000, 0x7fc00000,
                                      0xffc00000});
  EXPECT_FALSE(descent(keys, SortOrder::ascending).has_value());
  const auto zeros = from_bits<double>({0, 0x8000000000000000});
  EXPECT_EQ(descent(zeros, SortOrder::ascending), std::optional<std::uint64_t>(1));
  EXPECT_FALSE(descent(zeros, SortOrder::descending).has_value());
  const auto nans = from_bits<float>({0xffc00000, 0x7fc00000});
  EXPECT_EQ(descent(nans, SortOrder::ascending), std::optional<std::uint64_t>(1));
  // In records, every NaN ranks the same: any order of NaNs is sorted.
  const RecordLayout record = RecordLayout::of({KeyType::f32, 4}, 5, 1);
  std::vector<std::byte> records(10);
  std::memcpy(records.data() + 1, nans.data(), 4);
  std::memcpy(records.data() + 6, nans.data() + 1, 4);
  EXPECT_FALSE(first_descent(record, SortOrder::ascending, records.data(), 2, 5, nullptr).has_value());
  // Integer extremes.
  const auto extremes = from_bits<std::int64_t>({0x8000000000000000, ~std::uint64_t{0}, 0, 0x7fffffffffffffff});
  EXPECT_FALSE(descent(extremes, SortOrder::ascending).has_value());
  EXPECT_EQ(descent(extremes, SortOrder::descending), std::optional<std::uint64_t>(1));
}

// Records a merge reads through a pass's file carry 8 more bytes; a descent counts whole strides.
TEST(MergePrefixRecordsTest, FirstDescentWithAWiderStride) {
  const RecordLayout layout = RecordLayout::of({KeyType::bytes, 3}, 7, 4);
  const std::vector<std::uint8_t> keys{1, 1, 1, 1, 1, 2, 1, 1, 1};  // 010101 010102 010101
  std::vector<std::byte> records(3 * 15);
  for (std::size_t r = 0; r < 3; ++r) std::memcpy(records.data() + r * 15 + 4, keys.data() + 3 * r, 3);
  EXPECT_EQ(first_descent(layout, SortOrder::ascending, records.data(), 3, 15, nullptr),
            std::optional<std::uint64_t>(2));
  EXPECT_EQ(first_descent(layout, SortOrder::descending, records.data(), 3, 15, nullptr),
            std::optional<std::uint64_t>(1));
}

}  // namespace
}  // namespace rmgsort
