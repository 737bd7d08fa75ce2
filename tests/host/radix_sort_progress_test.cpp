// radix_sort's SortedKeysHook (--progress): the keys it is told of add up to the input's, from few
// calls, and asking changes nothing in the result.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <atomic>
#include <cstring>
#include <vector>

#include "generate/generate.hpp"
#include "host/radix_sort.hpp"
#include "tests/core/key_types.hpp"

namespace rmgsort {
namespace {

using testing::AllKeyTypes;

template <class T>
class RadixSortProgressTest : public ::testing::Test {};
TYPED_TEST_SUITE(RadixSortProgressTest, AllKeyTypes);

struct Told {
  std::uint64_t keys = 0;
  std::uint64_t calls = 0;
};

// Sorts KEYS with a hook and a copy without; expects the same bytes, and returns what the hook heard.
template <class T>
Told sort_telling(const std::vector<T>& keys, SortOrder order) {
  std::vector<T> told_sort = keys, quiet_sort = keys;
  std::atomic<std::uint64_t> sum{0}, calls{0};
  const SortedKeysHook hook = [&](std::size_t n) {
    EXPECT_GT(n, 0u);
    sum.fetch_add(n, std::memory_order_relaxed);
    calls.fetch_add(1, std::memory_order_relaxed);
  };
  radix_sort(told_sort.data(), told_sort.size(), order, hook);
  radix_sort(quiet_sort.data(), quiet_sort.size(), order);
  EXPECT_EQ(std::memcmp(told_sort.data(), quiet_sort.data(), keys.size() * sizeof(T)), 0);
  return Told{sum.load(), calls.load()};
}

template <class T>
std::vector<T> generated(const char* distribution, std::size_t n, std::uint64_t seed) {
  std::vector<T> keys(n);
  generate_keys(keys.data(), 0, n, n, parse_distribution(distribution), seed);
  return keys;
}

TYPED_TEST(RadixSortProgressTest, EveryKeyIsToldOnceInEveryShapeOfInput) {
  using T = TypeParam;
  // 0, 1 and 7 keys; one cache-sized range and one key more; several parallel passes.
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1} << 16,
                        (std::size_t{1} << 16) + 1, (std::size_t{1} << 20) + 3}) {
    for (const char* distribution : {"uniform", "zero", "sorted", "zipf:1.2", "bits:12", "special"}) {
      for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
        const Told told = sort_telling(generated<T>(distribution, n, 7 + n), order);
        EXPECT_EQ(told.keys, n) << distribution << ", " << n << " keys";
      }
    }
  }
}

TYPED_TEST(RadixSortProgressTest, OneThreadAndManyTellTheSame) {
  using T = TypeParam;
  const std::vector<T> keys = generated<T>("uniform", (std::size_t{1} << 19) + 5, 3);
  for (std::size_t threads : {1, 2, 8}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    EXPECT_EQ(sort_telling(keys, SortOrder::ascending).keys, keys.size()) << threads << " threads";
  }
}

TEST(RadixSortProgressCallsTest, ACallStandsForThousandsOfKeys) {
  // 2^22 uniform u64: a first parallel pass into 256 buckets of 2^14 keys, each sorted by one
  // thread; every chunk of buckets a thread takes is one call.
  const auto keys = generated<std::uint64_t>("uniform", std::size_t{1} << 22, 11);
  for (std::size_t threads : {1, 2, 8}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    const Told told = sort_telling(keys, SortOrder::ascending);
    EXPECT_EQ(told.keys, keys.size());
    EXPECT_LE(told.calls, 256u) << threads << " threads";  // at most one a bucket
    RecordProperty("calls_with_" + std::to_string(threads) + "_threads", int(told.calls));
  }
}

}  // namespace
}  // namespace rmgsort
