// The CPU sort of records as pairs (host/pair_sort.hpp) against std::stable_sort by rank: every test
// layout sorted as pairs (tests/host/record_test_layouts.hpp) x both orders x sizes 0, 1, 7 and one
// past the parallel passes, x keys with ties, integer extremes, ±0 and NaNs; records that are pairs
// already, sorted where they lie, also from a pointer that is not 8-byte aligned; all keys equal;
// bare keys of every type carrying their input positions (--index-output); pairs with keys of every
// magnitude (the logarithmic digit), one heavy key, all keys equal, at sizes around every threshold.
#include "host/pair_sort.hpp"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/record_pair.hpp"
#include "io/host_buffer.hpp"
#include "tests/host/record_test_layouts.hpp"

namespace rmgsort {
namespace {

// More pairs than one thread sorts alone (the parallel passes run) and no power of two.
constexpr std::uint64_t kLarge = (std::uint64_t{1} << 17) + 5;

void expect_sorts_like_reference(const RecordLayout& layout, std::uint64_t count, SortOrder order,
                                 std::size_t misalign = 0) {
  const std::vector<std::byte> input = testing::random_records(layout, count, count * 3 + layout.record_size);
  const std::vector<std::byte> expected = testing::reference_sorted(input, layout, order);
  std::vector<std::byte> buffer(input.size() + 16);
  std::byte* records = buffer.data() + misalign;
  std::copy(input.begin(), input.end(), records);
  HostBuffer work(pair_sort_bytes(count));
  sort_records_as_pairs(records, count, layout, order, work.data());
  ASSERT_TRUE(std::equal(expected.begin(), expected.end(), records))
      << "first difference at byte " << std::mismatch(expected.begin(), expected.end(), records).first - expected.begin();
}

TEST(PairSortTest, EveryPairLayoutSizeAndOrderSortsLikeStableSort) {
  int layouts = 0;
  for (const RecordLayout& layout : testing::record_test_layouts()) {
    if (!carried_as_pairs(layout)) continue;
    ++layouts;
    for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
      for (std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{7}, kLarge}) {
        SCOPED_TRACE(testing::layout_name(layout) + ", " + std::to_string(count) + " records, " +
                     (order == SortOrder::ascending ? "ascending" : "descending"));
        expect_sorts_like_reference(layout, count, order);
      }
    }
  }
  EXPECT_GE(layouts, 20) << "the test layouts sorted as pairs";
}

TEST(PairSortTest, RecordsThatArePairsAlreadySortWhereTheyLieAlignedOrNot) {
  for (KeyType type : {KeyType::u64, KeyType::i64}) {
    const RecordLayout layout = RecordLayout::of({type, 8}, 16, 0);
    for (std::size_t misalign : {0, 8, 3}) {
      for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
        SCOPED_TRACE(testing::layout_name(layout) + " misaligned by " + std::to_string(misalign));
        expect_sorts_like_reference(layout, kLarge, order, misalign);
      }
    }
  }
}

TEST(PairSortTest, AllKeysEqualKeepTheirInputOrder) {
  const RecordLayout layout = RecordLayout::of({KeyType::u32, 4}, 12, 4);
  std::vector<std::byte> records(kLarge * 12);
  for (std::uint64_t i = 0; i < kLarge; ++i) {
    std::byte* record = records.data() + i * 12;
    std::memcpy(record, &i, 4);
    const std::uint32_t key = 7;
    std::memcpy(record + 4, &key, 4);
    std::memcpy(record + 8, &i, 4);
  }
  const std::vector<std::byte> input = records;
  HostBuffer work(pair_sort_bytes(kLarge));
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    sort_records_as_pairs(records.data(), kLarge, layout, order, work.data());
    EXPECT_TRUE(records == input);
  }
}

TEST(PairSortTest, BareKeysCarryTheirInputPositions) {
  for (KeyType type : kNumericKeyTypes) {
    const RecordLayout layout = RecordLayout::bare_key(type);
    ASSERT_TRUE(sorted_as_pairs(layout, true));
    for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
      for (std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{7}, kLarge}) {
        SCOPED_TRACE(testing::layout_name(layout) + ", " + std::to_string(count) + " keys, " +
                     (order == SortOrder::ascending ? "ascending" : "descending"));
        std::vector<std::byte> records = testing::random_records(layout, count, count + 11);
        const std::vector<std::uint64_t> expected = testing::stable_argsort(records, layout, order);
        const std::vector<std::byte> input = records;
        HostBuffer work(pair_sort_bytes(count));
        std::vector<std::uint64_t> positions(count);
        sort_records_as_pairs(records.data(), count, layout, order, work.data(), positions.data());
        ASSERT_EQ(positions, expected);
        for (std::uint64_t j = 0; j < count; ++j)
          ASSERT_EQ(std::memcmp(records.data() + j * layout.record_size,
                                input.data() + expected[j] * layout.record_size, layout.record_size), 0)
              << "key " << j << " is not the input's key at its position";
      }
    }
  }
}

// (u64 key, u64 position) records, sorted where they lie: their only stable order is by (key,
// position).
void expect_sorts_keys_stably(const std::vector<std::uint64_t>& keys, const std::string& what) {
  const std::uint64_t count = keys.size();
  std::vector<RecordPair> records(count), expected(count);
  for (std::uint64_t i = 0; i < count; ++i) records[i] = expected[i] = RecordPair{keys[i], i};
  std::sort(expected.begin(), expected.end(), [](const RecordPair& x, const RecordPair& y) {
    return x.key != y.key ? x.key < y.key : x.value < y.value;
  });
  HostBuffer work(pair_sort_bytes(count));
  sort_records_as_pairs(reinterpret_cast<std::byte*>(records.data()), count, RecordLayout::of({KeyType::u64, 8}, 16, 0),
                        SortOrder::ascending, work.data());
  for (std::uint64_t i = 0; i < count; ++i)
    ASSERT_TRUE(records[i].key == expected[i].key && records[i].value == expected[i].value)
        << what << ", " << count << " records: first difference at record " << i;
}

// Sizes around the thresholds (16-byte pairs: up to 16 ranked, 1024 split in L1, 2^16 sorted by one
// thread, a parallel pass's digit widening with the range up to 12 bits) and the small ones.
std::vector<std::uint64_t> pair_sizes() {
  return {0, 1, 7, 16, 17, 33, 1023, 1024, 1025, (1 << 16) - 1, 1 << 16, (1 << 16) + 1, (1 << 20) + 3, (1 << 22) + 1};
}

// Keys spread over every order of magnitude (Zipf's law over u64, as `generate --dist zipf:1.0`
// writes them): the parallel passes take a logarithmic digit.
std::uint64_t log_spread(std::mt19937_64& random, int bits) {
  const int width = int(random() % std::uint64_t(bits + 1));
  return width == 0 ? 0 : (std::uint64_t{1} << (width - 1)) | (random() & ((std::uint64_t{1} << (width - 1)) - 1));
}

TEST(PairSortTest, KeysOfEveryMagnitudeSortStably) {
  std::mt19937_64 random(5);
  for (std::uint64_t count : pair_sizes()) {
    std::vector<std::uint64_t> keys(count);
    for (auto& key : keys) key = log_spread(random, 64);
    expect_sorts_keys_stably(keys, "keys of every magnitude");
    // Small keys repeat many times (1 holds an eighth of the records), as under Zipf's law.
    for (auto& key : keys) key = random() % 8 == 0 ? 1 : log_spread(random, 30);
    expect_sorts_keys_stably(keys, "heavy small keys");
    // Every magnitude below a prefix that all keys share: the logarithmic digit of a lower range.
    for (auto& key : keys) key = std::uint64_t{0xABCD} << 48 | log_spread(random, 40);
    expect_sorts_keys_stably(keys, "every magnitude below a shared prefix");
    if (HasFatalFailure()) return;
  }
}

TEST(PairSortTest, OneHeavyKeyAmongEvenlySpreadOnes) {
  std::mt19937_64 random(6);
  for (std::uint64_t count : pair_sizes()) {
    std::vector<std::uint64_t> keys(count);
    for (auto& key : keys) key = random() % 3 == 0 ? 0x8000'0000'0000'0001 : random();
    expect_sorts_keys_stably(keys, "a heavy key");
    for (auto& key : keys) key = random() % 2 == 0 ? ~std::uint64_t{0} : random() >> (random() % 64);
    expect_sorts_keys_stably(keys, "the largest key heavy");
    if (HasFatalFailure()) return;
  }
}

TEST(PairSortTest, AllKeysEqualInPairsStayWhereTheyAre) {
  for (std::uint64_t count : pair_sizes()) {
    for (std::uint64_t key : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1} << 40, ~std::uint64_t{0}}) {
      expect_sorts_keys_stably(std::vector<std::uint64_t>(count, key), "all keys " + std::to_string(key));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(PairSortTest, OneThreadSortsTheSame) {
  tbb::task_arena one(1);
  one.execute([] { expect_sorts_like_reference(RecordLayout::of({KeyType::bytes, 3}, 11, 8), kLarge, SortOrder::descending); });
}

}  // namespace
}  // namespace rmgsort
