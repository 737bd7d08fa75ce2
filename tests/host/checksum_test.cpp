#include "host/checksum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/key_order.hpp"
#include "tests/core/key_types.hpp"

namespace rmgsort {
namespace {

template <class T>
class ChecksumTest : public ::testing::Test {};
TYPED_TEST_SUITE(ChecksumTest, testing::AllKeyTypes);

template <class T>
KeyChecksum checksum_of(const std::vector<T>& keys) {
  return checksum_keys(reinterpret_cast<const std::byte*>(keys.data()), keys.size() * sizeof(T), sizeof(T));
}

template <class T>
std::vector<T> random_keys(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<T> keys(n);
  for (auto& key : keys) key = __builtin_bit_cast(T, RadixBits<T>(random()));
  return keys;
}

TYPED_TEST(ChecksumTest, IndependentOfOrderAndOfHowTheKeysAreSplit) {
  using T = TypeParam;
  auto keys = random_keys<T>(300000, 1);
  const KeyChecksum whole = checksum_of(keys);
  EXPECT_EQ(whole.keys, keys.size());
  std::mt19937_64 random(2);
  std::shuffle(keys.begin(), keys.end(), random);
  EXPECT_EQ(checksum_of(keys), whole);
  KeyChecksum pieces;
  const auto* bytes = reinterpret_cast<const std::byte*>(keys.data());
  for (std::size_t begin = 0; begin < keys.size();) {
    const std::size_t n = std::min<std::size_t>(keys.size() - begin, 1 + begin % 9973);
    pieces += checksum_keys(bytes + begin * sizeof(T), n * sizeof(T), sizeof(T));
    begin += n;
  }
  EXPECT_EQ(pieces, whole);
}

TYPED_TEST(ChecksumTest, DetectsAChangedDroppedOrDuplicatedKey) {
  using T = TypeParam;
  const auto keys = random_keys<T>(100000, 3);
  const KeyChecksum original = checksum_of(keys);

  auto changed = keys;
  changed[500] = __builtin_bit_cast(T, RadixBits<T>(testing::bits_of(changed[500]) ^ (RadixBits<T>(1) << 17)));
  EXPECT_NE(checksum_of(changed), original);

  auto dropped = keys;
  dropped.pop_back();
  EXPECT_NE(checksum_of(dropped), original);

  auto duplicated = keys;
  duplicated[1] = duplicated[0];  // same count, one key replaced by a copy of another
  EXPECT_NE(checksum_of(duplicated), original);

  // Flipping the lowest bit of two keys whose lowest bits differ keeps the sum of bits and the
  // XOR of all keys, but not the multiset.
  std::size_t partner = 1;
  while (partner < keys.size() && ((testing::bits_of(keys[0]) ^ testing::bits_of(keys[partner])) & 1) == 0) ++partner;
  ASSERT_LT(partner, keys.size());
  auto flipped = keys;
  flipped[0] = __builtin_bit_cast(T, RadixBits<T>(testing::bits_of(keys[0]) ^ 1));
  flipped[partner] = __builtin_bit_cast(T, RadixBits<T>(testing::bits_of(keys[partner]) ^ 1));
  EXPECT_NE(checksum_of(flipped), original);
}

TEST(ChecksumTest, EmptyInputHasTheZeroChecksum) {
  const KeyChecksum none = checksum_keys(nullptr, 0, 8);
  EXPECT_EQ(none.keys, 0u);
  EXPECT_EQ(none.hex(), std::string(32, '0'));
}

}  // namespace
}  // namespace rmgsort
