#include "host/order_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tests/core/key_types.hpp"

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

}  // namespace
}  // namespace rmgsort
