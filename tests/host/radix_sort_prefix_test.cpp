// radix_sort's SortedPrefixHook (host/radix_sort.hpp): each prefix it tells is already the sorted
// output's, bit for bit, when it is told; the prefixes grow and end at n; asking changes nothing in
// the result; and the first pass's buckets are told in order (host/radix_sort_prefix.hpp).
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "host/radix_sort.hpp"
#include "host/radix_sort_config.hpp"
#include "host/radix_sort_prefix.hpp"
#include "tests/core/key_types.hpp"
#include "tests/generate/generated_keys.hpp"

namespace rmgsort {
namespace {

using testing::AllKeyTypes;

template <class T>
class RadixSortPrefixTest : public ::testing::Test {};
TYPED_TEST_SUITE(RadixSortPrefixTest, AllKeyTypes);

template <class T>
bool same_bytes(const T* a, const T* b, std::size_t n) {
  return n == 0 || std::memcmp(a, b, n * sizeof(T)) == 0;
}

struct Prefixes {
  std::vector<std::size_t> told;  // every k, in the order told
  std::size_t not_final = 0;      // calls whose new keys were not yet the sorted output's
};

// Sorts KEYS in ORDER with a prefix hook and a copy without one; expects the same bytes, and
// checks at each call that the keys it adds to the prefix are already those of the sorted output.
template <class T>
Prefixes sort_telling_prefixes(const std::vector<T>& keys, SortOrder order) {
  std::vector<T> want = keys;
  radix_sort(want.data(), want.size(), order);
  std::vector<T> sorting = keys;
  Prefixes prefixes;
  std::mutex mutex;  // the hook's calls do not overlap; the mutex makes the test say so, not assume it
  const SortedPrefixHook hook = [&](std::size_t k) {
    const std::unique_lock lock(mutex, std::try_to_lock);
    EXPECT_TRUE(lock.owns_lock()) << "two calls at once";
    const std::size_t before = prefixes.told.empty() ? 0 : prefixes.told.back();
    EXPECT_GT(k, before) << "the prefix must grow";
    EXPECT_LE(k, keys.size());
    if (k > before && k <= keys.size() && !same_bytes(sorting.data() + before, want.data() + before, k - before))
      ++prefixes.not_final;
    prefixes.told.push_back(k);
  };
  radix_sort(sorting.data(), sorting.size(), order, {}, hook);
  EXPECT_TRUE(same_bytes(sorting.data(), want.data(), keys.size())) << "the hook changed the result";
  return prefixes;
}

template <class T>
void expect_prefixes(const std::vector<T>& keys, const std::string& what) {
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    const std::string how = what + (order == SortOrder::ascending ? ", ascending" : ", descending");
    const Prefixes prefixes = sort_telling_prefixes(keys, order);
    EXPECT_EQ(prefixes.not_final, 0u) << how;
    if (keys.empty()) {
      EXPECT_TRUE(prefixes.told.empty()) << how << ": nothing to tell";
    } else {
      ASSERT_FALSE(prefixes.told.empty()) << how;
      EXPECT_EQ(prefixes.told.back(), keys.size()) << how << ": the last prefix is every key";
      EXPECT_LE(prefixes.told.size(), 256u) << how << ": at most one call a bucket of the first pass";
    }
  }
}

TYPED_TEST(RadixSortPrefixTest, EveryPrefixToldIsFinalInEveryShapeOfInput) {
  using T = TypeParam;
  using namespace radix_config;
  const std::size_t sizes[] = {0, 1, 7, kSequentialKeys, kSequentialKeys + 1, kKeysPerTask + 1,
                               (std::size_t{1} << 20) + 3};
  std::uint64_t seed = 5;
  for (const char* distribution :
       {"uniform", "zero", "sorted", "reverse", "zipf:1.2", "bits:12", "bits:1", "special"}) {
    for (std::size_t n : sizes) {
      expect_prefixes(testing::generated_keys<T>(distribution, n, seed++),
                      std::string(distribution) + " n=" + std::to_string(n));
    }
  }
}

TYPED_TEST(RadixSortPrefixTest, ExtremesNaNsAndSignedZerosAreFinalWhenTold) {
  using T = TypeParam;
  // The type's extremes (and, for floats, both zeros, infinities and NaNs) scattered over many
  // uniform keys, so that they land in the first and last buckets of a parallel pass.
  std::vector<T> keys = testing::generated_keys<T>("uniform", (std::size_t{1} << 19) + 11, 17);
  std::vector<T> special = {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max(), T(0)};
  if constexpr (std::is_floating_point_v<T>) {
    special.insert(special.end(), {T(-0.0), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                                   std::numeric_limits<T>::quiet_NaN(), -std::numeric_limits<T>::quiet_NaN()});
  }
  std::mt19937_64 random(3);
  for (std::size_t i = 0; i < 4096; ++i) keys[random() % keys.size()] = special[i % special.size()];
  expect_prefixes(keys, "extremes");
}

TYPED_TEST(RadixSortPrefixTest, OneThreadAndManyTellFinalPrefixes) {
  using T = TypeParam;
  const std::vector<T> keys = testing::generated_keys<T>("uniform", (std::size_t{1} << 20) + 5, 9);
  for (std::size_t threads : {1, 2, 8}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    expect_prefixes(keys, std::to_string(threads) + " threads");
  }
}

TEST(RadixSortPrefixCallsTest, UniformKeysAreToldBucketByBucket) {
  // 2^22 uniform u64: a first parallel pass into 256 buckets of about 2^14 keys, each told as the
  // buckets before it are done: many calls, not one at the end. On one thread the buckets finish
  // in order, so the count is certain; on more, a thread descheduled on an early bucket lets the
  // later ones be told together (28 calls on a loaded 2-core machine), so only the prefixes are
  // checked there: growing, final when told, the last one everything.
  const auto keys = testing::generated_keys<std::uint64_t>("uniform", std::size_t{1} << 22, 11);
  for (std::size_t threads : {1, 2, 8}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    const Prefixes prefixes = sort_telling_prefixes(keys, SortOrder::ascending);
    if (threads == 1) {
      EXPECT_GE(prefixes.told.size(), 64u) << "1 thread";
    }
    EXPECT_EQ(prefixes.not_final, 0u) << threads << " threads";
    ASSERT_FALSE(prefixes.told.empty()) << threads << " threads";
    EXPECT_EQ(prefixes.told.back(), keys.size()) << threads << " threads";
    EXPECT_TRUE(std::is_sorted(prefixes.told.begin(), prefixes.told.end())) << threads << " threads";
  }
}

TEST(FinishedPrefixTest, TellsTheLeadingRunOfFinishedBucketsInAnyOrderOfFinishing) {
  // Buckets of sizes 3, 0, 5, 0, 0, 2, 0: the empty ones are finished too, and never told alone.
  const std::vector<std::size_t> begin = {0, 3, 3, 8, 8, 8, 10, 10};
  const std::size_t buckets = begin.size() - 1;
  std::vector<std::size_t> order(buckets);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 random(1);
  for (int trial = 0; trial < 50; ++trial) {
    std::shuffle(order.begin(), order.end(), random);
    std::vector<std::size_t> told;
    const std::function<void(std::size_t)> hook = [&](std::size_t k) { told.push_back(k); };
    radix_sort_detail::FinishedPrefix finished(begin.data(), buckets, hook);
    std::vector<bool> done(buckets, false);
    for (std::size_t d : order) {
      const std::size_t calls = told.size();
      finished.finish(d);
      done[d] = true;
      std::size_t run = 0;
      while (run < buckets && done[run]) ++run;
      const std::size_t want = begin[run];
      if (told.size() > calls) {
        EXPECT_EQ(told.back(), want);
        EXPECT_TRUE(calls == 0 || told[calls - 1] < want);
      } else {
        EXPECT_TRUE(want == 0 || (calls > 0 && told.back() == want)) << "a grown prefix was not told";
      }
    }
    ASSERT_FALSE(told.empty());
    EXPECT_EQ(told.back(), 10u);
    EXPECT_TRUE(std::is_sorted(told.begin(), told.end()));
    EXPECT_EQ(std::adjacent_find(told.begin(), told.end()), told.end()) << "a prefix told twice";
  }
}

TEST(ForEachBucketInOrderTest, EveryBucketOnceEachFinishedAfterItsSort) {
  for (std::size_t threads : {1, 2, 8}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    std::mutex mutex;
    std::vector<int> sorted(256, 0), finished(256, 0);
    radix_sort_detail::for_each_bucket_in_order(
        256, threads,
        [&](std::size_t d) {
          const std::lock_guard lock(mutex);
          ++sorted[d];
        },
        [&](std::size_t d) {
          const std::lock_guard lock(mutex);
          EXPECT_EQ(sorted[d], 1) << "bucket " << d << " finished before it was sorted";
          ++finished[d];
        });
    EXPECT_EQ(sorted, std::vector<int>(256, 1)) << threads << " threads";
    EXPECT_EQ(finished, std::vector<int>(256, 1)) << threads << " threads";
  }
}

}  // namespace
}  // namespace rmgsort
