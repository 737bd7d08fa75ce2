// --unique's filter (sort/unique_filter.hpp) over every record layout and both orders: fed a stable
// sort's output in rounds cut anywhere (runs of equal keys going on across rounds, rounds of one
// record, rounds that hold nothing but the last round's key), it keeps exactly the first record of
// each run, with its position, as the reference (std::stable_sort by compare_ranks, then the first
// of each run of compare_ranks-equal keys) does. Equal is the sort's equal: records' NaNs are one
// key; bare float NaNs are equal only bit for bit; -0.0 and +0.0 differ.
#include "sort/unique_filter.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "core/record_rank.hpp"
#include "../host/record_test_layouts.hpp"

namespace rmgsort {
namespace {

using testing::layout_name;
using testing::random_records;
using testing::record_test_layouts;
using testing::stable_argsort;

struct Sorted {
  std::vector<std::byte> records;
  std::vector<std::uint64_t> positions;
};

// RECORDS stably sorted as LAYOUT ranks them (bare keys: NaNs by bit pattern), with their positions.
Sorted sorted_of(const std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order) {
  const std::size_t size = layout.record_size;
  Sorted sorted;
  sorted.positions = stable_argsort(records, layout, order);
  sorted.records.resize(records.size());
  for (std::size_t j = 0; j < sorted.positions.size(); ++j)
    std::memcpy(sorted.records.data() + j * size, records.data() + sorted.positions[j] * size, size);
  return sorted;
}

// The reference: the first record of each run of keys equal under LAYOUT's rank.
Sorted first_of_runs(const Sorted& sorted, const RecordLayout& layout, SortOrder order) {
  const std::size_t size = layout.record_size;
  Sorted kept;
  visit_rank(layout, order, [&](const auto& rank) {
    for (std::size_t j = 0; j < sorted.positions.size(); ++j) {
      const std::byte* record = sorted.records.data() + j * size;
      if (j > 0 && compare_ranks(rank, record - size, record) == 0) continue;
      kept.records.insert(kept.records.end(), record, record + size);
      kept.positions.push_back(sorted.positions[j]);
    }
  });
  return kept;
}

// SORTED fed to one filter in rounds of ROUND_SIZES (cycled), positions alongside when asked.
Sorted filtered(Sorted sorted, const RecordLayout& layout, SortOrder order, const std::vector<std::size_t>& round_sizes,
                bool with_positions) {
  const std::size_t size = layout.record_size;
  const std::size_t n = sorted.positions.size();
  UniqueFilter filter(layout, order);
  Sorted kept;
  for (std::size_t at = 0, r = 0; at < n; ++r) {
    const std::size_t count = std::min(n - at, round_sizes[r % round_sizes.size()]);
    std::byte* records = sorted.records.data() + at * size;
    std::uint64_t* positions = with_positions ? sorted.positions.data() + at : nullptr;
    const std::uint64_t k = filter.keep_firsts(records, positions, count);
    kept.records.insert(kept.records.end(), records, records + k * size);
    if (with_positions) kept.positions.insert(kept.positions.end(), positions, positions + k);
    at += count;
  }
  EXPECT_EQ(filter.dropped(), n - kept.records.size() / size);
  return kept;
}

void expect_first_of_runs(const std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order,
                          const std::vector<std::size_t>& round_sizes) {
  SCOPED_TRACE(layout_name(layout) + (order == SortOrder::ascending ? ", ascending" : ", descending") + ", " +
               std::to_string(records.size() / layout.record_size) + " records, rounds of " +
               std::to_string(round_sizes.front()) + "...");
  const Sorted sorted = sorted_of(records, layout, order);
  const Sorted expected = first_of_runs(sorted, layout, order);
  const Sorted got = filtered(sorted, layout, order, round_sizes, true);
  EXPECT_EQ(got.records, expected.records);
  EXPECT_EQ(got.positions, expected.positions);
  EXPECT_EQ(filtered(sorted, layout, order, round_sizes, false).records, expected.records);  // no positions
}

const std::vector<std::vector<std::size_t>> kRoundSizes = {{1u << 30}, {1}, {3, 1, 7}, {64, 2}};

TEST(UniqueFilter, EveryLayoutBothOrdersAnyRounds) {
  for (const RecordLayout& layout : record_test_layouts()) {
    for (const SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
      for (const std::size_t n : {0, 1, 7, 1000}) {
        const std::vector<std::byte> records = random_records(layout, n, n + layout.record_size);
        for (const auto& rounds : kRoundSizes) expect_first_of_runs(records, layout, order, rounds);
      }
    }
  }
}

// More records than one block (64 Ki), so that blocks are compacted in parallel and moved together,
// in rounds that cut blocks and runs anywhere; records of 4, 8 and 16 bytes have copies of their own.
TEST(UniqueFilter, ManyBlocksInParallel) {
  for (const RecordLayout& layout : {RecordLayout::bare_key(KeyType::u64), RecordLayout::bare_key(KeyType::f32),
                                     RecordLayout::of({KeyType::bytes, 10}, 100, 0),
                                     RecordLayout::of({KeyType::f64, 8}, 13, 5)}) {
    const std::vector<std::byte> records = random_records(layout, 300007, 11);
    for (const auto& rounds : {std::vector<std::size_t>{1u << 30}, std::vector<std::size_t>{70001, 131072, 5}})
      expect_first_of_runs(records, layout, SortOrder::ascending, rounds);
  }
  // 16 MiB of 16-byte records: the kept ones close up from every thread (host/move_down.hpp).
  const RecordLayout pairs = RecordLayout::of({KeyType::u64, 8}, 16, 0);
  expect_first_of_runs(random_records(pairs, 1 << 20, 12), pairs, SortOrder::descending, {1u << 30});
}

TEST(UniqueFilter, AllKeysEqualKeepTheFirstRecordOnly) {
  const RecordLayout layout = RecordLayout::of({KeyType::u32, 4}, 12, 4);
  std::vector<std::byte> records = random_records(layout, 200000, 3);
  for (std::size_t i = 0; i < 200000; ++i) std::memset(records.data() + i * 12 + 4, 0x5a, 4);
  for (const auto& rounds : kRoundSizes) expect_first_of_runs(records, layout, SortOrder::ascending, rounds);
  Sorted sorted = sorted_of(records, layout, SortOrder::ascending);
  UniqueFilter filter(layout, SortOrder::ascending);
  EXPECT_EQ(filter.keep_firsts(sorted.records.data(), sorted.positions.data(), 100000), 1u);
  EXPECT_EQ(sorted.positions[0], 0u);  // the first in input order
  // A round of nothing but the last round's key keeps nothing.
  EXPECT_EQ(filter.keep_firsts(sorted.records.data() + 100000 * 12, sorted.positions.data() + 100000, 100000), 0u);
  EXPECT_EQ(filter.dropped(), 199999u);
}

// f32 keys: two NaN bit patterns (twice each), -0.0 and +0.0 (twice each), 1.0 (twice).
std::vector<std::byte> float_records(const RecordLayout& layout) {
  const std::uint32_t bits[] = {0x7fc00000, 0x80000000, 0x3f800000, 0x7fa5a5a5, 0x00000000,
                                0x7fc00000, 0x00000000, 0x7fa5a5a5, 0x3f800000, 0x80000000};
  std::vector<std::byte> records(std::size(bits) * layout.record_size);
  for (std::size_t i = 0; i < std::size(bits); ++i)
    std::memcpy(records.data() + i * layout.record_size + layout.key_offset, &bits[i], 4);
  return records;
}

std::vector<std::uint64_t> kept_positions(const std::vector<std::byte>& records, const RecordLayout& layout) {
  Sorted sorted = sorted_of(records, layout, SortOrder::ascending);
  UniqueFilter filter(layout, SortOrder::ascending);
  sorted.positions.resize(filter.keep_firsts(sorted.records.data(), sorted.positions.data(), sorted.positions.size()));
  return sorted.positions;
}

TEST(UniqueFilter, BareFloatNaNsAreEqualBitForBitAndZerosDiffer) {
  const RecordLayout bare = RecordLayout::bare_key(KeyType::f32);
  // -0.0 (1), +0.0 (4), 1.0 (2), then the NaNs by bit pattern: 0x7fa5a5a5 (3), 0x7fc00000 (0).
  EXPECT_EQ(kept_positions(float_records(bare), bare), (std::vector<std::uint64_t>{1, 4, 2, 3, 0}));
}

TEST(UniqueFilter, RecordsNaNsAreOneKey) {
  const RecordLayout records = RecordLayout::of({KeyType::f32, 4}, 9, 2);
  // -0.0, +0.0, 1.0, then one NaN: the first in input order (0).
  EXPECT_EQ(kept_positions(float_records(records), records), (std::vector<std::uint64_t>{1, 4, 2, 0}));
}

}  // namespace
}  // namespace rmgsort
