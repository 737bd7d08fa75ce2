#include "host/radix_sort.hpp"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <random>

#include "generate/generate.hpp"
#include "host/radix_sort_config.hpp"
#include "tests/core/key_types.hpp"

namespace rmgsort {
namespace {

using testing::AllKeyTypes;
using testing::bits_of;

template <class T>
class RadixSortTest : public ::testing::Test {};
TYPED_TEST_SUITE(RadixSortTest, AllKeyTypes);

// Sorts `input` with radix_sort and checks it against std::sort: the same sequence of ranks (NaNs
// may stand in any order among themselves) and the same multiset of bit patterns.
template <class T>
void expect_sorts_like_std_sort(const std::vector<T>& input, SortOrder order, const std::string& what) {
  std::vector<T> sorted = input;
  radix_sort(sorted.data(), sorted.size(), order);

  std::vector<T> reference = input;
  if (order == SortOrder::ascending) {
    std::sort(reference.begin(), reference.end(), KeyLess<T, SortOrder::ascending>{});
  } else {
    std::sort(reference.begin(), reference.end(), KeyLess<T, SortOrder::descending>{});
  }
  ASSERT_EQ(sorted.size(), reference.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const auto got = order == SortOrder::ascending ? KeyOrder<T, SortOrder::ascending>::rank(sorted[i])
                                                   : KeyOrder<T, SortOrder::descending>::rank(sorted[i]);
    const auto want = order == SortOrder::ascending ? KeyOrder<T, SortOrder::ascending>::rank(reference[i])
                                                    : KeyOrder<T, SortOrder::descending>::rank(reference[i]);
    ASSERT_EQ(got, want) << what << ": first difference at index " << i << " of " << sorted.size();
  }
  auto sorted_bits = sorted;
  auto input_bits = input;
  const auto by_bits = [](T a, T b) { return bits_of(a) < bits_of(b); };
  std::sort(sorted_bits.begin(), sorted_bits.end(), by_bits);
  std::sort(input_bits.begin(), input_bits.end(), by_bits);
  ASSERT_TRUE(testing::same_bits(sorted_bits, input_bits)) << what << ": output is not a permutation of the input";
}

template <class T>
std::vector<T> generated(const char* distribution, std::size_t n, std::uint64_t seed) {
  std::vector<T> keys(n);
  generate_keys(keys.data(), 0, n, n, parse_distribution(distribution), seed);
  return keys;
}

TYPED_TEST(RadixSortTest, EmptyAndOneKey) {
  using T = TypeParam;
  expect_sorts_like_std_sort<T>({}, SortOrder::ascending, "empty");
  expect_sorts_like_std_sort<T>({T(7)}, SortOrder::descending, "one key");
}

TYPED_TEST(RadixSortTest, EveryDistributionBothOrdersAtSizesAroundTheThresholds) {
  using T = TypeParam;
  const char* distributions[] = {"uniform", "normal",  "zipf:0.5", "zipf:1.0", "zipf:2.0", "bits:0", "bits:1",
                                 "bits:8",  "bits:17", "bits:25",  "sorted",   "reverse",  "nearly-sorted",
                                 "zero",    "special"};
  // Around the insertion-sort, sequential and task thresholds of radix_sort_config.hpp.
  const std::size_t sizes[] = {2, 31, 32, 33, 255, 257, 4099, 65535, 65537, 300001};
  std::uint64_t seed = 1;
  for (const char* distribution : distributions) {
    for (std::size_t n : sizes) {
      for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
        const std::string what = std::string(distribution) + " n=" + std::to_string(n) +
                                 (order == SortOrder::ascending ? " ascending" : " descending");
        expect_sorts_like_std_sort(generated<T>(distribution, n, seed++), order, what);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TYPED_TEST(RadixSortTest, RandomSizesUpToAMillion) {
  using T = TypeParam;
  std::mt19937_64 random(7);
  for (int round = 0; round < 6; ++round) {
    const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 1000000)(random);
    expect_sorts_like_std_sort(generated<T>("uniform", n, random()), SortOrder::ascending, "uniform n=" + std::to_string(n));
    if (::testing::Test::HasFatalFailure()) return;
  }
  expect_sorts_like_std_sort(generated<T>("special", 1000000, 3), SortOrder::descending, "special n=1e6");
}

// Cache-sized ranges whose keys differ in many bits are sorted by LSD passes over the highest of
// them, then within the runs that share those (radix_sort_cache.hpp, sort_top_window): runs of
// a few keys, of just over and under the insertion sort's size, and of hundreds (a few clusters of
// top bits with spread low bits), equal keys among them.
TYPED_TEST(RadixSortTest, CacheSizedRangesOfClusteredKeys) {
  using T = TypeParam;
  using Bits = RadixBits<T>;
  constexpr int kBits = int(8 * sizeof(T));
  std::mt19937_64 random(23);
  for (std::size_t n : {std::size_t{512}, std::size_t{1000}, std::size_t{4099}, std::size_t{65536}}) {
    for (std::size_t clusters : {std::size_t{1}, std::size_t{3}, n / 33, n / 31, n / 4}) {
      std::vector<Bits> tops(std::max<std::size_t>(clusters, 1));
      for (Bits& top : tops) top = Bits(random()) & Bits(~Bits(0) << (kBits - 24));
      std::vector<T> keys(n);
      for (std::size_t i = 0; i < n; ++i) {
        Bits low = Bits(random()) & Bits(~Bits(0) >> 24);
        if (i % 5 == 0) low = 0;  // equal keys within a cluster
        keys[i] = __builtin_bit_cast(T, Bits(tops[i % tops.size()] | low));
      }
      for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
        expect_sorts_like_std_sort(keys, order, "n=" + std::to_string(n) + " clusters=" + std::to_string(clusters));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// Cache-sized ranges whose keys differ in at most kLsdMaxBits bits are sorted by as few LSD passes
// as digits of at most kMaxLsdDigitBits take, the bits shared evenly among them (radix_sort_cache.hpp,
// sort_lsd): every span of differing bits from one digit to kLsdMaxBits, at every position in the
// key (the top digit reaching past the span, and past the key's last bit), in ranges of 100, 700
// and 4099 keys (digits of at most 8, 10 and 11 bits), so that each split of the span into one,
// two or three digits is taken, with equal keys among them.
TYPED_TEST(RadixSortTest, CacheSizedRangesOfEverySpanOfDifferingBits) {
  using T = TypeParam;
  using Bits = RadixBits<T>;
  constexpr int kBits = int(8 * sizeof(T));
  std::mt19937_64 random(29);
  for (int span = 1; span <= radix_config::kLsdMaxBits; ++span) {
    for (int low : {0, 3, kBits - span}) {
      for (std::size_t n : {std::size_t{100}, std::size_t{700}, std::size_t{4099}}) {
        const Bits fixed = Bits(random()) & ~Bits(Bits(~Bits(0) >> (kBits - span)) << low);
        std::vector<T> keys(n);
        for (std::size_t i = 0; i < n; ++i) {
          const Bits varying = i % 7 == 0 ? Bits(0) : Bits(Bits(random()) >> (kBits - span));
          keys[i] = __builtin_bit_cast(T, Bits(fixed | Bits(varying << low)));
        }
        for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
          expect_sorts_like_std_sort(keys, order, "span=" + std::to_string(span) + " low=" + std::to_string(low) +
                                                      " n=" + std::to_string(n));
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

TYPED_TEST(RadixSortTest, OneValueFillingMostOfTheInput) {
  using T = TypeParam;
  auto keys = generated<T>("uniform", 400000, 11);
  for (std::size_t i = 0; i < keys.size(); i += 1 + i % 7) keys[i] = keys[0];
  expect_sorts_like_std_sort(keys, SortOrder::ascending, "mostly one value");
}

TYPED_TEST(RadixSortTest, ResultIsIndependentOfTheThreadCount) {
  using T = TypeParam;
  const auto input = generated<T>("zipf:1.0", 500000, 5);
  std::vector<std::vector<T>> results;
  for (int threads : {1, 2, 4}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    std::vector<T> keys = input;
    radix_sort(keys.data(), keys.size(), SortOrder::ascending);
    results.push_back(std::move(keys));
  }
  EXPECT_TRUE(testing::same_bits(results[0], results[1]));
  EXPECT_TRUE(testing::same_bits(results[0], results[2]));
}

// Regression guard for the float encoding: -0.0 must come before +0.0 and NaNs after +inf, also
// when they sit in one bucket with many equal neighbours.
TEST(RadixSortFloatTest, SignedZerosInfinitiesAndNaNs) {
  std::vector<float> keys;
  for (int i = 0; i < 5000; ++i) {
    keys.push_back(0.0f);
    keys.push_back(-0.0f);
    keys.push_back(__builtin_bit_cast(float, 0xffc00001u));
    keys.push_back(std::numeric_limits<float>::infinity());
    keys.push_back(-std::numeric_limits<float>::infinity());
    keys.push_back(__builtin_bit_cast(float, 0x7fc00000u + std::uint32_t(i)));
  }
  radix_sort(keys.data(), keys.size(), SortOrder::ascending);
  for (int i = 0; i < 5000; ++i) EXPECT_EQ(keys[std::size_t(i)], -std::numeric_limits<float>::infinity());
  for (int i = 5000; i < 10000; ++i) EXPECT_TRUE(std::signbit(keys[std::size_t(i)]) && keys[std::size_t(i)] == 0);
  for (int i = 10000; i < 15000; ++i) EXPECT_TRUE(!std::signbit(keys[std::size_t(i)]) && keys[std::size_t(i)] == 0);
  for (int i = 15000; i < 20000; ++i) EXPECT_EQ(keys[std::size_t(i)], std::numeric_limits<float>::infinity());
  for (int i = 20000; i < 30000; ++i) EXPECT_TRUE(std::isnan(keys[std::size_t(i)]));
}

}  // namespace
}  // namespace rmgsort
