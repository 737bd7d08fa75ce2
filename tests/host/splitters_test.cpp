// Splitters from a sample: ordered, value-disjoint rounds; heavy values alone in their round; a
// blind sample still splits a known value range (so that partitioning again makes progress).
#include "host/splitters.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

namespace rmgsort {
namespace {

template <class Bits>
class SplittersTest : public ::testing::Test {};
using BitsTypes = ::testing::Types<std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(SplittersTest, BitsTypes);

TYPED_TEST(SplittersTest, UniformSampleGivesTheRoundsAskedForInOrder) {
  using Bits = TypeParam;
  std::mt19937_64 random(1);
  std::vector<Bits> sample(100000);
  for (Bits& v : sample) v = Bits(random());
  const std::vector<Bits> keys = sample;
  const auto splitters = Splitters<Bits>::from_sample(sample, 10, 0, 0);
  EXPECT_EQ(splitters.rounds(), 10u);
  std::vector<std::size_t> sizes(splitters.rounds());
  for (Bits k : keys) ++sizes[splitters.round_of(k)];
  for (std::size_t size : sizes) {
    EXPECT_GT(size, 9000u);
    EXPECT_LT(size, 11000u);
  }
  // Ordered: round_of never decreases with the key.
  for (std::size_t i = 1; i < sample.size(); ++i) EXPECT_LE(splitters.round_of(sample[i - 1]), splitters.round_of(sample[i]));
}

TYPED_TEST(SplittersTest, HeavyValueGetsARoundOfItsOwn) {
  using Bits = TypeParam;
  std::vector<Bits> sample;
  for (Bits v = 0; v < 1000; ++v) sample.push_back(v * 10);
  sample.insert(sample.end(), 5000, Bits(5000));
  const auto splitters = Splitters<Bits>::from_sample(sample, 8, 0, 0);
  const std::size_t heavy = splitters.round_of(5000);
  EXPECT_NE(splitters.round_of(4999), heavy);
  EXPECT_NE(splitters.round_of(5001), heavy);
}

TYPED_TEST(SplittersTest, ExtremeValuesAreHandled) {
  using Bits = TypeParam;
  constexpr Bits kMax = std::numeric_limits<Bits>::max();
  std::vector<Bits> sample(1000, kMax);
  sample.insert(sample.end(), 1000, Bits(0));
  const auto splitters = Splitters<Bits>::from_sample(sample, 4, 0, kMax);
  EXPECT_LT(splitters.round_of(0), splitters.round_of(kMax));
  for (std::size_t i = 1; i < splitters.bounds().size(); ++i) EXPECT_LT(splitters.bounds()[i - 1], splitters.bounds()[i]);
}

TYPED_TEST(SplittersTest, BlindSampleSplitsTheKnownRange) {
  using Bits = TypeParam;
  std::vector<Bits> none;
  const auto splitters = Splitters<Bits>::from_sample(none, 4, 100, 101);
  EXPECT_EQ(splitters.rounds(), 2u);
  EXPECT_EQ(splitters.round_of(100), 0u);
  EXPECT_EQ(splitters.round_of(101), 1u);
  std::vector<Bits> one_value(50, Bits(7));
  const auto single = Splitters<Bits>::from_sample(one_value, 4, 7, 7);
  EXPECT_LE(single.rounds(), 3u) << "at most: below the value, the value, above it";
  EXPECT_NE(single.round_of(6), single.round_of(7));
  EXPECT_NE(single.round_of(7), single.round_of(8));
}

TYPED_TEST(SplittersTest, HeavyValuesNeverMakeMoreRoundsThanAskedFor) {
  using Bits = TypeParam;
  // 40 values of more than a share each: two bounds each would make 80+ rounds.
  std::vector<Bits> sample;
  for (Bits v = 0; v < 40; ++v) sample.insert(sample.end(), 100, Bits(1000 + 10 * v));
  for (Bits v = 0; v < 200; ++v) sample.push_back(Bits(3 * v));
  sample.insert(sample.end(), 2000, Bits(5000));  // a third of the sample
  for (const std::size_t rounds : {2u, 3u, 8u, 64u}) {
    std::vector<Bits> copy = sample;
    const auto splitters = Splitters<Bits>::from_sample(copy, rounds, 0, 0);
    EXPECT_LE(splitters.rounds(), rounds);
    EXPECT_GE(splitters.rounds(), 2u);
    for (std::size_t i = 1; i < splitters.bounds().size(); ++i) EXPECT_LT(splitters.bounds()[i - 1], splitters.bounds()[i]);
  }
  std::vector<Bits> copy = sample;
  const auto splitters = Splitters<Bits>::from_sample(copy, 64, 0, 0);
  EXPECT_NE(splitters.round_of(4999), splitters.round_of(5000)) << "the heaviest value still gets a round of its own";
  EXPECT_NE(splitters.round_of(5000), splitters.round_of(5001));
}

TYPED_TEST(SplittersTest, EvenlyDividesTheRange) {
  using Bits = TypeParam;
  constexpr Bits kMax = std::numeric_limits<Bits>::max();
  for (const auto& [lowest, highest, rounds] : std::vector<std::tuple<Bits, Bits, std::size_t>>{
           {0, kMax, 64}, {100, 101, 64}, {5, 1005, 7}, {kMax - 3, kMax, 2}, {0, 1000, 1000}, {0, 1000, 3000}}) {
    const auto splitters = Splitters<Bits>::evenly(rounds, lowest, highest);
    ASSERT_GE(splitters.rounds(), 2u);
    EXPECT_LE(splitters.rounds(), rounds);
    const std::vector<Bits>& bounds = splitters.bounds();
    EXPECT_GT(bounds.front(), lowest);
    EXPECT_LE(bounds.back(), highest);
    // Every round's range, [lowest or a bound, the next bound - 1 or highest], is at most
    // (highest - lowest) / rounds wide.
    const Bits widest = Bits((highest - lowest) / rounds);
    Bits from = lowest;
    for (const Bits bound : bounds) {
      EXPECT_LE(Bits(bound - 1 - from), widest);
      from = bound;
    }
    EXPECT_LE(Bits(highest - from), widest);
  }
  EXPECT_EQ(Splitters<Bits>::evenly(64, 7, 7).rounds(), 1u);
}

TYPED_TEST(SplittersTest, OneRoundAskedForGivesOne) {
  using Bits = TypeParam;
  std::vector<Bits> sample{1, 2, 3};
  EXPECT_EQ(Splitters<Bits>::from_sample(sample, 1, 0, 3).rounds(), 1u);
}

// round_of is upper_bound over the bounds, for every count of bounds from 0 to 40 (odd, even, powers
// of two) and values below, at, between and above them, the type's extremes included.
TYPED_TEST(SplittersTest, RoundOfCountsTheBoundsAtOrBelowTheValue) {
  using Bits = TypeParam;
  constexpr Bits kMax = std::numeric_limits<Bits>::max();
  for (std::size_t rounds = 1; rounds <= 41; ++rounds) {
    const Splitters<Bits> splitters = Splitters<Bits>::evenly(rounds, 0, kMax);
    const std::vector<Bits>& bounds = splitters.bounds();
    std::vector<Bits> values{0, 1, kMax, Bits(kMax - 1)};
    for (const Bits bound : bounds) {
      values.push_back(bound);
      values.push_back(Bits(bound - 1));
      values.push_back(Bits(bound + 1));
    }
    for (const Bits value : values) {
      const auto expected = std::size_t(std::upper_bound(bounds.begin(), bounds.end(), value) - bounds.begin());
      EXPECT_EQ(splitters.round_of(value), expected) << bounds.size() << " bounds, value " << value;
    }
  }
}

}  // namespace
}  // namespace rmgsort
