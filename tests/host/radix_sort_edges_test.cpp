// radix_sort (host/radix_sort.hpp) at the edges of its in-place algorithm: sizes around each of its
// thresholds (the cache-sized base case, the stripe size, the block), inputs found already in order
// or in reverse order (and those that just miss), a digit chosen from a sample that misses the
// leading differing bit, more threads than cores. Reference: the keys sorted by their radix bits
// (KeyOrder::encode, a bijection), so the expected output is exact, bit for bit.
#include <gtest/gtest.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <vector>

#include "generate/generate.hpp"
#include "tests/generate/generated_keys.hpp"
#include "host/radix_sort.hpp"
#include "host/radix_sort_config.hpp"
#include "tests/core/key_types.hpp"

namespace rmgsort {
namespace {

using testing::AllKeyTypes;

template <class T>
class RadixSortEdgesTest : public ::testing::Test {};
TYPED_TEST_SUITE(RadixSortEdgesTest, AllKeyTypes);

template <class T, SortOrder kOrder>
std::vector<T> reference_sorted(std::vector<T> keys) {
  std::stable_sort(keys.begin(), keys.end(),
                   [](T a, T b) { return KeyOrder<T, kOrder>::encode(a) < KeyOrder<T, kOrder>::encode(b); });
  return keys;
}

// Sorts `input` in both orders, telling progress, and expects the reference's bytes and every key told.
template <class T>
void expect_sorted(const std::vector<T>& input, const std::string& what) {
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    std::vector<T> keys = input;
    std::atomic<std::uint64_t> told{0};
    radix_sort(keys.data(), keys.size(), order, [&](std::size_t n) { told.fetch_add(n); });
    const auto want = order == SortOrder::ascending ? reference_sorted<T, SortOrder::ascending>(input)
                                                    : reference_sorted<T, SortOrder::descending>(input);
    const std::string how = what + (order == SortOrder::ascending ? ", ascending" : ", descending");
    ASSERT_TRUE(testing::same_bits(keys, want)) << how;
    ASSERT_EQ(told.load(), input.size()) << how << ": keys told to the progress hook";
  }
}

// Two values, in random order.
template <class T>
std::vector<T> two_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<T> keys(n);
  for (T& key : keys) key = random() % 2 == 0 ? T(-3) : T(100);
  return keys;
}

TYPED_TEST(RadixSortEdgesTest, SizesAroundEveryThresholdInEveryShape) {
  using T = TypeParam;
  using namespace radix_config;
  constexpr std::size_t kBlock = kBlockBytes / sizeof(T);
  const std::size_t sizes[] = {0, 1, 7, kInsertionSortKeys + 1, kSequentialKeys - 1, kSequentialKeys,
                               kSequentialKeys + 1, kSequentialKeys + kBlock - 1, kKeysPerTask - 1, kKeysPerTask,
                               kKeysPerTask + 1, 2 * kKeysPerTask + 1, 256 * kBlock + 1};
  std::uint64_t seed = 1;
  for (const char* distribution : {"uniform", "zero", "bits:1", "sorted", "reverse", "zipf:1.0", "special"}) {
    for (std::size_t n : sizes) {
      expect_sorted(testing::generated_keys<T>(distribution, n, seed++), std::string(distribution) + " n=" + std::to_string(n));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  for (std::size_t n : sizes) {
    expect_sorted(two_values<T>(n, seed++), "two values n=" + std::to_string(n));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TYPED_TEST(RadixSortEdgesTest, InputsThatAlmostAreInOrder) {
  using T = TypeParam;
  const std::size_t n = 3 * radix_config::kKeysPerTask + 5;
  const std::vector<T> sorted = reference_sorted<T, SortOrder::ascending>(testing::generated_keys<T>("uniform", n, 4));
  expect_sorted(sorted, "sorted");
  auto last_swapped = sorted;
  std::swap(last_swapped[n - 1], last_swapped[n - 2]);
  expect_sorted(last_swapped, "sorted but the last two keys");
  auto first_swapped = sorted;
  std::swap(first_swapped[0], first_swapped[1]);
  expect_sorted(first_swapped, "sorted but the first two keys");
  // Out of order only across the border of two of the check's parts (n / 2 for two parts).
  auto middle_swapped = sorted;
  std::swap(middle_swapped[n / 2 - 1], middle_swapped[n / 2]);
  expect_sorted(middle_swapped, "sorted but the middle two keys");
  // Descending with runs of equal keys, and all keys equal (in order both ways).
  std::vector<T> runs(n);
  for (std::size_t i = 0; i < n; ++i) runs[i] = T((n - i) / 1000);
  expect_sorted(runs, "descending runs of equal keys");
  expect_sorted(std::vector<T>(n, T(5)), "all equal");
}

// A pass takes its digit from 257 keys spread over the range; here they all agree above bit 20
// while one key elsewhere does not, so the first pass must be made again on the right digit.
TYPED_TEST(RadixSortEdgesTest, ADifferingBitTheSampleMisses) {
  using T = TypeParam;
  const std::size_t n = 2 * radix_config::kKeysPerTask + 3;
  std::mt19937_64 random(9);
  std::vector<T> keys(n);
  for (T& key : keys) key = T(random() % (1u << 20));
  keys[1] = std::numeric_limits<T>::max();
  expect_sorted(keys, "one large key off the sample");
  std::vector<T> equal(n, T(42));
  equal[n / 3 + 1] = T(43);
  expect_sorted(equal, "all keys but one equal, the one off the sample");
}

TYPED_TEST(RadixSortEdgesTest, ThreadCountsFromOneToMoreThanTheCores) {
  using T = TypeParam;
  const auto input = testing::generated_keys<T>("zipf:1.0", 4 * radix_config::kKeysPerTask + 1, 5);
  for (int threads : {1, 3}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    expect_sorted(input, std::to_string(threads) + " threads");
    if (::testing::Test::HasFatalFailure()) return;
  }
  // (global_control raises oneTBB's worker limit, by default the cores less one.)
  tbb::global_control more(tbb::global_control::max_allowed_parallelism, 8);
  tbb::task_arena eight(8);
  eight.execute([&] {
    expect_sorted(input, "an arena of 8 threads");
    expect_sorted(testing::generated_keys<T>("uniform", 4 * radix_config::kKeysPerTask + 1, 6), "uniform, an arena of 8 threads");
  });
}

}  // namespace
}  // namespace rmgsort
