// The C++ comparators README.md gives (under `check`) for checking rmgsort's order of f32/f64 keys
// against std::sort: std::stable_sort with them must give what the CPU engines give (the radix sort
// of bare keys, the pair sort of records) and the order of compare_ranks, on the values where orders
// go wrong (-0.0, NaNs of both signs and several payloads, infinities, denormals), both directions.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <type_traits>
#include <vector>

#include "host/order_check.hpp"
#include "host/pair_sort.hpp"
#include "host/radix_sort.hpp"
#include "tests/core/key_types.hpp"
#include "tests/host/record_test_layouts.hpp"

namespace rmgsort {
namespace {

// ---- README.md's comparators, word for word ----------------------------------------------------
// rmgsort's order of f32/f64 keys: -inf < ... < -0.0 < +0.0 < ... < +inf, then every NaN; with
// descending (-r) the numbers reversed, the NaNs still last. All NaNs are equal here: std::stable_sort
// with it gives rmgsort's output of records (--record-size, a structured .npy's --key) byte for byte.
template <class F>
bool rmgsort_less(F a, F b, bool descending = false) {
  if (std::isnan(a) || std::isnan(b)) return !std::isnan(a) && std::isnan(b);
  if (a == b) return std::signbit(a) != std::signbit(b) && std::signbit(a) != descending;  // -0.0 and +0.0
  return descending ? b < a : a < b;
}

// Bare keys (-t f32/f64 alone, a .npy array of <f4/<f8) also have their NaNs ordered, by bit
// pattern: positive NaNs by increasing bits, then negative NaNs by decreasing bits, in both
// directions. A total order of the bit patterns: std::sort with it gives rmgsort's output bit for bit.
template <class F>
bool rmgsort_bare_less(F a, F b, bool descending = false) {
  if (!std::isnan(a) || !std::isnan(b)) return rmgsort_less(a, b, descending);
  using U = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
  const U x = std::bit_cast<U>(a), y = std::bit_cast<U>(b);
  if (std::signbit(a) != std::signbit(b)) return std::signbit(b);
  return std::signbit(a) ? y < x : x < y;
}
// ---- end of README.md's comparators -------------------------------------------------------------

constexpr SortOrder kOrders[] = {SortOrder::ascending, SortOrder::descending};

template <class T>
class OrderCheckComparatorTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(OrderCheckComparatorTest, FloatTypes);

// N keys: two thirds from the edge patterns and more NaNs (both signs, quiet and signalling, small
// and large payloads), the rest random bit patterns (about 1 in 256 of them a NaN too).
template <class T>
std::vector<T> special_keys(std::size_t n, std::uint64_t seed) {
  using Bits = RadixBits<T>;
  std::vector<std::uint64_t> patterns = testing::edge_bit_patterns(KeyTypeOf<T>::value);
  const Bits exponent = __builtin_bit_cast(Bits, std::numeric_limits<T>::infinity());
  const Bits sign = Bits{1} << (8 * sizeof(T) - 1);
  for (Bits payload : {Bits{1}, Bits{2}, Bits{3}, Bits(~exponent & ~sign), Bits((~exponent & ~sign) - 1)}) {
    patterns.push_back(exponent | payload);
    patterns.push_back(sign | exponent | payload);
  }
  std::mt19937_64 random(seed);
  std::vector<T> keys(n);
  for (T& key : keys) {
    const Bits bits = random() % 3 ? Bits(patterns[random() % patterns.size()]) : Bits(random());
    key = __builtin_bit_cast(T, bits);
  }
  return keys;
}

const char* order_name(SortOrder order) { return order == SortOrder::ascending ? "ascending" : "descending"; }

TYPED_TEST(OrderCheckComparatorTest, BareKeysSortedWithItAreTheRadixSortsOutput) {
  using T = TypeParam;
  // 300000 keys take the radix sort's parallel passes.
  for (std::size_t n : {0, 1, 7, 5000, 300000}) {
    for (SortOrder order : kOrders) {
      SCOPED_TRACE(std::to_string(n) + " keys, " + order_name(order));
      const bool descending = order == SortOrder::descending;
      std::vector<T> engine = special_keys<T>(n, n + 3);
      std::vector<T> reference = engine;
      radix_sort(engine.data(), n, order);
      std::stable_sort(reference.begin(), reference.end(),
                       [descending](T a, T b) { return rmgsort_bare_less(a, b, descending); });
      EXPECT_TRUE(testing::same_bits(engine, reference));
      // The order check agrees that it is sorted.
      const auto* bytes = reinterpret_cast<const std::byte*>(reference.data());
      EXPECT_FALSE(scan_order(bytes, n, RecordLayout::bare_key(KeyTypeOf<T>::value), order).first_disorder);
    }
  }
}

// RECORDS of LAYOUT stably sorted by rmgsort_less on their keys.
template <class T>
std::vector<std::byte> sorted_with_comparator(const std::vector<std::byte>& records, const RecordLayout& layout,
                                              SortOrder order) {
  const std::size_t size = layout.record_size, n = records.size() / size;
  const auto key = [&](std::size_t i) {
    T value;
    std::memcpy(&value, records.data() + i * size + layout.key_offset, sizeof(T));
    return value;
  };
  std::vector<std::size_t> index(n);
  std::iota(index.begin(), index.end(), std::size_t{0});
  const bool descending = order == SortOrder::descending;
  std::stable_sort(index.begin(), index.end(),
                   [&](std::size_t a, std::size_t b) { return rmgsort_less(key(a), key(b), descending); });
  std::vector<std::byte> sorted(records.size());
  for (std::size_t j = 0; j < n; ++j) std::memcpy(sorted.data() + j * size, records.data() + index[j] * size, size);
  return sorted;
}

// Records of LAYOUT whose keys are special_keys and whose other bytes tell the records apart.
template <class T>
std::vector<std::byte> special_records(const RecordLayout& layout, std::size_t n, std::uint64_t seed) {
  std::vector<std::byte> records = testing::random_records(layout, n, seed);
  const std::vector<T> keys = special_keys<T>(n, seed);
  for (std::size_t i = 0; i < n; ++i)
    std::memcpy(records.data() + i * layout.record_size + layout.key_offset, &keys[i], sizeof(T));
  return records;
}

TYPED_TEST(OrderCheckComparatorTest, RecordsSortedWithItAreInTheOrderOfCompareRanks) {
  using T = TypeParam;
  const KeySpec spec{KeyTypeOf<T>::value, sizeof(T)};
  for (const RecordLayout& layout : {RecordLayout::of(spec, sizeof(T) + 1, 1), RecordLayout::of(spec, 13, 3),
                                     RecordLayout::of(spec, 100, 100 - sizeof(T))}) {
    for (SortOrder order : kOrders) {
      for (std::size_t n : {0, 1, 7, 3000}) {
        SCOPED_TRACE(testing::layout_name(layout) + ", " + order_name(order) + ", " + std::to_string(n) + " records");
        const auto records = special_records<T>(layout, n, n + 5);
        const auto sorted = sorted_with_comparator<T>(records, layout, order);
        EXPECT_EQ(sorted, testing::reference_sorted(records, layout, order));
        EXPECT_FALSE(scan_order(sorted.data(), n, layout, order).first_disorder);
      }
    }
  }
}

// f32 keys in 8-byte records are sorted as pairs (core/record_pair.hpp) on the CPU.
TEST(OrderCheckComparator, RecordsSortedWithItAreThePairSortsOutput) {
  for (std::size_t offset : {0, 3, 4}) {
    const RecordLayout layout = RecordLayout::of({KeyType::f32, 4}, 8, offset);
    for (SortOrder order : kOrders) {
      for (std::size_t n : {1, 7, 3000, 200000}) {
        SCOPED_TRACE(testing::layout_name(layout) + ", " + order_name(order) + ", " + std::to_string(n) + " records");
        std::vector<std::byte> engine = special_records<float>(layout, n, n + 7);
        const auto reference = sorted_with_comparator<float>(engine, layout, order);
        std::vector<unsigned __int128> work(pair_sort_bytes(n) / sizeof(unsigned __int128));  // 16-byte aligned
        sort_records_as_pairs(engine.data(), n, layout, order, reinterpret_cast<std::byte*>(work.data()));
        EXPECT_EQ(engine, reference);
      }
    }
  }
}

}  // namespace
}  // namespace rmgsort
