// host/order_check: the first disorder's position and both keys, wherever the chunks are cut, for
// every key type and record layout and both directions; -0.0 and NaNs under both float orders; and
// host/key_format, which prints those keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/record_rank.hpp"
#include "host/key_format.hpp"
#include "host/order_check.hpp"
#include "tests/host/record_test_layouts.hpp"

namespace rmgsort {
namespace {

using testing::layout_name;
using testing::record_test_layouts;

constexpr SortOrder kOrders[] = {SortOrder::ascending, SortOrder::descending};
constexpr FloatOrder kFloatOrders[] = {FloatOrder::total, FloatOrder::ieee};

std::string order_name(SortOrder order) { return order == SortOrder::ascending ? "ascending" : "descending"; }

const std::byte* key_of(const std::vector<std::byte>& records, const RecordLayout& layout, std::size_t i) {
  return records.data() + i * layout.record_size + layout.key_offset;
}

// A checker fed RECORDS in chunks cut before each index of CUTS (ascending).
OrderChecker fed_cut_at(const std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order,
                        const std::vector<std::size_t>& cuts, FloatOrder float_order = FloatOrder::total) {
  OrderChecker checker(layout, order, float_order);
  const std::size_t n = records.size() / layout.record_size;
  std::size_t at = 0;
  for (std::size_t cut : cuts) {
    checker.feed(records.data() + at * layout.record_size, (cut - at) * layout.record_size);
    at = cut;
  }
  checker.feed(records.data() + at * layout.record_size, (n - at) * layout.record_size);
  return checker;
}

// The checker's disorder is record I, and its keys are those of records I - 1 and I.
void expect_disorder_at(const OrderChecker& checker, const std::vector<std::byte>& records, const RecordLayout& layout,
                        std::size_t i) {
  ASSERT_TRUE(checker.disorder().has_value());
  const Disorder& disorder = *checker.disorder();
  EXPECT_EQ(disorder.index, i);
  EXPECT_EQ(checker.first_disorder(), std::optional<std::uint64_t>(i));
  EXPECT_EQ(std::memcmp(disorder.previous.data(), key_of(records, layout, i - 1), layout.key_size), 0);
  EXPECT_EQ(std::memcmp(disorder.key.data(), key_of(records, layout, i), layout.key_size), 0);
}

// Sorted records with two neighbours of different keys exchanged: record I is the first out of order,
// and I lies in the middle of the records.
std::optional<std::size_t> break_order(std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order) {
  const std::size_t n = records.size() / layout.record_size;
  return visit_rank(testing::with_equal_nans(layout), order, [&](const auto& rank) -> std::optional<std::size_t> {
    for (std::size_t i = n / 2; i < n; ++i) {
      std::byte* a = records.data() + (i - 1) * layout.record_size;
      std::byte* b = a + layout.record_size;
      if (compare_ranks(rank, a, b) == 0) continue;
      std::swap_ranges(a, b, b);
      return i;
    }
    return std::nullopt;
  });
}

TEST(OrderCheckDisorder, TheOffendingKeysAreKeptWhereverTheChunksAreCut) {
  for (const RecordLayout& layout : record_test_layouts()) {
    for (SortOrder order : kOrders) {
      SCOPED_TRACE(layout_name(layout) + ", " + order_name(order));
      auto records = testing::reference_sorted(testing::random_records(layout, 60, 17), layout, order);
      const std::optional<std::size_t> broken = break_order(records, layout, order);
      ASSERT_TRUE(broken.has_value()) << "every key equal";
      const std::size_t i = *broken;
      // One chunk; a cut between the two (the previous key is the kept one); a cut just before
      // the previous; one record per chunk.
      std::vector<std::size_t> singles;
      for (std::size_t c = 1; c < 60; ++c) singles.push_back(c);
      for (const std::vector<std::size_t>& cuts : {std::vector<std::size_t>{}, {i}, {i - 1}, {1, i - 1, i, i + 1}, singles}) {
        SCOPED_TRACE("cut before " + ::testing::PrintToString(cuts));
        expect_disorder_at(fed_cut_at(records, layout, order, cuts), records, layout, i);
      }
    }
  }
}

TEST(OrderCheckDisorder, RandomRecordsInChunksGiveTheScansFirstDisorderAndItsKeys) {
  for (const RecordLayout& layout : record_test_layouts()) {
    for (SortOrder order : kOrders) {
      SCOPED_TRACE(layout_name(layout) + ", " + order_name(order));
      const auto records = testing::random_records(layout, 50, 23);
      const OrderScan want = scan_order(records.data(), 50, layout, order);
      ASSERT_TRUE(want.first_disorder.has_value());
      const OrderChecker checker = fed_cut_at(records, layout, order, {3, 4, 11, 12, 13, 30});
      expect_disorder_at(checker, records, layout, std::size_t(*want.first_disorder));
      EXPECT_EQ(checker.duplicate_keys(), want.duplicate_keys);
    }
  }
}

TEST(OrderCheckDisorder, OnlyTheFirstDisorderIsKept) {
  const RecordLayout layout = RecordLayout::bare_key(KeyType::u32);
  const std::vector<std::uint32_t> keys = {1, 5, 2, 9, 3, 0};  // out of order at 2, 4 and 5
  std::vector<std::byte> records(keys.size() * 4);
  std::memcpy(records.data(), keys.data(), records.size());
  for (const std::vector<std::size_t>& cuts : {std::vector<std::size_t>{}, {2}, {3}, {4}, {1, 2, 3, 4, 5}}) {
    const OrderChecker checker = fed_cut_at(records, layout, SortOrder::ascending, cuts);
    expect_disorder_at(checker, records, layout, 2);
  }
}

TEST(OrderCheckDisorder, SortedRecordsHaveNone) {
  for (const RecordLayout& layout : record_test_layouts()) {
    for (SortOrder order : kOrders) {
      for (std::size_t n : {0, 1, 7}) {
        SCOPED_TRACE(layout_name(layout) + ", " + order_name(order) + ", " + std::to_string(n) + " records");
        const auto records = testing::reference_sorted(testing::random_records(layout, n, 3), layout, order);
        const OrderChecker checker = fed_cut_at(records, layout, order, n > 1 ? std::vector<std::size_t>{1} : std::vector<std::size_t>{});
        EXPECT_FALSE(checker.disorder().has_value());
        EXPECT_EQ(checker.records_seen(), n);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Float orders: -0.0 and NaNs

// Records of LAYOUT (f32 or f64 keys) holding KEYS, the other bytes 0x5a.
template <class T>
std::vector<std::byte> float_records(const RecordLayout& layout, const std::vector<T>& keys) {
  std::vector<std::byte> records(keys.size() * layout.record_size, std::byte{0x5a});
  for (std::size_t i = 0; i < keys.size(); ++i)
    std::memcpy(records.data() + i * layout.record_size + layout.key_offset, &keys[i], sizeof(T));
  return records;
}

template <class T>
class OrderCheckFloatOrderTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(OrderCheckFloatOrderTest, FloatTypes);

// Bare keys and records with the key at an unaligned offset.
template <class T>
std::vector<RecordLayout> float_layouts() {
  const KeySpec spec{KeyTypeOf<T>::value, sizeof(T)};
  return {RecordLayout::bare_key(spec.type), RecordLayout::of(spec, sizeof(T) + 5, 3), RecordLayout::of(spec, 13, 13 - sizeof(T))};
}

// What a check of KEYS finds, the records cut into chunks of one.
template <class T>
OrderScan check_floats(const RecordLayout& layout, const std::vector<T>& keys, SortOrder order, FloatOrder float_order) {
  const auto records = float_records(layout, keys);
  std::vector<std::size_t> cuts;
  for (std::size_t c = 1; c < keys.size(); ++c) cuts.push_back(c);
  const OrderChecker checker = fed_cut_at(records, layout, order, cuts, float_order);
  const OrderScan whole = scan_order(records.data(), keys.size(), layout, order, float_order);
  EXPECT_EQ(checker.first_disorder(), whole.first_disorder);
  EXPECT_EQ(checker.duplicate_keys(), whole.duplicate_keys);
  if (checker.disorder()) expect_disorder_at(checker, records, layout, std::size_t(*checker.first_disorder()));
  return whole;
}

TYPED_TEST(OrderCheckFloatOrderTest, ZerosAreOrderedInTheTotalOrderAndEqualInIeee) {
  using T = TypeParam;
  const T zero = T(0), minus_zero = -T(0);
  for (const RecordLayout& layout : float_layouts<T>()) {
    SCOPED_TRACE(layout_name(layout));
    const std::vector<T> minus_first = {T(-1), minus_zero, zero, minus_zero, T(1)};
    const std::vector<T> plus_first = {T(1), zero, minus_zero, zero, T(-1)};
    // Total: -0.0 before +0.0 (ascending), after it (descending).
    EXPECT_EQ(check_floats(layout, minus_first, SortOrder::ascending, FloatOrder::total).first_disorder,
              std::optional<std::uint64_t>(3));
    EXPECT_EQ(check_floats(layout, plus_first, SortOrder::descending, FloatOrder::total).first_disorder,
              std::optional<std::uint64_t>(3));
    EXPECT_EQ(check_floats(layout, std::vector<T>{minus_zero, zero}, SortOrder::ascending, FloatOrder::total).duplicate_keys, 0u);
    // IEEE: the zeros are one key, in any order.
    const OrderScan ascending = check_floats(layout, minus_first, SortOrder::ascending, FloatOrder::ieee);
    EXPECT_FALSE(ascending.first_disorder.has_value());
    EXPECT_EQ(ascending.duplicate_keys, 2u);
    const OrderScan descending = check_floats(layout, plus_first, SortOrder::descending, FloatOrder::ieee);
    EXPECT_FALSE(descending.first_disorder.has_value());
    EXPECT_EQ(descending.duplicate_keys, 2u);
    // A zero still ranks between the negatives and the positives.
    EXPECT_EQ(check_floats(layout, std::vector<T>{minus_zero, T(-1)}, SortOrder::ascending, FloatOrder::ieee).first_disorder,
              std::optional<std::uint64_t>(1));
    EXPECT_EQ(check_floats(layout, std::vector<T>{T(1), zero}, SortOrder::ascending, FloatOrder::ieee).first_disorder,
              std::optional<std::uint64_t>(1));
  }
}

TYPED_TEST(OrderCheckFloatOrderTest, NaNsAreAcceptedAsARunAfterTheLastNumberInBothOrders) {
  using T = TypeParam;
  using Bits = RadixBits<T>;
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T minus_nan = __builtin_bit_cast(T, Bits(__builtin_bit_cast(Bits, nan) | (Bits{1} << (8 * sizeof(T) - 1))));
  const T payload_nan = __builtin_bit_cast(T, Bits(__builtin_bit_cast(Bits, inf) | 5));  // signalling, payload 5
  for (const RecordLayout& layout : float_layouts<T>()) {
    for (FloatOrder float_order : kFloatOrders) {
      SCOPED_TRACE(layout_name(layout) + (float_order == FloatOrder::ieee ? ", ieee" : ", total"));
      const OrderScan ascending = check_floats(layout, std::vector<T>{-inf, T(0), inf, nan, minus_nan, payload_nan, nan},
                                               SortOrder::ascending, float_order);
      EXPECT_FALSE(ascending.first_disorder.has_value());
      // The NaNs are one key, but for bare keys in the total order, which order them by bit pattern
      // (there only the same bits are one key, as --unique compares them).
      const bool by_bits = !layout.equal_nans && float_order == FloatOrder::total;
      EXPECT_EQ(ascending.duplicate_keys, by_bits ? 0u : 3u);
      const OrderScan descending = check_floats(layout, std::vector<T>{inf, T(0), -inf, minus_nan, nan, nan},
                                                SortOrder::descending, float_order);
      EXPECT_FALSE(descending.first_disorder.has_value());
      EXPECT_EQ(descending.duplicate_keys, by_bits ? 1u : 2u);
      for (SortOrder order : kOrders) {
        SCOPED_TRACE(order_name(order));
        // A NaN first, or a number after the NaNs: out of order, in both directions.
        EXPECT_EQ(check_floats(layout, std::vector<T>{nan, T(1)}, order, float_order).first_disorder,
                  std::optional<std::uint64_t>(1));
        EXPECT_EQ(check_floats(layout, std::vector<T>{T(1), minus_nan, T(1)}, order, float_order).first_disorder,
                  std::optional<std::uint64_t>(2));
        EXPECT_EQ(check_floats(layout, std::vector<T>{minus_nan, -inf}, order, float_order).first_disorder,
                  std::optional<std::uint64_t>(1));
        EXPECT_FALSE(check_floats(layout, std::vector<T>{nan, nan}, order, float_order).first_disorder.has_value());
      }
    }
  }
}

// What np.sort writes (the numbers by operator<, the zeros in any order among themselves, then the
// NaNs) passes in IEEE order; in the total order only where no +0.0 precedes a -0.0.
TYPED_TEST(OrderCheckFloatOrderTest, NumpySortOutputPassesInIeeeOrder) {
  using T = TypeParam;
  std::mt19937_64 random(11);
  const T specials[] = {T(0), -T(0), T(1), T(-1), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::quiet_NaN(), -std::numeric_limits<T>::quiet_NaN()};
  std::vector<T> keys(3000);
  for (T& key : keys) key = random() % 2 ? specials[random() % std::size(specials)] : T(std::int64_t(random() % 2001) - 1000);
  // numpy's order: operator< with every NaN last. Not stable: the zeros come out in any order.
  std::sort(keys.begin(), keys.end(), [](T a, T b) { return a < b || (!std::isnan(a) && std::isnan(b)); });
  std::shuffle(std::find(keys.begin(), keys.end(), T(0)), std::find_if(keys.begin(), keys.end(), [](T k) { return k > 0; }),
               random);  // the zeros in any order
  for (const RecordLayout& layout : float_layouts<T>()) {
    SCOPED_TRACE(layout_name(layout));
    const auto records = float_records(layout, keys);
    EXPECT_FALSE(scan_order(records.data(), keys.size(), layout, SortOrder::ascending, FloatOrder::ieee).first_disorder);
    EXPECT_TRUE(scan_order(records.data(), keys.size(), layout, SortOrder::ascending, FloatOrder::total).first_disorder);
    // Descending with the NaNs last, as rmgsort writes it: -np.sort(-a).
    std::vector<T> reversed(keys.size());
    std::transform(keys.begin(), keys.end(), reversed.begin(), [](T k) { return std::isnan(k) ? k : -k; });
    const auto reversed_records = float_records(layout, reversed);
    EXPECT_FALSE(scan_order(reversed_records.data(), keys.size(), layout, SortOrder::descending, FloatOrder::ieee).first_disorder);
  }
}

// Integer and bytes keys have one order: --float-order changes nothing for them.
TEST(OrderCheckDisorder, IeeeOrderIsTheTotalOrderForIntegerAndBytesKeys) {
  for (const RecordLayout& layout : record_test_layouts()) {
    if (layout.key_type == KeyType::f32 || layout.key_type == KeyType::f64) continue;
    for (SortOrder order : kOrders) {
      SCOPED_TRACE(layout_name(layout) + ", " + order_name(order));
      const auto records = testing::random_records(layout, 40, 29);
      const auto sorted = testing::reference_sorted(records, layout, order);
      for (const auto* data : {&records, &sorted}) {
        const OrderScan total = scan_order(data->data(), 40, layout, order, FloatOrder::total);
        const OrderScan ieee = scan_order(data->data(), 40, layout, order, FloatOrder::ieee);
        EXPECT_EQ(ieee.first_disorder, total.first_disorder);
        EXPECT_EQ(ieee.duplicate_keys, total.duplicate_keys);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// host/key_format

template <class T>
std::string format_number(T value) {
  return format_key(reinterpret_cast<const std::byte*>(&value), KeySpec{KeyTypeOf<T>::value, sizeof(T)});
}

TEST(KeyFormat, IntegersInDecimal) {
  EXPECT_EQ(format_number<std::uint32_t>(0), "0");
  EXPECT_EQ(format_number<std::uint32_t>(4294967295u), "4294967295");
  EXPECT_EQ(format_number<std::uint64_t>(UINT64_MAX), "18446744073709551615");
  EXPECT_EQ(format_number<std::int32_t>(INT32_MIN), "-2147483648");
  EXPECT_EQ(format_number<std::int32_t>(-1), "-1");
  EXPECT_EQ(format_number<std::int64_t>(INT64_MIN), "-9223372036854775808");
  EXPECT_EQ(format_number<std::int64_t>(INT64_MAX), "9223372036854775807");
}

TEST(KeyFormat, FloatsShortestWithSignedZerosInfinitiesAndNaNs) {
  EXPECT_EQ(format_number(0.0f), "0");
  EXPECT_EQ(format_number(-0.0f), "-0");
  EXPECT_EQ(format_number(-0.0), "-0");
  EXPECT_EQ(format_number(0.1f), "0.1");
  EXPECT_EQ(format_number(0.1), "0.1");
  EXPECT_EQ(format_number(1.5), "1.5");
  EXPECT_EQ(format_number(std::numeric_limits<float>::infinity()), "inf");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(format_number(std::numeric_limits<float>::quiet_NaN()), "nan");
  EXPECT_EQ(format_number(__builtin_bit_cast(double, 0xfff800000000beefULL)), "-nan");
  EXPECT_EQ(format_number(__builtin_bit_cast(float, 0x7fa5a5a5u)), "nan");
  EXPECT_EQ(format_number(std::numeric_limits<float>::denorm_min()), "1e-45");
  EXPECT_EQ(format_number(std::numeric_limits<double>::denorm_min()), "5e-324");
  EXPECT_EQ(format_number(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  EXPECT_EQ(format_number(std::numeric_limits<double>::lowest()), "-1.7976931348623157e+308");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::min()), "-2.2250738585072014e-308");
}

template <class T>
void expect_round_trips(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  for (int i = 0; i < 100000; ++i) {
    const T value = __builtin_bit_cast(T, RadixBits<T>(random()));
    if (std::isnan(value)) continue;
    const std::string text = format_number(value);
    T back{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), back);
    ASSERT_TRUE(ec == std::errc() && end == text.data() + text.size()) << text;
    ASSERT_EQ(__builtin_bit_cast(RadixBits<T>, back), __builtin_bit_cast(RadixBits<T>, value)) << text;
  }
}

TEST(KeyFormat, FloatsReadBackAsTheSameBits) {
  expect_round_trips<float>(1);
  expect_round_trips<double>(2);
}

TEST(KeyFormat, BytesAsHexInTheirOrder) {
  const std::array<unsigned char, 32> bytes = {0x00, 0xff, 0x7f, 0x80, 0x01, 0xab};
  const auto* key = reinterpret_cast<const std::byte*>(bytes.data());
  EXPECT_EQ(format_key(key, {KeyType::bytes, 1}), "0x00");
  EXPECT_EQ(format_key(key, {KeyType::bytes, 3}), "0x00ff7f");
  EXPECT_EQ(format_key(key, {KeyType::bytes, 6}), "0x00ff7f8001ab");
  EXPECT_EQ(format_key(key, {KeyType::bytes, 32}), "0x00ff7f8001ab" + std::string(52, '0'));
}

}  // namespace
}  // namespace rmgsort
