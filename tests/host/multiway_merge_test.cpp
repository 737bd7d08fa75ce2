#include "host/multiway_merge.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "tests/core/key_types.hpp"
#include "tests/host/merge_test_runs.hpp"
#include "tests/host/record_test_layouts.hpp"

namespace rmgsort {
namespace {

using testing::TestRuns;

// Merges RUNS in PARTS parts and checks the records and the positions against the reference.
void expect_merge_is_reference(const TestRuns& runs, SortOrder order, std::size_t parts) {
  const RecordLayout& layout = runs.layout;
  const std::uint64_t total = runs.total();
  std::vector<std::byte> records(total * layout.record_size + 1);  // (never empty: data() is not null)
  std::vector<std::uint64_t> positions(total + 1, ~std::uint64_t{0});
  const std::vector<MergeRun> views = runs.views();
  merge_runs(layout, order, views, MergeTarget{records.data(), layout.record_size, positions.data()}, parts);
  const std::vector<std::uint64_t> expected = testing::reference_merge_positions(runs, order);
  positions.pop_back();
  records.pop_back();
  EXPECT_EQ(positions, expected) << "parts " << parts;
  EXPECT_EQ(records, testing::gather(runs, expected)) << "parts " << parts;
}

template <class T>
class MultiwayMergeKeysTest : public ::testing::Test {};
TYPED_TEST_SUITE(MultiwayMergeKeysTest, testing::AllKeyTypes);

// Bare keys: NaNs of several payloads and signs, +-0, +-inf, denormals and the extremes among random
// and repeated keys; runs of 0, 1, 7 and more records, in every number of parts.
TYPED_TEST(MultiwayMergeKeysTest, MergesEdgeKeysLikeAStableSortOfTheConcatenation) {
  const RecordLayout layout = RecordLayout::bare_key(KeyTypeOf<TypeParam>::value);
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    const TestRuns runs = testing::make_runs(layout, order, {7, 0, 1, 300, 2000, 7, 0, 64}, 11);
    for (std::size_t parts : {1, 2, 3, 8, 64, 5000}) expect_merge_is_reference(runs, order, parts);
  }
}

TYPED_TEST(MultiwayMergeKeysTest, OneRunIsCopied) {
  const RecordLayout layout = RecordLayout::bare_key(KeyTypeOf<TypeParam>::value);
  for (std::uint64_t count : {0, 1, 7, 1000})
    expect_merge_is_reference(testing::make_runs(layout, SortOrder::ascending, {count}, 3), SortOrder::ascending, 4);
}

TYPED_TEST(MultiwayMergeKeysTest, NoRunsWriteNothing) {
  const RecordLayout layout = RecordLayout::bare_key(KeyTypeOf<TypeParam>::value);
  std::byte untouched{0x5a};
  merge_runs(layout, SortOrder::ascending, {}, MergeTarget{&untouched, layout.record_size, nullptr}, 4);
  EXPECT_EQ(untouched, std::byte{0x5a});
  const TestRuns empty = testing::make_runs(layout, SortOrder::ascending, {0, 0, 0}, 3);
  expect_merge_is_reference(empty, SortOrder::ascending, 3);
}

// Every layout of the record tests: bytes:1/3/8/10/16/32 keys (whose first rank words tie often,
// so the merge tree compares the rest), unaligned offsets, record sizes from the key to 100.
TEST(MultiwayMergeRecordsTest, MergesEveryRecordLayoutInBothOrders) {
  for (const RecordLayout& layout : testing::record_test_layouts()) {
    SCOPED_TRACE(testing::layout_name(layout));
    for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
      const TestRuns runs = testing::make_runs(layout, order, {0, 1, 7, 150, 33}, 5);
      for (std::size_t parts : {1, 4}) expect_merge_is_reference(runs, order, parts);
    }
  }
}

// Stability: every key equal, in every run; the merge is the runs one after the other, and the
// parts cut inside the runs of equal keys, each part about its share.
TEST(MultiwayMergeRecordsTest, AllKeysEqualKeepInputOrderAndSplitEvenly) {
  const RecordLayout layout = RecordLayout::of({KeyType::u64, 8}, 16, 4);
  TestRuns runs = testing::make_runs(layout, SortOrder::ascending, {5000, 3000, 7, 8000}, 1);
  for (std::uint64_t r = 0; r < runs.total(); ++r) std::memset(runs.records.data() + r * 16 + 4, 0x42, 8);
  std::vector<std::uint64_t> identity(runs.total());
  std::iota(identity.begin(), identity.end(), std::uint64_t{0});
  EXPECT_EQ(testing::reference_merge_positions(runs, SortOrder::ascending), identity);
  expect_merge_is_reference(runs, SortOrder::ascending, 8);
  expect_merge_is_reference(runs, SortOrder::descending, 8);

  const std::vector<MergeRun> views = runs.views();
  const std::size_t parts = 8;
  const std::vector<std::uint64_t> cuts = split_runs(layout, SortOrder::ascending, views, parts);
  const std::uint64_t share = runs.total() / parts;
  for (std::size_t t = 0; t < parts; ++t) {
    std::uint64_t size = 0;
    const std::size_t k = views.size();
    for (std::size_t i = 0; i < k; ++i) size += cuts[(t + 1) * k + i] - cuts[t * k + i];
    EXPECT_LE(size, 2 * share) << "part " << t;
    EXPECT_GT(size, 0u) << "part " << t;
  }
}

TEST(MultiwayMergeRecordsTest, CutsStartAtZeroEndAtTheCountsAndGrow) {
  const RecordLayout layout = RecordLayout::bare_key(KeyType::f64);
  const TestRuns runs = testing::make_runs(layout, SortOrder::descending, {100, 0, 5000, 1, 2500}, 8);
  const std::vector<MergeRun> views = runs.views();
  const std::size_t k = views.size();
  for (std::size_t parts : {1, 2, 7, 100}) {
    const std::vector<std::uint64_t> cuts = split_runs(layout, SortOrder::descending, views, parts);
    ASSERT_EQ(cuts.size(), (parts + 1) * k);
    for (std::size_t i = 0; i < k; ++i) {
      EXPECT_EQ(cuts[i], 0u);
      EXPECT_EQ(cuts[parts * k + i], views[i].count);
      for (std::size_t t = 0; t < parts; ++t) EXPECT_LE(cuts[t * k + i], cuts[(t + 1) * k + i]);
    }
  }
}

// A run merged before carries its positions after each record; a target may take them the same way
// (the records of a pass through a temporary file), or only the positions (--index-output alone).
TEST(MultiwayMergeRecordsTest, CarriedAndAppendedPositions) {
  const RecordLayout layout = RecordLayout::of({KeyType::bytes, 10}, 13, 3);
  const TestRuns runs = testing::make_runs(layout, SortOrder::ascending, {40, 7, 1, 200}, 4);
  const std::size_t size = layout.record_size, wide = size + 8;
  // Run 0 and 2 carry positions 1000 + 3 * (place in the concatenation); 1 and 3 count theirs.
  const auto carried_position = [](std::uint64_t r) { return 1000 + 3 * r; };
  std::vector<std::byte> carried(runs.total() * wide);
  for (std::uint64_t r = 0; r < runs.total(); ++r) {
    std::memcpy(carried.data() + r * wide, runs.records.data() + r * size, size);
    const std::uint64_t position = carried_position(r);
    std::memcpy(carried.data() + r * wide + size, &position, 8);
  }
  std::vector<MergeRun> views = runs.views();
  for (std::size_t i : {0, 2}) views[i] = {carried.data() + runs.firsts[i] * wide, runs.counts[i], wide, true, 0};

  std::vector<std::uint64_t> expected = testing::reference_merge_positions(runs, SortOrder::ascending);
  const std::vector<std::byte> expected_records = testing::gather(runs, expected);
  for (std::uint64_t& r : expected) {
    const bool in_carried = (r < runs.firsts[1]) || (r >= runs.firsts[2] && r < runs.firsts[3]);
    if (in_carried) r = carried_position(r);
  }
  for (std::size_t parts : {1, 3}) {
    std::vector<std::byte> out(runs.total() * wide);
    merge_runs(layout, SortOrder::ascending, views, MergeTarget{out.data(), wide, nullptr}, parts);
    for (std::uint64_t j = 0; j < runs.total(); ++j) {
      ASSERT_EQ(std::memcmp(out.data() + j * wide, expected_records.data() + j * size, size), 0) << j;
      std::uint64_t position = 0;
      std::memcpy(&position, out.data() + j * wide + size, 8);
      ASSERT_EQ(position, expected[j]) << j;
    }
    std::vector<std::uint64_t> positions(runs.total());
    merge_runs(layout, SortOrder::ascending, views, MergeTarget{nullptr, size, positions.data()}, parts);
    EXPECT_EQ(positions, expected);
  }
}

TEST(MultiwayMergeRecordsTest, ManyRuns) {
  const RecordLayout layout = RecordLayout::bare_key(KeyType::u32);
  std::vector<std::uint64_t> counts;
  for (std::uint64_t i = 0; i < 300; ++i) counts.push_back(i % 17);
  const TestRuns runs = testing::make_runs(layout, SortOrder::ascending, counts, 21);
  for (std::size_t parts : {1, 5, 16}) expect_merge_is_reference(runs, SortOrder::ascending, parts);
}

// The merge tree (host/merge_tree.hpp) refills each node's buffer many times over: runs far longer
// than a buffer, for every shape of tree (2, 3, 5, 17 and 600 runs: a leaf paired with a node, odd
// counts, buffers of the fewest entries), one child used up long before the other, with positions
// and without, in one part (one tree).
TEST(MultiwayMergeRecordsTest, LongRunsRefillTheTreesBuffersOfEveryShape) {
  const RecordLayout layout = RecordLayout::bare_key(KeyType::i64);
  for (std::size_t k : {2, 3, 5, 17, 600}) {
    SCOPED_TRACE("runs " + std::to_string(k));
    std::vector<std::uint64_t> counts;
    for (std::size_t i = 0; i < k; ++i) counts.push_back(k > 100 ? 40 + i % 7 : 9000 / (i + 1) + i % 3);
    for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
      const TestRuns runs = testing::make_runs(layout, order, counts, 31 + k);
      expect_merge_is_reference(runs, order, 1);
      std::vector<std::byte> records(runs.total() * layout.record_size);
      merge_runs(layout, order, runs.views(), MergeTarget{records.data(), layout.record_size, nullptr}, 1);
      EXPECT_EQ(records, testing::gather(runs, testing::reference_merge_positions(runs, order))) << "no positions";
    }
  }
}

// Equal first rank words with different keys (bytes:16 keys that differ in their last bytes only):
// the tree compares the rest of the key, and ties of whole keys keep input order.
TEST(MultiwayMergeRecordsTest, EqualFirstWordsCompareTheRestOfTheKey) {
  const RecordLayout layout = RecordLayout::of({KeyType::bytes, 16}, 20, 2);
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    TestRuns runs = testing::make_runs(layout, order, {3000, 1, 2500, 700}, 9);
    for (std::uint64_t r = 0; r < runs.total(); ++r) std::memset(runs.records.data() + r * 20 + 2, 0x7e, 8);
    for (std::size_t i = 0; i < runs.counts.size(); ++i) {  // each run sorted again, by the rest of its keys
      std::byte* first = runs.records.data() + runs.firsts[i] * 20;
      const std::vector<std::byte> run(first, first + runs.counts[i] * 20);
      const std::vector<std::uint64_t> order_of = testing::stable_argsort(run, layout, order);
      for (std::size_t j = 0; j < order_of.size(); ++j) std::memcpy(first + j * 20, run.data() + order_of[j] * 20, 20);
    }
    expect_merge_is_reference(runs, order, 1);
    expect_merge_is_reference(runs, order, 3);
  }
}

TEST(MultiwayMergePartsTest, OnePartPerThreadUnlessThePartsWouldBeSmall) {
  EXPECT_EQ(merge_parts_for(0, 16), 1u);
  EXPECT_EQ(merge_parts_for(100, 16), 1u);
  EXPECT_EQ(merge_parts_for(std::uint64_t{1} << 30, 16), 16u);
  EXPECT_EQ(merge_parts_for(std::uint64_t{1} << 30, 0), 1u);
}

}  // namespace
}  // namespace rmgsort
