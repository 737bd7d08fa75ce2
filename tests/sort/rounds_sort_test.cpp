// sort_in_rounds with the CPU radix sort as the round sorter (the GPUs' stand-in in CI): the rounds
// it hands on are in order, within the capacity, and together the sorted input, for every key type.
#include "sort/rounds_sort.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "generate/distribution.hpp"
#include "generate/generate.hpp"
#include "tests/generate/generated_keys.hpp"
#include "host/radix_sort.hpp"
#include "tests/core/key_types.hpp"

namespace rmgsort {
namespace {

using testing::AllKeyTypes;

template <class T>
class SortRoundsTest : public ::testing::Test {};
TYPED_TEST_SUITE(SortRoundsTest, AllKeyTypes);

template <class T>
std::vector<T> cpu_sorted(std::vector<T> keys, SortOrder order) {
  radix_sort(keys.data(), keys.size(), order);
  return keys;
}

// Runs sort_in_rounds over `input` and returns what it handed on, checking each round on the way.
template <class T>
std::vector<T> sorted_in_rounds(const std::vector<T>& input, SortOrder order, std::uint64_t capacity,
                                RoundsReport& report) {
  std::vector<T> partitioned(input.size());
  std::vector<T> handed_on;
  std::size_t sorts = 0;
  std::size_t handed = 0;
  RoundHooks hooks;
  hooks.sort_round = [&](std::byte* keys, std::uint64_t n) {
    EXPECT_LE(n, capacity) << "a round beyond the capacity";
    EXPECT_GT(n, 0u) << "an empty round";
    radix_sort(reinterpret_cast<T*>(keys), n, order);
    ++sorts;
  };
  hooks.sorted = [&](std::span<const std::byte> round) {
    const auto* keys = reinterpret_cast<const T*>(round.data());
    handed_on.insert(handed_on.end(), keys, keys + round.size() / sizeof(T));
    ++handed;
    EXPECT_EQ(sorts, handed) << "a round handed on before it was sorted, or twice";
  };
  report = sort_in_rounds(KeyTypeOf<T>::value, reinterpret_cast<const std::byte*>(input.data()),
                          reinterpret_cast<std::byte*>(partitioned.data()), input.size(), order, capacity, hooks);
  EXPECT_EQ(report.round_keys.size(), sorts);
  EXPECT_EQ(report.round_sort_seconds.size(), sorts);
  return handed_on;
}

template <class T>
void expect_rounds_sort(const std::string& dist, std::uint64_t n, std::uint64_t capacity, SortOrder order) {
  const std::vector<T> input = testing::generated_keys<T>(dist, n, 7);
  RoundsReport report;
  const std::vector<T> output = sorted_in_rounds(input, order, capacity, report);
  const std::string what = dist + " n=" + std::to_string(n) + " capacity=" + std::to_string(capacity) +
                           (order == SortOrder::ascending ? " ascending" : " descending");
  EXPECT_TRUE(testing::same_bits(output, cpu_sorted(input, order))) << what;
  EXPECT_GE(report.round_keys.size(), (n + capacity - 1) / capacity) << what;
  std::uint64_t total = 0;
  for (std::uint64_t keys : report.round_keys) total += keys;
  EXPECT_EQ(total, n) << what;
}

TYPED_TEST(SortRoundsTest, ManyRoundsMatchOneSort) {
  for (const SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    for (const char* dist : {"uniform", "zipf:2.0", "bits:10", "zero", "special", "sorted", "reverse"}) {
      expect_rounds_sort<TypeParam>(dist, 100003, 10007, order);
    }
    expect_rounds_sort<TypeParam>("uniform", 5000, 1, order);
    expect_rounds_sort<TypeParam>("normal", 5000, 5000, order);
  }
}

TYPED_TEST(SortRoundsTest, EmptyInputSortsNothing) {
  RoundsReport report;
  const std::vector<TypeParam> output = sorted_in_rounds(std::vector<TypeParam>{}, SortOrder::ascending, 10, report);
  EXPECT_TRUE(output.empty());
  EXPECT_TRUE(report.round_keys.empty());
}

// The driver page-locks the partition's memory while the partition runs: around_partition gets the
// partition to run, once, and the partitioned keys exist when it returns, before anything else.
TEST(SortRoundsHooks, AroundPartitionRunsThePartitionOnceBeforeTheRounds) {
  const std::vector<std::uint32_t> input = testing::generated_keys<std::uint32_t>("uniform", 10000, 3);
  std::vector<std::uint32_t> partitioned(input.size());
  std::vector<std::string> calls;
  RoundHooks hooks;
  hooks.around_partition = [&](const std::function<void()>& partition) {
    calls.push_back("around");
    partition();
    const std::vector<std::uint32_t> sorted_input = cpu_sorted(input, SortOrder::ascending);
    std::vector<std::uint32_t> sorted_partition = cpu_sorted(partitioned, SortOrder::ascending);
    EXPECT_EQ(sorted_partition, sorted_input) << "the partition had not run when around_partition's call returned";
    calls.push_back("around done");
  };
  hooks.on_partitioned = [&] { calls.push_back("partitioned"); };
  hooks.sort_round = [&](std::byte* keys, std::uint64_t n) {
    radix_sort(reinterpret_cast<std::uint32_t*>(keys), n, SortOrder::ascending);
    calls.push_back("sort");
  };
  hooks.sorted = [&](std::span<const std::byte>) { calls.push_back("sorted"); };
  const RoundsReport report = sort_in_rounds(KeyType::u32, reinterpret_cast<const std::byte*>(input.data()),
                                             reinterpret_cast<std::byte*>(partitioned.data()), input.size(),
                                             SortOrder::ascending, 4000, hooks);
  ASSERT_GE(report.round_keys.size(), 3u);
  std::vector<std::string> expected = {"around", "around done", "partitioned"};
  for (std::size_t r = 0; r < report.round_keys.size(); ++r) {
    expected.push_back("sort");
    expected.push_back("sorted");
  }
  EXPECT_EQ(calls, expected);
  EXPECT_EQ(partitioned, cpu_sorted(input, SortOrder::ascending));
}

}  // namespace
}  // namespace rmgsort
