#include "core/key_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "tests/core/key_types.hpp"

namespace rmgsort {
namespace {

using testing::AllKeyTypes;
using testing::bits_of;

template <class T>
class KeyOrderTest : public ::testing::Test {};
TYPED_TEST_SUITE(KeyOrderTest, AllKeyTypes);

// Every value the order singles out, listed in ascending order (NaNs excluded).
template <class T>
std::vector<T> ascending_landmarks() {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_floating_point_v<T>) {
    return {-L::infinity(), L::lowest(), T(-1), -L::min(), -L::denorm_min(), T(-0.0), T(0.0),
            L::denorm_min(), L::min(),   L::epsilon(), T(1), L::max(), L::infinity()};
  } else if constexpr (std::is_signed_v<T>) {
    return {L::min(), T(L::min() + 1), T(-1), T(0), T(1), T(L::max() - 1), L::max()};
  } else {
    return {T(0), T(1), T(2), T(L::max() / 2), T(L::max() - 1), L::max()};
  }
}

template <class T>
std::vector<T> nans() {
  using Bits = RadixBits<T>;
  if constexpr (sizeof(T) == 4) {
    return {__builtin_bit_cast(T, Bits(0x7fc00000)), __builtin_bit_cast(T, Bits(0xffc00000)),
            __builtin_bit_cast(T, Bits(0x7f800001)), __builtin_bit_cast(T, Bits(0xffffffff)),
            __builtin_bit_cast(T, Bits(0xffa5a5a5))};
  } else {
    return {__builtin_bit_cast(T, Bits(0x7ff8000000000000)), __builtin_bit_cast(T, Bits(0xfff8000000000000)),
            __builtin_bit_cast(T, Bits(0x7ff0000000000001)), __builtin_bit_cast(T, Bits(0xffffffffffffffff)),
            __builtin_bit_cast(T, Bits(0xfff5a5a5a5a5a5a5))};
  }
}

TYPED_TEST(KeyOrderTest, AscendingEncodingIsStrictlyIncreasingOnLandmarks) {
  using T = TypeParam;
  using Order = KeyOrder<T, SortOrder::ascending>;
  const auto keys = ascending_landmarks<T>();
  for (std::size_t i = 1; i < keys.size(); ++i)
    EXPECT_LT(Order::encode(keys[i - 1]), Order::encode(keys[i])) << "landmark " << i;
}

TYPED_TEST(KeyOrderTest, DescendingReversesNumbers) {
  using T = TypeParam;
  using Order = KeyOrder<T, SortOrder::descending>;
  const auto keys = ascending_landmarks<T>();
  for (std::size_t i = 1; i < keys.size(); ++i)
    EXPECT_GT(Order::encode(keys[i - 1]), Order::encode(keys[i])) << "landmark " << i;
}

TYPED_TEST(KeyOrderTest, NaNsOfEverySignAndPayloadComeLastInBothOrders) {
  using T = TypeParam;
  if constexpr (std::is_floating_point_v<T>) {
    for (const T nan : nans<T>()) {
      ASSERT_TRUE(std::isnan(nan));
      for (const T number : ascending_landmarks<T>()) {
        EXPECT_GT((KeyOrder<T, SortOrder::ascending>::encode(nan)), (KeyOrder<T, SortOrder::ascending>::encode(number)));
        EXPECT_GT((KeyOrder<T, SortOrder::descending>::encode(nan)),
                  (KeyOrder<T, SortOrder::descending>::encode(number)));
      }
      EXPECT_GE((KeyOrder<T, SortOrder::ascending>::encode(nan)), (KeyOrder<T, SortOrder::ascending>::kFirstNaN));
    }
  }
}

TYPED_TEST(KeyOrderTest, RankTreatsAllNaNsAsEqualButSeparatesSignedZeros) {
  using T = TypeParam;
  if constexpr (std::is_floating_point_v<T>) {
    using Order = KeyOrder<T, SortOrder::ascending>;
    const auto all_nans = nans<T>();
    for (const T nan : all_nans) EXPECT_EQ(Order::rank(nan), Order::rank(all_nans[0]));
    EXPECT_LT(Order::rank(T(-0.0)), Order::rank(T(0.0)));
    EXPECT_TRUE((KeyLess<T, SortOrder::descending>{}(T(0.0), T(-0.0))));
  }
}

TYPED_TEST(KeyOrderTest, DecodeInvertsEncodeBitForBit) {
  using T = TypeParam;
  using Bits = RadixBits<T>;
  std::mt19937_64 random(42);
  std::vector<T> keys = ascending_landmarks<T>();
  if constexpr (std::is_floating_point_v<T>) {
    const auto all_nans = nans<T>();
    keys.insert(keys.end(), all_nans.begin(), all_nans.end());
  }
  for (int i = 0; i < 100000; ++i) keys.push_back(__builtin_bit_cast(T, Bits(random())));
  for (const T key : keys) {
    EXPECT_EQ(bits_of((KeyOrder<T, SortOrder::ascending>::decode(KeyOrder<T, SortOrder::ascending>::encode(key)))),
              bits_of(key));
    EXPECT_EQ(bits_of((KeyOrder<T, SortOrder::descending>::decode(KeyOrder<T, SortOrder::descending>::encode(key)))),
              bits_of(key));
  }
}

// Exhaustive over all 2^32 patterns would take too long in CI; the boundaries of each region of the
// float encoding are where a bijection breaks, so check them and their neighbours.
TEST(KeyOrderFloatTest, EncodingIsABijectionAroundRegionBoundaries) {
  using Order = KeyOrder<float, SortOrder::ascending>;
  for (std::uint32_t centre : {0x00000000u, 0x007fffffu, 0x7f800000u, 0x7fffffffu, 0x80000000u, 0x807fffffu,
                               0xff800000u, 0xffffffffu, 0x7f7fffffu, 0xff7fffffu}) {
    for (std::uint32_t d = 0; d < 64; ++d) {
      for (std::uint32_t bits : {centre + d, centre - d}) {
        const float key = __builtin_bit_cast(float, bits);
        EXPECT_EQ(__builtin_bit_cast(std::uint32_t, Order::decode(Order::encode(key))), bits);
        const std::uint32_t radix = bits;  // every radix value must also decode and re-encode
        EXPECT_EQ(Order::encode(Order::decode(radix)), radix);
      }
    }
  }
}

}  // namespace
}  // namespace rmgsort
