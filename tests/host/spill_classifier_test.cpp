// SpillClassifier: a chunk's keys grouped by round, each round's keys in input order, the rounds'
// ends and extents as a plain loop finds them, for every key type, both orders, chunks of several
// blocks and of none, empty rounds and a heavy value.
#include "host/spill_classifier.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "../core/key_types.hpp"

namespace rmgsort {
namespace {

template <class T>
class SpillClassifierTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpillClassifierTest, testing::AllKeyTypes);

// N keys of random bit patterns (NaNs and infinities among the floats), every third one the same.
template <class T>
std::vector<T> keys_of(std::size_t n) {
  using Bits = RadixBits<T>;
  std::mt19937_64 random(7);
  std::vector<T> keys(n);
  const auto heavy = Bits(random());
  for (std::size_t i = 0; i < n; ++i) {
    const Bits bits = i % 3 == 0 ? heavy : Bits(random());
    std::memcpy(&keys[i], &bits, sizeof(T));
  }
  return keys;
}

template <class T, SortOrder kOrder>
void expect_classified(const std::vector<T>& keys, std::size_t rounds) {
  using Bits = RadixBits<T>;
  std::vector<Bits> sample;
  for (std::size_t i = 0; i < keys.size(); i += 97) sample.push_back(KeyOrder<T, kOrder>::encode(keys[i]));
  const Splitters<Bits> splitters = Splitters<Bits>::from_sample(sample, rounds, 0, 0);
  // What a plain loop finds, each round's keys in input order.
  std::vector<std::vector<T>> expected(splitters.rounds());
  std::vector<RoundExtent<Bits>> expected_extents(splitters.rounds());
  for (const T key : keys) {
    const Bits encoded = KeyOrder<T, kOrder>::encode(key);
    const std::size_t r = splitters.round_of(encoded);
    expected[r].push_back(key);
    expected_extents[r].add({1, encoded, encoded});
  }

  const SpillClassifier<T> classifier(splitters, kOrder);
  std::vector<RoundExtent<Bits>> extents(splitters.rounds());
  std::vector<T> grouped(keys.size());
  const std::vector<std::uint64_t> ends = classifier.classify(
      {reinterpret_cast<const std::byte*>(keys.data()), keys.size() * sizeof(T)},
      reinterpret_cast<std::byte*>(grouped.data()), extents);
  ASSERT_EQ(ends.size(), splitters.rounds());
  std::uint64_t begin = 0;
  for (std::size_t r = 0; r < splitters.rounds(); ++r) {
    SCOPED_TRACE("round " + std::to_string(r));
    ASSERT_EQ(ends[r] - begin, expected[r].size() * sizeof(T));
    const std::vector<T> got(grouped.begin() + std::ptrdiff_t(begin / sizeof(T)),
                             grouped.begin() + std::ptrdiff_t(ends[r] / sizeof(T)));
    EXPECT_TRUE(testing::same_bits(got, expected[r]));
    EXPECT_EQ(extents[r].keys, expected_extents[r].keys);
    EXPECT_EQ(extents[r].lowest, expected_extents[r].lowest);
    EXPECT_EQ(extents[r].highest, expected_extents[r].highest);
    begin = ends[r];
  }
}

TYPED_TEST(SpillClassifierTest, GroupsByRoundInInputOrder) {
  using T = TypeParam;
  // Several blocks of 2^16 keys and a partial one; fewer keys than a block; none.
  for (const std::size_t n : {std::size_t{3} * 65536 + 123, std::size_t{1000}, std::size_t{0}}) {
    SCOPED_TRACE(std::to_string(n) + " keys");
    const std::vector<T> keys = keys_of<T>(n);
    expect_classified<T, SortOrder::ascending>(keys, 9);
    expect_classified<T, SortOrder::descending>(keys, 64);
  }
}

TYPED_TEST(SpillClassifierTest, ExtentsAddUpOverChunks) {
  using T = TypeParam;
  using Bits = RadixBits<T>;
  // Four rounds evenly over [0, twice the lowest key]: the first is empty, the last holds most keys.
  const std::vector<T> keys = keys_of<T>(5000);
  std::vector<Bits> encoded;
  for (const T key : keys) encoded.push_back(KeyOrder<T, SortOrder::ascending>::encode(key));
  const Bits lowest = *std::min_element(encoded.begin(), encoded.end());
  ASSERT_GT(lowest, Bits(8));
  const Splitters<Bits> splitters = Splitters<Bits>::evenly(4, 0, Bits(2 * lowest));
  ASSERT_EQ(splitters.rounds(), 4u);
  const SpillClassifier<T> classifier(splitters, SortOrder::ascending);
  std::vector<RoundExtent<Bits>> extents(splitters.rounds());
  std::vector<T> grouped(keys.size());
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(keys.data()), keys.size() * sizeof(T));
  // Two chunks, one after the other: the extents are those of all keys.
  (void)classifier.classify(bytes.first(1200 * sizeof(T)), reinterpret_cast<std::byte*>(grouped.data()), extents);
  (void)classifier.classify(bytes.subspan(1200 * sizeof(T)), reinterpret_cast<std::byte*>(grouped.data()), extents);
  std::vector<RoundExtent<Bits>> expected(splitters.rounds());
  for (const Bits key : encoded) expected[splitters.round_of(key)].add({1, key, key});
  EXPECT_EQ(extents[0].keys, 0u);
  std::uint64_t total = 0;
  for (std::size_t r = 0; r < splitters.rounds(); ++r) {
    EXPECT_EQ(extents[r].keys, expected[r].keys);
    EXPECT_EQ(extents[r].lowest, expected[r].lowest);
    EXPECT_EQ(extents[r].highest, expected[r].highest);
    total += extents[r].keys;
  }
  EXPECT_EQ(total, keys.size());
}

}  // namespace
}  // namespace rmgsort
