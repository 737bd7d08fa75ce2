// sort_in_rounds with the CPU radix sort as the round sorter (the GPUs' stand-in in CI): the rounds
// it hands on are in order, within the capacity, and together the sorted input, for every key type
// and with one to three sorters at once; a failing sort or hand-off stops the rounds and is thrown.
#include "sort/rounds_sort.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
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

// Runs sort_in_rounds over `input` with `sorters` sorters and returns what it handed on, checking
// each round on the way: sorted (by the sorter whose turn it is, once) before it is handed on.
template <class T>
std::vector<T> sorted_in_rounds(const std::vector<T>& input, SortOrder order, std::uint64_t capacity,
                                RoundsReport& report, unsigned sorters = 1) {
  std::vector<T> partitioned(input.size());
  std::vector<T> handed_on;
  std::mutex mutex;
  std::vector<std::pair<const std::byte*, unsigned>> sorted_by;  // each sort's round and sorter
  std::size_t handed = 0;
  RoundHooks hooks;
  hooks.sorters = sorters;
  hooks.sort_round = [&](std::byte* keys, std::uint64_t n, unsigned sorter) {
    EXPECT_LE(n, capacity) << "a round beyond the capacity";
    EXPECT_GT(n, 0u) << "an empty round";
    EXPECT_LT(sorter, sorters);
    radix_sort(reinterpret_cast<T*>(keys), n, order);
    const std::lock_guard lock(mutex);
    sorted_by.emplace_back(keys, sorter);
  };
  hooks.sorted = [&](std::span<const std::byte> round) {
    const auto* keys = reinterpret_cast<const T*>(round.data());
    handed_on.insert(handed_on.end(), keys, keys + round.size() / sizeof(T));
    const std::lock_guard lock(mutex);
    const auto sort =
        std::find_if(sorted_by.begin(), sorted_by.end(), [&](const auto& s) { return s.first == round.data(); });
    EXPECT_NE(sort, sorted_by.end()) << "round " << handed << " handed on before it was sorted";
    if (sort != sorted_by.end()) {
      EXPECT_EQ(sort->second, handed % sorters) << "round " << handed << "'s sorter";
    }
    ++handed;
  };
  report = sort_in_rounds(KeyTypeOf<T>::value, reinterpret_cast<const std::byte*>(input.data()),
                          reinterpret_cast<std::byte*>(partitioned.data()), input.size(), order, capacity, hooks);
  EXPECT_EQ(report.round_keys.size(), sorted_by.size());
  EXPECT_EQ(report.round_sort_seconds.size(), sorted_by.size());
  EXPECT_EQ(handed, sorted_by.size()) << "every round sorted once and handed on once";
  return handed_on;
}

template <class T>
void expect_rounds_sort(const std::string& dist, std::uint64_t n, std::uint64_t capacity, SortOrder order,
                        unsigned sorters = 1) {
  const std::vector<T> input = testing::generated_keys<T>(dist, n, 7);
  RoundsReport report;
  const std::vector<T> output = sorted_in_rounds(input, order, capacity, report, sorters);
  const std::string what = dist + " n=" + std::to_string(n) + " capacity=" + std::to_string(capacity) +
                           (order == SortOrder::ascending ? " ascending" : " descending") + " sorters=" +
                           std::to_string(sorters);
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

// Two sorters (the GPUs' overlapped rounds) and three: the same rounds, the same output, whatever
// order the sorts end in.
TYPED_TEST(SortRoundsTest, SeveralSortersAtOnceMatchOneSort) {
  for (const unsigned sorters : {2u, 3u}) {
    for (const SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
      for (const char* dist : {"uniform", "zipf:2.0", "zero", "special"})
        expect_rounds_sort<TypeParam>(dist, 100003, 10007, order, sorters);
      expect_rounds_sort<TypeParam>("uniform", 500, 1, order, sorters);        // a round a key
      expect_rounds_sort<TypeParam>("normal", 5000, 5000, order, sorters);     // one round: a sorter idle
      expect_rounds_sort<TypeParam>("uniform", 2, 1, order, sorters);         // fewer rounds than sorters
    }
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
  std::mutex mutex;  // the sorts run on a thread of their own
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
  hooks.sort_round = [&](std::byte* keys, std::uint64_t n, unsigned) {
    radix_sort(reinterpret_cast<std::uint32_t*>(keys), n, SortOrder::ascending);
    const std::lock_guard lock(mutex);
    calls.push_back("sort");
  };
  hooks.sorted = [&](std::span<const std::byte>) {
    const std::lock_guard lock(mutex);
    calls.push_back("sorted");
  };
  const RoundsReport report = sort_in_rounds(KeyType::u32, reinterpret_cast<const std::byte*>(input.data()),
                                             reinterpret_cast<std::byte*>(partitioned.data()), input.size(),
                                             SortOrder::ascending, 4000, hooks);
  ASSERT_GE(report.round_keys.size(), 3u);
  ASSERT_EQ(calls.size(), 3 + 2 * report.round_keys.size());
  EXPECT_EQ(std::vector<std::string>(calls.begin(), calls.begin() + 3),
            (std::vector<std::string>{"around", "around done", "partitioned"}));
  // The sorts may run ahead of the hand-offs, never behind: the k-th "sorted" after the k-th "sort".
  std::size_t sorts = 0, handed = 0;
  for (std::size_t i = 3; i < calls.size(); ++i) {
    (calls[i] == "sort" ? sorts : handed) += 1;
    EXPECT_LE(handed, sorts) << "a round handed on before its sort, at call " << i;
  }
  EXPECT_EQ(partitioned, cpu_sorted(input, SortOrder::ascending));
}

// Runs sort_in_rounds over 10000 u32 keys in rounds of at most 1000 with `sorters` sorters, whose
// sort_round calls `sort` (after sorting) and whose hand-offs call `hand_on`; returns the rounds
// handed on, and what was thrown (empty: nothing).
struct FailingRun {
  std::size_t handed = 0;
  std::string thrown;
};
FailingRun run_rounds(unsigned sorters, const std::function<void(std::size_t sorter_call, unsigned sorter)>& sort,
                      const std::function<void(std::size_t round)>& hand_on) {
  const std::vector<std::uint32_t> input = testing::generated_keys<std::uint32_t>("uniform", 10000, 5);
  std::vector<std::uint32_t> partitioned(input.size());
  std::vector<std::atomic<std::size_t>> calls(sorters);
  FailingRun run;
  RoundHooks hooks;
  hooks.sorters = sorters;
  hooks.sort_round = [&](std::byte* keys, std::uint64_t n, unsigned sorter) {
    radix_sort(reinterpret_cast<std::uint32_t*>(keys), n, SortOrder::ascending);
    sort(calls[sorter]++, sorter);
  };
  hooks.sorted = [&](std::span<const std::byte>) { hand_on(run.handed++); };
  try {
    (void)sort_in_rounds(KeyType::u32, reinterpret_cast<const std::byte*>(input.data()),
                         reinterpret_cast<std::byte*>(partitioned.data()), input.size(), SortOrder::ascending, 1000,
                         hooks);
  } catch (const std::exception& e) {
    run.thrown = e.what();
  }
  return run;
}

// Round 3 (sorter 1's second) fails: its error is thrown once both sorters have stopped, and no round
// from it on is handed on.
TEST(SortRoundsHooks, AFailingSortStopsTheRoundsAndIsThrown) {
  const FailingRun run = run_rounds(
      2,
      [](std::size_t call, unsigned sorter) {
        if (sorter == 1 && call == 1) throw std::runtime_error("the GPU fell off");
      },
      [](std::size_t) {});
  EXPECT_EQ(run.thrown, "the GPU fell off");
  EXPECT_LE(run.handed, 3u) << "a round at or after the failed one handed on";
}

// The hand-off of round 2 fails (the writer's disk is full): thrown, the sorters stopped. Each sort
// takes 2 ms, so that the sorters are not done with every round before the hand-offs begin.
TEST(SortRoundsHooks, AFailingHandOffStopsTheSortsAndIsThrown) {
  std::atomic<bool> failed{false};
  std::atomic<int> sorts_after{0};
  const FailingRun run = run_rounds(
      2,
      [&](std::size_t, unsigned) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        sorts_after += failed ? 1 : 0;
      },
      [&](std::size_t round) {
        if (round != 2) return;
        failed = true;
        throw std::runtime_error("no space left on device");
      });
  EXPECT_EQ(run.thrown, "no space left on device");
  EXPECT_EQ(run.handed, 3u) << "rounds 0 and 1, then the failed one";
  // Each sorter finishes the round it is in, and may start one more between the failing hand-off
  // and its error reaching the sorters: 4 at most, of the 7 or more rounds left.
  EXPECT_LE(sorts_after.load(), 4) << "the sorters went on after the failure";
}

// More sorters than rounds: the idle sorters end at once.
TEST(SortRoundsHooks, SortersWithoutARoundEndAtOnce) {
  const FailingRun run = run_rounds(32, [](std::size_t, unsigned) {}, [](std::size_t) {});
  EXPECT_EQ(run.thrown, "");
  EXPECT_GE(run.handed, 10u);
}

}  // namespace
}  // namespace rmgsort
