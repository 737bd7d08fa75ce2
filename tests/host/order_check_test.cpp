#include "host/order_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "core/record_rank.hpp"
#include "tests/core/key_types.hpp"
#include "tests/host/record_test_layouts.hpp"

namespace rmgsort {
namespace {

template <class T>
class OrderCheckTest : public ::testing::Test {};
TYPED_TEST_SUITE(OrderCheckTest, testing::AllKeyTypes);

template <class T>
std::vector<T> sorted_keys(std::size_t n, SortOrder order) {
  std::mt19937_64 random(9);
  std::vector<T> keys(n);
  for (auto& key : keys) key = __builtin_bit_cast(T, RadixBits<T>(random()));
  if (order == SortOrder::ascending) {
    std::sort(keys.begin(), keys.end(), KeyLess<T, SortOrder::ascending>{});
  } else {
    std::sort(keys.begin(), keys.end(), KeyLess<T, SortOrder::descending>{});
  }
  return keys;
}

TYPED_TEST(OrderCheckTest, SortedInputPassesAndTheFirstDisorderIsFound) {
  using T = TypeParam;
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    auto keys = sorted_keys<T>(500000, order);
    EXPECT_FALSE(find_disorder(keys.data(), keys.size(), order).has_value());
    // Break the order at two places: the earlier one must be reported, whichever task finds it.
    std::swap(keys[400000], keys[400100]);
    std::swap(keys[123456], keys[123999]);
    const auto at = find_disorder(keys.data(), keys.size(), order);
    ASSERT_TRUE(at.has_value());
    EXPECT_EQ(*at, 123457u);  // keys[123456] now holds a later key, so its successor is out of order
  }
}

TYPED_TEST(OrderCheckTest, EmptyAndSingleKeyAreSorted) {
  using T = TypeParam;
  const T one = T(1);
  EXPECT_FALSE(find_disorder<T>(nullptr, 0, SortOrder::ascending).has_value());
  EXPECT_FALSE(find_disorder(&one, 1, SortOrder::descending).has_value());
}

TYPED_TEST(OrderCheckTest, CheckerFindsDisorderAcrossChunkBoundaries) {
  using T = TypeParam;
  auto keys = sorted_keys<T>(10000, SortOrder::ascending);
  const auto* bytes = reinterpret_cast<const std::byte*>(keys.data());
  {
    OrderChecker checker(KeyTypeOf<T>::value, SortOrder::ascending);
    for (std::size_t begin = 0; begin < keys.size(); begin += 1000)
      checker.feed(bytes + begin * sizeof(T), 1000 * sizeof(T));
    EXPECT_EQ(checker.keys_seen(), keys.size());
    EXPECT_FALSE(checker.first_disorder().has_value());
  }
  // Keys 3999 and 4000 straddle a chunk boundary.
  std::swap(keys[3999], keys[4000]);
  if (KeyOrder<T, SortOrder::ascending>::rank(keys[3999]) == KeyOrder<T, SortOrder::ascending>::rank(keys[4000]))
    GTEST_SKIP() << "the swapped keys are equal";
  OrderChecker checker(KeyTypeOf<T>::value, SortOrder::ascending);
  for (std::size_t begin = 0; begin < keys.size(); begin += 1000)
    checker.feed(bytes + begin * sizeof(T), 1000 * sizeof(T));
  ASSERT_TRUE(checker.first_disorder().has_value());
  EXPECT_EQ(*checker.first_disorder(), 4000u);
}

TEST(OrderCheckFloatTest, NaNsInAnyOrderAreSortedButZerosMustBeOrdered) {
  const float nan_a = __builtin_bit_cast(float, 0x7fc00001u);
  const float nan_b = __builtin_bit_cast(float, 0xffc00000u);
  const std::vector<float> ok = {-1.0f, -0.0f, 0.0f, 1.0f, nan_b, nan_a, nan_b};
  EXPECT_FALSE(find_disorder(ok.data(), ok.size(), SortOrder::ascending).has_value());
  const std::vector<float> zeros_swapped = {-1.0f, 0.0f, -0.0f, 1.0f};
  EXPECT_EQ(find_disorder(zeros_swapped.data(), zeros_swapped.size(), SortOrder::ascending), std::optional<std::size_t>(2));
  const std::vector<float> nan_first = {nan_a, 1.0f};
  EXPECT_EQ(find_disorder(nan_first.data(), nan_first.size(), SortOrder::descending), std::optional<std::size_t>(1));
  const std::vector<float> descending = {1.0f, 0.0f, -0.0f, -1.0f, nan_a};
  EXPECT_FALSE(find_disorder(descending.data(), descending.size(), SortOrder::descending).has_value());
}

TEST(OrderCheckIntegerTest, MinimumAndMaximum) {
  const std::vector<std::int64_t> keys = {INT64_MIN, -1, 0, 1, INT64_MAX};
  EXPECT_FALSE(find_disorder(keys.data(), keys.size(), SortOrder::ascending).has_value());
  EXPECT_EQ(find_disorder(keys.data(), keys.size(), SortOrder::descending), std::optional<std::size_t>(1));
}

// ---------------------------------------------------------------------------------------------------
// Records (every layout of tests/host/record_test_layouts.hpp, both orders)

using testing::layout_name;
using testing::record_test_layouts;

constexpr SortOrder kOrders[] = {SortOrder::ascending, SortOrder::descending};

const std::byte* record_at(const std::vector<std::byte>& records, const RecordLayout& layout, std::size_t i) {
  return records.data() + i * layout.record_size;
}

// The reference scan, from each record's rank words as a vector: the first i whose words compare
// below record i - 1's (std::is_sorted_until), and the pairs of equal neighbours.
// RECORDS' rank words under RANKED_AS (a layout of the same records).
std::vector<std::vector<std::uint64_t>> rank_words(const std::vector<std::byte>& records, const RecordLayout& ranked_as,
                                                   SortOrder order) {
  std::vector<std::vector<std::uint64_t>> words(records.size() / ranked_as.record_size);
  visit_rank(ranked_as, order, [&](const auto& rank) {
    for (std::size_t i = 0; i < words.size(); ++i)
      for (int w = 0; w < rank.words(); ++w) words[i].push_back(rank.word(record_at(records, ranked_as, i), w));
  });
  return words;
}

// The reference scan: the first i whose rank words (every NaN equal) compare below record i - 1's
// (std::is_sorted_until), and the pairs of neighbours equal in the layout's own rank (which orders
// a bare float key's NaNs by bit pattern, as --unique compares them).
OrderScan reference_scan(const std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order) {
  const auto words = rank_words(records, testing::with_equal_nans(layout), order);
  const auto own_words = rank_words(records, layout, order);
  OrderScan scan;
  const auto until = std::is_sorted_until(words.begin(), words.end());
  if (until != words.end()) scan.first_disorder = std::uint64_t(until - words.begin());
  for (std::size_t i = 1; i < words.size(); ++i) scan.duplicate_keys += own_words[i] == own_words[i - 1];
  return scan;
}

// Distinct keys of RECORDS, by their rank words in the layout's own rank.
std::size_t distinct_keys(const std::vector<std::byte>& records, const RecordLayout& layout) {
  std::set<std::vector<std::uint64_t>> keys;
  visit_rank(layout, SortOrder::ascending, [&](const auto& rank) {
    for (std::size_t i = 0; i < records.size() / layout.record_size; ++i) {
      std::vector<std::uint64_t> words;
      for (int w = 0; w < rank.words(); ++w) words.push_back(rank.word(record_at(records, layout, i), w));
      keys.insert(words);
    }
  });
  return keys.size();
}

// RECORDS in the order rmgsort sorts them to (bare float keys: NaNs by bit pattern), so that keys
// equal in the layout's own rank stand together.
std::vector<std::byte> sorted_as_rmgsort_sorts(const std::vector<std::byte>& records, const RecordLayout& layout,
                                               SortOrder order) {
  const std::vector<std::uint64_t> index = testing::stable_argsort(records, layout, order);
  std::vector<std::byte> sorted(records.size());
  for (std::size_t j = 0; j < index.size(); ++j)
    std::memcpy(sorted.data() + j * layout.record_size, record_at(records, layout, index[j]), layout.record_size);
  return sorted;
}

TEST(OrderCheckRecords, SortedRecordsPassAndCountTheirDuplicateKeys) {
  for (const RecordLayout& layout : record_test_layouts()) {
    for (SortOrder order : kOrders) {
      for (std::size_t n : {0, 1, 7, 300}) {
        SCOPED_TRACE(layout_name(layout) + (order == SortOrder::ascending ? ", ascending, " : ", descending, ") +
                     std::to_string(n) + " records");
        const auto sorted = sorted_as_rmgsort_sorts(testing::random_records(layout, n, n + 1), layout, order);
        const OrderScan scan = scan_order(sorted.data(), n, layout, order);
        EXPECT_FALSE(scan.first_disorder.has_value());
        EXPECT_EQ(scan.duplicate_keys, n - distinct_keys(sorted, layout));
        EXPECT_FALSE(find_disorder(sorted.data(), n, layout, order).has_value());
      }
    }
  }
}

TEST(OrderCheckRecords, UnsortedRecordsGiveTheReferencesFirstDisorderAndDuplicates) {
  for (const RecordLayout& layout : record_test_layouts()) {
    for (SortOrder order : kOrders) {
      for (std::size_t n : {2, 7, 300}) {
        SCOPED_TRACE(layout_name(layout) + (order == SortOrder::ascending ? ", ascending, " : ", descending, ") +
                     std::to_string(n) + " records");
        const auto records = testing::random_records(layout, n, 40 + n);
        const OrderScan want = reference_scan(records, layout, order);
        const OrderScan got = scan_order(records.data(), n, layout, order);
        EXPECT_EQ(got.first_disorder, want.first_disorder);
        EXPECT_EQ(got.duplicate_keys, want.duplicate_keys);
      }
    }
  }
}

// Feeds RECORDS to a checker in chunks of 1, 2, 7, 1, 13, ... records.
OrderChecker fed_in_chunks(const std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order) {
  OrderChecker checker(layout, order);
  const std::size_t n = records.size() / layout.record_size;
  const std::size_t sizes[] = {1, 2, 7, 1, 13};
  for (std::size_t at = 0, c = 0; at < n; ++c) {
    const std::size_t take = std::min(sizes[c % std::size(sizes)], n - at);
    checker.feed(record_at(records, layout, at), take * layout.record_size);
    at += take;
  }
  return checker;
}

TEST(OrderCheckRecords, CheckerFedInChunksFindsWhatOneScanFinds) {
  for (const RecordLayout& layout : record_test_layouts()) {
    for (SortOrder order : kOrders) {
      SCOPED_TRACE(layout_name(layout) + (order == SortOrder::ascending ? ", ascending" : ", descending"));
      auto records = sorted_as_rmgsort_sorts(testing::random_records(layout, 300, 5), layout, order);
      const OrderChecker sorted = fed_in_chunks(records, layout, order);
      EXPECT_EQ(sorted.records_seen(), 300u);
      EXPECT_FALSE(sorted.first_disorder().has_value());
      EXPECT_EQ(sorted.duplicate_keys(), 300 - distinct_keys(records, layout));
      // Records 10 and 11 straddle a chunk boundary (chunks 1, 2, 7: records 0, 1-2, 3-9, 10).
      std::vector<std::byte> unsorted = testing::random_records(layout, 300, 6);
      const OrderScan want = reference_scan(unsorted, layout, order);
      const OrderChecker checker = fed_in_chunks(unsorted, layout, order);
      EXPECT_EQ(checker.first_disorder(), want.first_disorder);
      EXPECT_EQ(checker.duplicate_keys(), want.duplicate_keys);
    }
  }
}

TEST(OrderCheckRecords, DisorderAtAChunkBoundaryIsFound) {
  const RecordLayout layout = RecordLayout::of({KeyType::u64, 8}, 13, 3);
  std::vector<std::byte> records(4 * 13);
  for (std::uint64_t i = 0; i < 4; ++i) {
    const std::uint64_t key = i == 2 ? 0 : 10 + i;  // 10 11 0 13: record 2 is out of order
    std::memcpy(records.data() + i * 13 + 3, &key, 8);
  }
  OrderChecker checker(layout, SortOrder::ascending);
  checker.feed(records.data(), 2 * 13);
  EXPECT_FALSE(checker.first_disorder().has_value());
  checker.feed(records.data() + 2 * 13, 2 * 13);
  EXPECT_EQ(checker.first_disorder(), std::optional<std::uint64_t>(2));
}

// Sizes that take the parallel path (over 3 pieces of 512 KiB), with two disorders: the earlier is
// reported whichever piece finds it, and duplicates are counted across the pieces.
TEST(OrderCheckRecords, LargeInputsInParallel) {
  const RecordLayout layouts[] = {RecordLayout::of({KeyType::bytes, 10}, 100, 0), RecordLayout::of({KeyType::u64, 8}, 13, 3),
                                  RecordLayout::of({KeyType::f32, 4}, 5, 1), RecordLayout::of({KeyType::bytes, 3}, 13, 10)};
  for (const RecordLayout& layout : layouts) {
    for (SortOrder order : kOrders) {
      SCOPED_TRACE(layout_name(layout) + (order == SortOrder::ascending ? ", ascending" : ", descending"));
      const std::size_t n = 3 * ((std::size_t{512} << 10) / layout.record_size) + 5;
      auto records = testing::reference_sorted(testing::random_records(layout, n, 8), layout, order);
      const OrderScan sorted = scan_order(records.data(), n, layout, order);
      EXPECT_FALSE(sorted.first_disorder.has_value());
      EXPECT_EQ(sorted.duplicate_keys, n - distinct_keys(records, layout));
      const std::size_t size = layout.record_size;
      const auto swap_records = [&](std::size_t a, std::size_t b) {
        std::swap_ranges(records.begin() + a * size, records.begin() + (a + 1) * size, records.begin() + b * size);
      };
      swap_records(n - 3, n - 2000);  // in the last piece, where equal keys allow
      swap_records(n / 2, n - 1);     // the largest (smallest) key into a middle piece: reported
      const OrderScan want = reference_scan(records, layout, order);
      ASSERT_TRUE(want.first_disorder.has_value());
      const OrderScan got = scan_order(records.data(), n, layout, order);
      EXPECT_EQ(got.first_disorder, want.first_disorder);
      EXPECT_EQ(got.duplicate_keys, want.duplicate_keys);
    }
  }
}

// Records of LAYOUT holding KEYS (their first key_size bytes in memory: a number's low bytes) at the
// key offset, the other bytes 0xa5.
template <class Key>
std::vector<std::byte> records_with(const RecordLayout& layout, const std::vector<Key>& keys) {
  std::vector<std::byte> records(keys.size() * layout.record_size, std::byte{0xa5});
  for (std::size_t i = 0; i < keys.size(); ++i)
    std::memcpy(records.data() + i * layout.record_size + layout.key_offset, &keys[i], layout.key_size);
  return records;
}

TEST(OrderCheckRecords, FloatNaNsAreEqualAndLastAndZerosAreOrdered) {
  const RecordLayout layout = RecordLayout::of({KeyType::f32, 4}, 12, 3);
  const std::uint32_t nan_a = 0x7fc00001, nan_b = 0xffc00000, nan_c = 0x7fa5a5a5;
  const std::uint32_t minus_zero = 0x80000000, plus_zero = 0, one = 0x3f800000, minus_one = 0xbf800000;
  const std::uint32_t inf = 0x7f800000, minus_inf = 0xff800000;
  const auto scan = [&](std::vector<std::uint32_t> keys, SortOrder order) {
    const auto records = records_with(layout, keys);
    return scan_order(records.data(), keys.size(), layout, order);
  };
  const OrderScan ascending = scan({minus_inf, minus_one, minus_zero, plus_zero, one, inf, nan_b, nan_a, nan_c},
                                   SortOrder::ascending);
  EXPECT_FALSE(ascending.first_disorder.has_value());
  EXPECT_EQ(ascending.duplicate_keys, 2u);  // the three NaNs are one key
  const OrderScan descending = scan({inf, one, plus_zero, minus_zero, minus_one, minus_inf, nan_c, nan_a},
                                    SortOrder::descending);
  EXPECT_FALSE(descending.first_disorder.has_value());
  EXPECT_EQ(descending.duplicate_keys, 1u);
  EXPECT_EQ(scan({plus_zero, minus_zero}, SortOrder::ascending).first_disorder, std::optional<std::uint64_t>(1));
  EXPECT_EQ(scan({minus_zero, plus_zero}, SortOrder::descending).first_disorder, std::optional<std::uint64_t>(1));
  EXPECT_EQ(scan({plus_zero, minus_zero}, SortOrder::ascending).duplicate_keys, 0u);  // -0 and +0 differ
  EXPECT_EQ(scan({nan_a, one}, SortOrder::ascending).first_disorder, std::optional<std::uint64_t>(1));
  EXPECT_EQ(scan({nan_a, one}, SortOrder::descending).first_disorder, std::optional<std::uint64_t>(1));
}

TEST(OrderCheckRecords, DoubleNaNsOfEveryPayloadAtAnUnalignedOffset) {
  const RecordLayout layout = RecordLayout::of({KeyType::f64, 8}, 13, 5);
  const std::vector<std::uint64_t> keys = {0xfff0000000000000, 0x8000000000000000, 0, 0x7ff0000000000000,
                                           0x7ff8000000000000, 0xfff800000000beef, 0x7ff0000000000001};
  const auto records = records_with(layout, keys);
  const OrderScan scan = scan_order(records.data(), keys.size(), layout, SortOrder::ascending);
  EXPECT_FALSE(scan.first_disorder.has_value());
  EXPECT_EQ(scan.duplicate_keys, 2u);
}

TEST(OrderCheckRecords, IntegerExtremes) {
  const RecordLayout layout = RecordLayout::of({KeyType::i64, 8}, 100, 92);
  const std::vector<std::int64_t> keys = {INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX, INT64_MAX};
  const auto records = records_with(layout, keys);
  const OrderScan ascending = scan_order(records.data(), keys.size(), layout, SortOrder::ascending);
  EXPECT_FALSE(ascending.first_disorder.has_value());
  EXPECT_EQ(ascending.duplicate_keys, 1u);
  EXPECT_EQ(find_disorder(records.data(), keys.size(), layout, SortOrder::descending), std::optional<std::size_t>(1));
}

TEST(OrderCheckRecords, BytesKeysCompareAsUnsignedBytes) {
  const RecordLayout layout = RecordLayout::of({KeyType::bytes, 3}, 13, 5);
  using Key = std::array<unsigned char, 3>;
  const std::vector<Key> ascending = {{0x00, 0x00, 0x00}, {0x00, 0x00, 0xff}, {0x7f, 0xff, 0xff}, {0x80, 0x00, 0x00},
                                      {0x80, 0x00, 0x01}, {0x80, 0x00, 0x01}, {0xff, 0xff, 0xff}};
  const auto records = records_with(layout, ascending);
  const OrderScan scan = scan_order(records.data(), ascending.size(), layout, SortOrder::ascending);
  EXPECT_FALSE(scan.first_disorder.has_value());
  EXPECT_EQ(scan.duplicate_keys, 1u);
  EXPECT_EQ(find_disorder(records.data(), ascending.size(), layout, SortOrder::descending), std::optional<std::size_t>(1));
  const std::vector<Key> descending(ascending.rbegin(), ascending.rend());
  const auto reversed = records_with(layout, descending);
  EXPECT_FALSE(find_disorder(reversed.data(), descending.size(), layout, SortOrder::descending).has_value());
  // A signed-char comparison would put 0x80 first.
  const auto signed_trap = records_with(layout, std::vector<Key>{{0x80, 0x00, 0x00}, {0x7f, 0xff, 0xff}});
  EXPECT_EQ(find_disorder(signed_trap.data(), 2, layout, SortOrder::ascending), std::optional<std::size_t>(1));
  // The last byte decides when the others are equal.
  const auto last_byte = records_with(layout, std::vector<Key>{{0x12, 0x34, 0x57}, {0x12, 0x34, 0x56}});
  EXPECT_EQ(find_disorder(last_byte.data(), 2, layout, SortOrder::ascending), std::optional<std::size_t>(1));
}

// Bare float keys order their NaNs by bit pattern, and --unique keeps one of each pattern: the check
// counts as duplicates only NaNs whose bits are the same (whichever chunk each came in), so that
// `sort -u` then `check` reports none. It still accepts the NaNs in any order among themselves.
TEST(OrderCheckRecords, BareFloatKeysCountOnlyIdenticalNaNsAsDuplicates) {
  const float nan_a = __builtin_bit_cast(float, 0x7fc00001u), nan_b = __builtin_bit_cast(float, 0xffc00000u);
  const std::vector<float> keys = {1.0f, nan_a, nan_b, nan_b, nan_a, nan_a};
  OrderChecker checker(KeyType::f32, SortOrder::ascending);
  checker.feed(reinterpret_cast<const std::byte*>(keys.data()), 4);
  checker.feed(reinterpret_cast<const std::byte*>(keys.data() + 1), 8);  // nan_b | nan_b across the cut
  checker.feed(reinterpret_cast<const std::byte*>(keys.data() + 3), 12);
  EXPECT_FALSE(checker.first_disorder().has_value());
  EXPECT_EQ(checker.duplicate_keys(), 2u);  // nan_b after nan_b, nan_a after nan_a
  EXPECT_EQ(checker.keys_seen(), 6u);
  const OrderScan whole = scan_order(reinterpret_cast<const std::byte*>(keys.data()), keys.size(),
                                     RecordLayout::bare_key(KeyType::f32), SortOrder::ascending);
  EXPECT_FALSE(whole.first_disorder.has_value());
  EXPECT_EQ(whole.duplicate_keys, 2u);
  // Under --float-order ieee every NaN is one key, as before.
  OrderChecker ieee(KeyType::f32, SortOrder::ascending, FloatOrder::ieee);
  ieee.feed(reinterpret_cast<const std::byte*>(keys.data()), keys.size() * 4);
  EXPECT_EQ(ieee.duplicate_keys(), 4u);
}

// The same for f64, descending, and for f32 records whose key is not the whole record (every NaN one key).
TEST(OrderCheckRecords, NaNDuplicatesFollowTheLayout) {
  const double nan_a = __builtin_bit_cast(double, 0x7ff8000000000001ull);
  const double nan_b = __builtin_bit_cast(double, 0xfff800000000beefull);
  const std::vector<double> keys = {2.0, -0.0, nan_a, nan_b, nan_b};
  const OrderScan bare = scan_order(reinterpret_cast<const std::byte*>(keys.data()), keys.size(),
                                    RecordLayout::bare_key(KeyType::f64), SortOrder::descending);
  EXPECT_FALSE(bare.first_disorder.has_value());
  EXPECT_EQ(bare.duplicate_keys, 1u);
  const RecordLayout record = RecordLayout::of({KeyType::f64, 8}, 13, 5);
  const auto records = records_with(record, keys);
  const OrderScan in_records = scan_order(records.data(), keys.size(), record, SortOrder::descending);
  EXPECT_FALSE(in_records.first_disorder.has_value());
  EXPECT_EQ(in_records.duplicate_keys, 2u);
}

}  // namespace
}  // namespace rmgsort
