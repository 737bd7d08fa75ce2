// InCoreSorter (gpu/in_core_sort.hpp) against std::sort, on a GPU host (label "gpu"; exits
// 77 where there is no CUDA device). Every key type x distribution x size x order x GPU count
// g = 1..4 (those the machine has, at most RMGSORT_GPU_TEST_MAX_GPUS; devices 0..g-1), with one
// sorter per (type, g) reused for every round, as the contract allows. Then the edges: counts not
// divisible by g, fewer keys than GPUs, rounds below the capacity, unregistered and offset host
// memory, the plan's memory figures and the statistics; and one 2^27-key round per type on every
// GPU (the tests named Large*, skipped when the host lacks the memory; ctest runs them as
// gpu_in_core_sort_test_slow, label "slow", and the rest as gpu_in_core_sort_test: ctest -LE slow
// leaves them out). A few minutes on 4 H200s.
#include "gpu/in_core_sort.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/devices.hpp"
#include "gpu/gpu_policy.hpp"
#include "gpu/partition_planner.hpp"
#include "generate/distribution.hpp"
#include "generate/generate.hpp"
#include "tests/generate/generated_keys.hpp"
#include "core/key_order.hpp"
#include "core/key_type.hpp"
#include "host/system_memory.hpp"
#include "core/error.hpp"
#include "tests/gpu/gpu_test_main.hpp"
#include "tests/core/key_types.hpp"

namespace rmgsort {
namespace {

using testing::AllKeyTypes;
using testing::bits_of;

// The matrix's round: a multiple of none of 2, 3 and 4, so every g > 1 gets unequal chunks.
constexpr std::uint64_t kMatrixKeys = (std::uint64_t{1} << 20) + 3;
constexpr std::uint64_t kLargeKeys = std::uint64_t{1} << 27;
constexpr int kMostGpus = 4;
constexpr SortOrder kOrders[] = {SortOrder::ascending, SortOrder::descending};
constexpr const char* kDistributions[] = {
    "uniform", "normal",  "zipf:0.5", "zipf:1.0", "zipf:1.5", "zipf:2.0",      "bits:0", "bits:8",  "bits:10",
    "bits:17", "bits:25", "bits:26",  "bits:32",  "sorted",   "nearly-sorted", "reverse", "zero",   "special"};

// ---------------------------------------------------------------------------------------------------
// Which GPU counts run

struct GpuCounts {
  int present = 0;
  int cap = kMostGpus;              // RMGSORT_GPU_TEST_MAX_GPUS, when set
  std::vector<int> tested;          // g in 1..kMostGpus with g <= present and g <= cap
  std::vector<int> lacking_devices; // g > present
  std::vector<int> capped;          // present >= g > cap
};

GpuCounts find_gpu_counts() {
  GpuCounts counts;
  counts.present = cuda_device_count();
  if (const char* text = std::getenv("RMGSORT_GPU_TEST_MAX_GPUS"); text != nullptr && *text != '\0') {
    const std::string_view view(text);
    int cap = 0;
    const auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), cap);
    if (error != std::errc() || end != view.data() + view.size() || cap < 1)
      throw Error("RMGSORT_GPU_TEST_MAX_GPUS='" + std::string(view) + "' is not a positive integer");
    counts.cap = cap;
  }
  for (int g = 1; g <= kMostGpus; ++g) {
    if (g > counts.present) {
      counts.lacking_devices.push_back(g);
    } else if (g > counts.cap) {
      counts.capped.push_back(g);
    } else {
      counts.tested.push_back(g);
    }
  }
  return counts;
}

const GpuCounts& gpu_counts() {
  static const GpuCounts counts = find_gpu_counts();
  return counts;
}

int most_gpus() { return gpu_counts().tested.back(); }

std::vector<int> first_gpus(int g) {
  std::vector<int> gpus(static_cast<std::size_t>(g));
  for (int i = 0; i < g; ++i) gpus[std::size_t(i)] = i;
  return gpus;
}

std::string join(const std::vector<int>& values) {
  if (values.empty()) return "none";
  std::string text;
  for (int value : values) text += (text.empty() ? "" : ", ") + std::to_string(value);
  return text;
}

// Printed before and after the tests.
std::string summary() {
  const GpuCounts& counts = gpu_counts();
  std::ostringstream text;
  text << "in_core_sort_test: " << counts.present << " CUDA device(s):";
  for (int i = 0; i < counts.present; ++i) text << (i ? ", " : " ") << i << " = " << gpu_info(i).name;
  text << "\nin_core_sort_test: GPU counts tested: " << join(counts.tested)
       << "; skipped for lack of devices: " << join(counts.lacking_devices) << " ("
       << counts.lacking_devices.size() << " of " << kMostGpus << ")";
  if (!counts.capped.empty())
    text << "; skipped by RMGSORT_GPU_TEST_MAX_GPUS=" << counts.cap << ": " << join(counts.capped);
  return text.str();
}

// Tests that loop over g say what they left out, in the log and in the XML report.
void note_skipped_gpu_counts() {
  const GpuCounts& counts = gpu_counts();
  ::testing::Test::RecordProperty("gpu_counts_skipped_for_lack_of_devices", int(counts.lacking_devices.size()));
  ::testing::Test::RecordProperty("gpu_counts_skipped_by_cap", int(counts.capped.size()));
  if (!counts.lacking_devices.empty())
    std::printf("note: g = %s not tested: %d CUDA device(s) present\n", join(counts.lacking_devices).c_str(),
                counts.present);
  if (!counts.capped.empty())
    std::printf("note: g = %s not tested: RMGSORT_GPU_TEST_MAX_GPUS=%d\n", join(counts.capped).c_str(), counts.cap);
}

// MemAvailable, or the physical size where /proc/meminfo cannot be read.
std::uint64_t available_host_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string name;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> name >> kib >> unit)
    if (name == "MemAvailable:") return kib * 1024;
  return physical_memory_bytes();
}

// ---------------------------------------------------------------------------------------------------
// Keys and their reference order

template <class T>
constexpr KeyType key_type_of() {
  return KeyTypeOf<T>::value;
}

template <class T>
RadixBits<T> rank_in(SortOrder order, T key) {
  return order == SortOrder::ascending ? KeyOrder<T, SortOrder::ascending>::rank(key)
                                       : KeyOrder<T, SortOrder::descending>::rank(key);
}

template <class T>
std::string hex_bits(T key) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%0*llx", int(2 * sizeof(T)), static_cast<unsigned long long>(bits_of(key)));
  return text;
}

// `keys` sorted by KeyLess: std::sort up to the matrix's size; above it tbb::parallel_sort with the
// same comparator, where one thread would take most of the test's time. Every correct sort gives
// the same sequence of ranks, which is all the comparison below relies on.
template <class T>
std::vector<T> reference_sort(std::vector<T> keys, SortOrder order) {
  const auto sort = [&](auto less) {
    if (keys.size() <= kMatrixKeys) {
      std::sort(keys.begin(), keys.end(), less);
    } else {
      tbb::parallel_sort(keys.begin(), keys.end(), less);
    }
  };
  if (order == SortOrder::ascending) {
    sort(KeyLess<T, SortOrder::ascending>{});
  } else {
    sort(KeyLess<T, SortOrder::descending>{});
  }
  return keys;
}

// What radix_sort_test's expect_sorts_like_std_sort checks, in linear time: `sorted` has the
// reference's sequence of ranks (so NaNs may stand in any order among themselves) and is a
// permutation of its bit patterns. Equal ranks mean equal bits except among NaNs (encode() is a
// bijection), so only a run of equal ranks in which some bits differ is compared as a multiset.
template <class T>
void expect_matches_reference(const T* sorted, const std::vector<T>& reference, SortOrder order,
                              const std::string& what) {
  const std::size_t n = reference.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (rank_in(order, sorted[i]) != rank_in(order, reference[i]))
      FAIL() << what << ": first difference from std::sort at index " << i << " of " << n << ": "
             << hex_bits(sorted[i]) << " where std::sort has " << hex_bits(reference[i]);
  }
  for (std::size_t i = 0; i < n;) {
    if (bits_of(sorted[i]) == bits_of(reference[i])) {
      ++i;
      continue;
    }
    const auto rank = rank_in(order, reference[i]);
    std::size_t begin = i;
    std::size_t end = i;
    while (begin > 0 && rank_in(order, reference[begin - 1]) == rank) --begin;
    while (end < n && rank_in(order, reference[end]) == rank) ++end;
    std::vector<RadixBits<T>> got;
    std::vector<RadixBits<T>> want;
    for (std::size_t j = begin; j < end; ++j) {
      got.push_back(bits_of(sorted[j]));
      want.push_back(bits_of(reference[j]));
    }
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    if (got != want)
      FAIL() << what << ": the keys of equal rank at [" << begin << ", " << end
             << ") are not a permutation of the input's (output " << hex_bits(sorted[i]) << " at index " << i << ")";
    i = end;
  }
}

// ---------------------------------------------------------------------------------------------------
// Host memory for the sorter

// Page-aligned host memory, page-locked once (PinnedRegistration) and reused by every round: room
// for `capacity` keys at keys(), `offset_keys` keys past the page boundary, and kGuardKeys keys of
// a sentinel pattern after the round's last key (and the offset keys before it). The sorter may
// write keys[0, count) and nothing else.
template <class T>
class GuardedBuffer {
 public:
  static constexpr std::size_t kGuardKeys = 64;
  static constexpr std::size_t kPage = 4096;
  static constexpr unsigned char kSentinel = 0xa5;

  GuardedBuffer(std::uint64_t capacity, std::size_t offset_keys)
      : offset_keys_(offset_keys),
        bytes_((((offset_keys + capacity + kGuardKeys) * sizeof(T)) + kPage - 1) / kPage * kPage),
        memory_(static_cast<std::byte*>(std::aligned_alloc(kPage, bytes_))) {
    if (memory_ == nullptr) throw std::bad_alloc();
    registration_ = PinnedRegistration(memory_.get(), bytes_);
  }

  T* keys() { return reinterpret_cast<T*>(memory_.get()) + offset_keys_; }
  std::byte* bytes() { return reinterpret_cast<std::byte*>(keys()); }

  // Copies `input` to keys() and writes the sentinels around it.
  void load(const std::vector<T>& input) {
    count_ = input.size();
    std::memset(memory_.get(), kSentinel, offset_keys_ * sizeof(T));
    if (!input.empty()) std::memcpy(keys(), input.data(), input.size() * sizeof(T));
    std::memset(keys() + count_, kSentinel, kGuardKeys * sizeof(T));
  }

  [[nodiscard]] bool guards_intact() {
    const auto intact = [](const std::byte* begin, std::size_t bytes) {
      return std::all_of(begin, begin + bytes, [](std::byte b) { return b == std::byte{kSentinel}; });
    };
    return intact(memory_.get(), offset_keys_ * sizeof(T)) &&
           intact(reinterpret_cast<std::byte*>(keys() + count_), kGuardKeys * sizeof(T));
  }

 private:
  struct Free {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::size_t offset_keys_;
  std::size_t bytes_;
  std::unique_ptr<std::byte, Free> memory_;
  PinnedRegistration registration_;  // declared after memory_: unregisters before it is freed
  std::size_t count_ = 0;
};

template <class T>
std::string describe(std::string_view dist, std::uint64_t n, SortOrder order, const InCoreSorter& sorter) {
  return std::string(key_type_name(key_type_of<T>())) + " " + std::string(dist) + " n=" + std::to_string(n) +
         (order == SortOrder::ascending ? " ascending" : " descending") +
         " g=" + std::to_string(sorter.plan().gpus.size()) + " (round_keys " +
         std::to_string(sorter.plan().round_keys) + ")";
}

// Sorts `input` with `sorter` in `buffer`, checks the result against `reference`, returns the stats.
template <class T>
InCoreStats expect_sorter_sorts(InCoreSorter& sorter, GuardedBuffer<T>& buffer, const std::vector<T>& input,
                                const std::vector<T>& reference, SortOrder order, const std::string& what) {
  buffer.load(input);
  InCoreStats stats = sorter.sort(buffer.bytes(), input.size(), order);
  expect_matches_reference(buffer.keys(), reference, order, what);
  EXPECT_TRUE(buffer.guards_intact()) << what << ": the sorter wrote outside keys[0, count)";
  return stats;
}

// One round, from generating the keys to checking them (for the tests outside the matrix).
template <class T>
InCoreStats expect_round_sorts(InCoreSorter& sorter, GuardedBuffer<T>& buffer, const char* dist, std::uint64_t n,
                               SortOrder order, std::uint64_t seed) {
  const std::vector<T> input = testing::generated_keys<T>(dist, n, seed);
  return expect_sorter_sorts(sorter, buffer, input, reference_sort(input, order), order,
                             describe<T>(dist, n, order, sorter));
}

std::unique_ptr<InCoreSorter> sorter_for(KeyType type, int g, std::uint64_t round_keys) {
  return std::make_unique<InCoreSorter>(plan_in_core_for(type, first_gpus(g), round_keys, std::nullopt));
}

// ---------------------------------------------------------------------------------------------------
// Plans

TEST(InCorePlanTest, PlanForARoundSplitsItIntoEqualChunks) {
  note_skipped_gpu_counts();
  for (KeyType type : {KeyType::u32, KeyType::u64}) {
    for (int g : gpu_counts().tested) {
      const InCorePlan plan = plan_in_core_for(type, first_gpus(g), kMatrixKeys, std::nullopt);
      const std::string what = std::string(key_type_name(type)) + " g=" + std::to_string(g);
      EXPECT_EQ(plan.type, type) << what;
      EXPECT_EQ(plan.gpus, first_gpus(g)) << what;
      EXPECT_EQ(plan.round_keys, kMatrixKeys) << what;
      EXPECT_EQ(plan.chunk_keys, (kMatrixKeys + std::uint64_t(g) - 1) / std::uint64_t(g)) << what;
      ASSERT_EQ(plan.need.size(), std::size_t(g)) << what;
      // Each half of the double buffer holds the chunk and ε at both ends: ε from the policy, and
      // as the planner, which decides how far a GPU may overflow its chunk, computes it.
      const std::uint64_t width = key_width(type);
      const std::uint64_t epsilon = std::uint64_t(double(plan.chunk_keys) * gpu_policy::kEpsilonFraction);
      PlannerConfig config;
      config.key_bits = int(8 * width);
      const PartitionPlanner planner(equal_chunks(kMatrixKeys, std::size_t(g)), config);
      for (const GpuMemoryNeed& need : plan.need) {
        EXPECT_EQ(need.key_buffers, 2 * (plan.chunk_keys + 2 * epsilon) * width) << what << ": 2 x (chunk + 2 ε) keys";
        EXPECT_EQ(need.key_buffers, 2 * planner.buffer_keys() * width) << what << ": the planner's buffer, twice";
        // A first pass over the whole chunk needs every block's histogram at once.
        EXPECT_GE(need.histograms, gpu_policy::blocks_for(plan.chunk_keys, int(width)) * gpu_policy::kDigits *
                                       sizeof(std::uint32_t))
            << what << ": the block histograms of a whole-chunk pass";
      }
    }
  }
}

TEST(InCorePlanTest, MemoryBoundedPlanFitsItsBudgetAndNoMore) {
  constexpr std::uint64_t kBudget = std::uint64_t{256} << 20;
  for (KeyType type : {KeyType::u32, KeyType::u64}) {
    const std::vector<int> gpus = first_gpus(most_gpus());
    const InCorePlan plan = plan_in_core(type, gpus, kBudget);
    const std::string what = std::string(key_type_name(type)) + " g=" + std::to_string(gpus.size());
    EXPECT_GT(plan.round_keys, 0u) << what;
    ASSERT_EQ(plan.need.size(), gpus.size()) << what;
    for (std::size_t i = 0; i < gpus.size(); ++i)
      EXPECT_LE(plan.need[i].total(), kBudget) << what << ", GPU " << gpus[i];
    // Twice the round doubles the key buffers, which are most of the budget.
    EXPECT_THROW((void)plan_in_core_for(type, gpus, 2 * plan.round_keys, kBudget), Error) << what;
  }
}

// A plan shrunk from a fitted one reads no free memory (so memory another process takes meanwhile
// is the allocation's to meet), and needs what plan_in_core_for's plan of that round needs.
TEST(InCorePlanTest, AShrunkPlanNeedsWhatAPlanOfItsRoundNeeds) {
  constexpr std::uint64_t kBudget = std::uint64_t{256} << 20;
  for (KeyType type : {KeyType::u32, KeyType::u64}) {
    const std::vector<int> gpus = first_gpus(most_gpus());
    const InCorePlan fitted = plan_in_core(type, gpus, kBudget);
    const std::string what = std::string(key_type_name(type)) + " g=" + std::to_string(gpus.size());
    for (std::uint64_t round : {std::uint64_t{1}, std::uint64_t{1000}, fitted.round_keys / 3, fitted.round_keys}) {
      const InCorePlan shrunk = shrink_in_core_plan(fitted, round);
      const InCorePlan checked = plan_in_core_for(type, gpus, round, kBudget);
      EXPECT_EQ(shrunk.round_keys, round) << what;
      EXPECT_EQ(shrunk.chunk_keys, checked.chunk_keys) << what << ", round " << round;
      ASSERT_EQ(shrunk.need.size(), checked.need.size()) << what;
      for (std::size_t i = 0; i < gpus.size(); ++i)
        EXPECT_EQ(shrunk.need[i].total(), checked.need[i].total()) << what << ", round " << round << ", GPU " << i;
    }
    EXPECT_THROW((void)shrink_in_core_plan(fitted, fitted.round_keys + 1), Error) << what;
  }
}

TEST(InCorePlanTest, ABudgetBelowOneKeyIsAnError) {
  try {
    (void)plan_in_core(KeyType::u64, first_gpus(most_gpus()), 16);
    ADD_FAILURE() << "plan_in_core with 16 bytes per GPU did not throw";
  } catch (const Error& error) {
    std::printf("plan_in_core with 16 bytes per GPU: %s\n", error.what());
  }
}

// "Everything it needs is allocated once, when the sorter is built; sort() allocates nothing." The
// first round may still grow the driver's own reservations (lazily loaded kernels, local memory),
// so it is only reported; the second must not allocate.
TEST(InCorePlanTest, SorterAllocatesWhatThePlanSaysAndSortAllocatesNothing) {
  constexpr std::uint64_t kSlack = std::uint64_t{64} << 20;  // allocation granularity, peer mappings
  const auto used = [](std::uint64_t before, std::uint64_t after) { return before - std::min(before, after); };
  const auto free_on = [](const std::vector<int>& gpus) {
    std::vector<std::uint64_t> free;
    for (int gpu : gpus) free.push_back(gpu_info(gpu).free_memory);
    return free;
  };
  const InCorePlan plan = plan_in_core_for(KeyType::u32, first_gpus(most_gpus()), std::uint64_t{1} << 28, std::nullopt);
  const std::vector<std::uint64_t> free_before = free_on(plan.gpus);
  InCoreSorter sorter(plan);
  const std::vector<std::uint64_t> free_built = free_on(plan.gpus);
  for (std::size_t i = 0; i < plan.gpus.size(); ++i) {
    const std::uint64_t bytes = used(free_before[i], free_built[i]);
    EXPECT_GE(bytes + kSlack, plan.need[i].key_buffers) << "GPU " << plan.gpus[i] << ": the sorter allocated " << bytes;
    EXPECT_LE(bytes, plan.need[i].total() + kSlack)
        << "GPU " << plan.gpus[i] << ": the sorter allocated " << bytes << " bytes, the plan says " << plan.need[i].total();
  }
  GuardedBuffer<std::uint32_t> buffer(kMatrixKeys, 0);
  expect_round_sorts<std::uint32_t>(sorter, buffer, "uniform", kMatrixKeys, SortOrder::ascending, 1);
  const std::vector<std::uint64_t> free_first = free_on(plan.gpus);
  expect_round_sorts<std::uint32_t>(sorter, buffer, "zipf:1.0", kMatrixKeys, SortOrder::ascending, 2);
  const std::vector<std::uint64_t> free_second = free_on(plan.gpus);
  for (std::size_t i = 0; i < plan.gpus.size(); ++i) {
    std::printf("GPU %d: plan %llu bytes, sorter %llu, first round %llu more\n", plan.gpus[i],
                static_cast<unsigned long long>(plan.need[i].total()),
                static_cast<unsigned long long>(used(free_before[i], free_built[i])),
                static_cast<unsigned long long>(used(free_built[i], free_first[i])));
    EXPECT_LE(used(free_first[i], free_second[i]), kSlack / 4)
        << "GPU " << plan.gpus[i] << ": the second sort() left device memory allocated";
  }
}

// ---------------------------------------------------------------------------------------------------
// Sorting

template <class T>
class InCoreSortTest : public ::testing::Test {};
TYPED_TEST_SUITE(InCoreSortTest, AllKeyTypes);

TYPED_TEST(InCoreSortTest, EveryDistributionSizeOrderAndGpuCountSortsLikeStdSort) {
  using T = TypeParam;
  note_skipped_gpu_counts();
  std::vector<std::unique_ptr<InCoreSorter>> sorters;  // one per g, for every round below
  for (int g : gpu_counts().tested) sorters.push_back(sorter_for(key_type_of<T>(), g, kMatrixKeys));
  GuardedBuffer<T> buffer(kMatrixKeys, 0);
  std::uint64_t seed = 1;
  for (const char* name : kDistributions) {
    const Distribution dist = parse_distribution(name);
    if (dist.kind == Distribution::Kind::bits && dist.bits > 8 * sizeof(T)) continue;  // wider than the key
    for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{7}, kMatrixKeys}) {
      const std::vector<T> input = testing::generated_keys<T>(dist, n, seed++);
      for (SortOrder order : kOrders) {
        const std::vector<T> reference = reference_sort(input, order);
        for (auto& sorter : sorters) {
          expect_sorter_sorts(*sorter, buffer, input, reference, order, describe<T>(name, n, order, *sorter));
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

// Peer access and device buffers of one sorter must survive another being built and destroyed.
TYPED_TEST(InCoreSortTest, SortersOnTheSameDevicesCoexist) {
  using T = TypeParam;
  const int g = most_gpus();
  GuardedBuffer<T> buffer(kMatrixKeys, 0);
  auto kept = sorter_for(key_type_of<T>(), g, kMatrixKeys);
  auto dropped = sorter_for(key_type_of<T>(), g, 1000);
  expect_round_sorts<T>(*dropped, buffer, "uniform", 1000, SortOrder::ascending, 2);
  expect_round_sorts<T>(*kept, buffer, "zipf:1.0", kMatrixKeys, SortOrder::ascending, 3);
  dropped.reset();
  expect_round_sorts<T>(*kept, buffer, "uniform", kMatrixKeys, SortOrder::descending, 4);
  auto rebuilt = sorter_for(key_type_of<T>(), g, kMatrixKeys);
  expect_round_sorts<T>(*rebuilt, buffer, "normal", kMatrixKeys, SortOrder::ascending, 5);
  expect_round_sorts<T>(*kept, buffer, "special", kMatrixKeys, SortOrder::ascending, 6);
}

// GPU 0 listed two and three times: the multi-GPU pipeline (planner passes, a swap whose transfers
// are device-to-device copies, bucket sorts that start as their transfers end) on one device, so a
// machine with one GPU runs it too. Sorted input keeps every key on its GPU (each GPU's buffers
// change roles, nothing is copied); the smallest third first keeps the first GPU's keys in place
// while the others swap theirs.
TYPED_TEST(InCoreSortTest, OneDeviceListedAsSeveralGpusRunsTheMultiGpuPipeline) {
  using T = TypeParam;
  GuardedBuffer<T> buffer(kMatrixKeys, 0);
  std::uint64_t seed = 50;
  for (std::size_t g : {std::size_t{2}, std::size_t{3}}) {
    InCoreSorter sorter(plan_in_core_for(key_type_of<T>(), std::vector<int>(g, 0), kMatrixKeys, std::nullopt));
    for (const char* dist : {"uniform", "zipf:1.0", "bits:10", "zero", "special", "sorted"}) {
      for (std::uint64_t n : {std::uint64_t{2}, std::uint64_t{1000}, kMatrixKeys}) {
        expect_round_sorts<T>(sorter, buffer, dist, n, kOrders[seed % 2], seed);
        ++seed;
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
    std::vector<T> input = testing::generated_keys<T>("uniform", kMatrixKeys, seed++);
    const auto third = input.begin() + std::ptrdiff_t(kMatrixKeys / 3);
    std::nth_element(input.begin(), third, input.end(), KeyLess<T, SortOrder::ascending>{});
    expect_sorter_sorts(sorter, buffer, input, reference_sort(input, SortOrder::ascending), SortOrder::ascending,
                        "smallest third first, g=" + std::to_string(g));
  }
}

TYPED_TEST(InCoreSortTest, CountsNotDivisibleByTheGpuCount) {
  using T = TypeParam;
  note_skipped_gpu_counts();
  GuardedBuffer<T> buffer(kMatrixKeys, 0);
  std::uint64_t seed = 100;
  for (int g : gpu_counts().tested) {
    if (g == 1) continue;
    auto sorter = sorter_for(key_type_of<T>(), g, kMatrixKeys);
    for (std::uint64_t remainder = 0; remainder < std::uint64_t(g); ++remainder) {  // 0: the control
      const std::uint64_t n = std::uint64_t(g) * 65537 + remainder;
      expect_round_sorts<T>(*sorter, buffer, "uniform", n, SortOrder::ascending, seed++);
      expect_round_sorts<T>(*sorter, buffer, "zipf:1.0", n, SortOrder::descending, seed++);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TYPED_TEST(InCoreSortTest, FewerKeysThanGpus) {
  using T = TypeParam;
  const int g = most_gpus();
  if (g == 1) GTEST_SKIP() << "needs 2 GPUs; " << gpu_counts().present << " present, at most " << gpu_counts().cap;
  GuardedBuffer<T> buffer(kMatrixKeys, 0);
  auto sorter = sorter_for(key_type_of<T>(), g, kMatrixKeys);
  // A round smaller than the GPU count: chunks of one key, and GPUs with none.
  auto tiny = sorter_for(key_type_of<T>(), g, std::uint64_t(g) - 1);
  std::uint64_t seed = 200;
  for (std::uint64_t n = 0; n < std::uint64_t(g); ++n) {
    for (SortOrder order : kOrders) {
      expect_round_sorts<T>(*sorter, buffer, "special", n, order, seed++);
      expect_round_sorts<T>(*tiny, buffer, "special", n, order, seed++);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  // An empty std::vector's data() is null.
  EXPECT_NO_THROW((void)sorter->sort(nullptr, 0, SortOrder::ascending));
}

// Buffers, histograms and bucket tables are reused: nothing of one round may leak into the next.
TYPED_TEST(InCoreSortTest, RoundsOfChangingSizeAndDistributionReuseOneSorter) {
  using T = TypeParam;
  auto sorter = sorter_for(key_type_of<T>(), most_gpus(), kMatrixKeys);
  GuardedBuffer<T> buffer(kMatrixKeys, 0);
  const struct {
    const char* dist;
    std::uint64_t n;
  } rounds[] = {{"uniform", kMatrixKeys}, {"zipf:1.5", kMatrixKeys / 2 + 1}, {"zero", 7},
                {"bits:10", kMatrixKeys}, {"uniform", 0},                    {"sorted", 12345},
                {"zipf:1.0", kMatrixKeys}, {"uniform", kMatrixKeys - 1},     {"special", kMatrixKeys / 3}};
  std::uint64_t seed = 300;
  for (const auto& round : rounds) {
    expect_round_sorts<T>(*sorter, buffer, round.dist, round.n, kOrders[seed % 2], seed);
    ++seed;
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The sorter page-locks unregistered memory for the call only, takes memory the caller page-locked
// itself, and accepts keys that start inside a registered buffer, at an offset that is
// not a multiple of 16 bytes.
TYPED_TEST(InCoreSortTest, UnregisteredAndOffsetHostMemory) {
  using T = TypeParam;
  auto sorter = sorter_for(key_type_of<T>(), most_gpus(), kMatrixKeys);
  const std::vector<T> input = testing::generated_keys<T>("normal", kMatrixKeys, 400);
  const std::vector<T> reference = reference_sort(input, SortOrder::ascending);

  std::vector<T> plain = input;
  (void)sorter->sort(reinterpret_cast<std::byte*>(plain.data()), plain.size(), SortOrder::ascending);
  expect_matches_reference(plain.data(), reference, SortOrder::ascending, "unregistered std::vector");
  std::optional<PinnedRegistration> registration;
  EXPECT_NO_THROW(registration.emplace(plain.data(), plain.size() * sizeof(T)))
      << "the sorter left the caller's memory registered";
  plain = input;  // same capacity: the registration still covers it
  (void)sorter->sort(reinterpret_cast<std::byte*>(plain.data()), plain.size(), SortOrder::ascending);
  expect_matches_reference(plain.data(), reference, SortOrder::ascending, "std::vector registered by the caller");
  registration.reset();

  // Page-locked by the caller with flags of its own, sorted descending (keys decoded on the way back).
  plain = input;
  ASSERT_EQ(cudaHostRegister(plain.data(), plain.size() * sizeof(T), cudaHostRegisterPortable), cudaSuccess);
  (void)sorter->sort(reinterpret_cast<std::byte*>(plain.data()), plain.size(), SortOrder::descending);
  ASSERT_EQ(cudaHostUnregister(plain.data()), cudaSuccess);
  expect_matches_reference(plain.data(), reference_sort(input, SortOrder::descending), SortOrder::descending,
                           "std::vector page-locked by the caller with cudaHostRegister");

  GuardedBuffer<T> offset(kMatrixKeys, 1);
  expect_sorter_sorts(*sorter, offset, input, reference, SortOrder::ascending, "keys one key into a registered buffer");
  const std::vector<T> head(input.begin(), input.begin() + 1000);
  GuardedBuffer<T> inside(kMatrixKeys, 4099);
  expect_sorter_sorts(*sorter, inside, head, reference_sort(head, SortOrder::descending), SortOrder::descending,
                      "1000 keys, 4099 keys into a registered buffer");
}

TYPED_TEST(InCoreSortTest, CountAboveTheRoundIsAnErrorAndTheSorterStaysUsable) {
  using T = TypeParam;
  auto sorter = sorter_for(key_type_of<T>(), most_gpus(), 1000);
  GuardedBuffer<T> buffer(1001, 0);
  buffer.load(testing::generated_keys<T>("uniform", 1001, 500));
  EXPECT_THROW((void)sorter->sort(buffer.bytes(), 1001, SortOrder::ascending), Error);
  expect_round_sorts<T>(*sorter, buffer, "uniform", 1000, SortOrder::ascending, 501);
}

TYPED_TEST(InCoreSortTest, StatsAccountForEveryKey) {
  using T = TypeParam;
  note_skipped_gpu_counts();
  GuardedBuffer<T> buffer(kMatrixKeys, 0);
  std::uint64_t seed = 600;
  for (int g : gpu_counts().tested) {
    auto sorter = sorter_for(key_type_of<T>(), g, kMatrixKeys);
    const InCorePlan& plan = sorter->plan();
    for (const char* dist : {"uniform", "zipf:1.5", "zero", "bits:10"}) {
      for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, kMatrixKeys}) {
        const InCoreStats stats = expect_round_sorts<T>(*sorter, buffer, dist, n, SortOrder::ascending, seed++);
        if (::testing::Test::HasFatalFailure()) return;
        const std::string what = describe<T>(dist, n, SortOrder::ascending, *sorter);
        ASSERT_EQ(stats.gpus.size(), std::size_t(g)) << what;
        ASSERT_EQ(stats.bytes_between.size(), std::size_t(g)) << what;
        if (n > 0) {
          EXPECT_GE(stats.passes, 1) << what;
          EXPECT_GE(stats.buckets, 1u) << what;
          EXPECT_GT(stats.total_ms, 0) << what;
        }
        EXPECT_GE(stats.total_ms, 0) << what;
        std::uint64_t received = 0;
        std::uint64_t moved = 0;
        for (int i = 0; i < g; ++i) {
          const InCoreStats::Gpu& gpu = stats.gpus[std::size_t(i)];
          EXPECT_EQ(gpu.device, plan.gpus[std::size_t(i)]) << what;
          EXPECT_EQ(gpu.histogram_ms.size(), std::size_t(stats.passes)) << what << ", GPU " << gpu.device;
          EXPECT_EQ(gpu.scatter_ms.size(), std::size_t(stats.passes)) << what << ", GPU " << gpu.device;
          EXPECT_EQ(gpu.exchange_ms.size(), std::size_t(stats.passes)) << what << ", GPU " << gpu.device;
          for (double ms : gpu.exchange_ms) EXPECT_GE(ms, 0) << what;
          for (double ms : gpu.histogram_ms) EXPECT_GE(ms, 0) << what;
          for (double ms : gpu.scatter_ms) EXPECT_GE(ms, 0) << what;
          EXPECT_GE(gpu.copy_in_ms, 0) << what;
          EXPECT_GE(gpu.swap_ms, 0) << what;
          EXPECT_GE(gpu.sort_and_copy_back_ms, 0) << what;
          // What a GPU receives fits one half of its double buffer.
          EXPECT_LE(2 * gpu.keys_received * sizeof(T), plan.need[std::size_t(i)].key_buffers) << what;
          received += gpu.keys_received;

          ASSERT_EQ(stats.bytes_between[std::size_t(i)].size(), std::size_t(g)) << what;
          std::uint64_t sent = 0;
          std::uint64_t into = 0;
          for (int j = 0; j < g; ++j) {
            sent += stats.bytes_between[std::size_t(i)][std::size_t(j)];
            into += stats.bytes_between[std::size_t(j)][std::size_t(i)];
          }
          EXPECT_LE(sent, plan.chunk_keys * sizeof(T)) << what << ": GPU " << gpu.device << " sent more than a chunk";
          EXPECT_EQ(into, gpu.keys_received * sizeof(T)) << what << ": GPU " << gpu.device << " received";
          moved += sent;
        }
        EXPECT_EQ(received, n) << what;
        EXPECT_EQ(moved, n * sizeof(T)) << what;
        if (g == 1) {
          EXPECT_EQ(stats.bytes_between[0][0], n * sizeof(T)) << what;
        }
        if (n == kMatrixKeys && std::string_view(dist) == "uniform" && !stats.staged_pairs.empty()) {
          std::string pairs;
          for (const std::string& pair : stats.staged_pairs) pairs += " " + pair;
          std::printf("note: g=%d swaps through host memory between%s\n", g, pairs.c_str());
        }
      }
    }
  }
}

// 2^27-key rounds per type on every GPU (and on GPU 0 listed twice), against a parallel
// std::sort-equivalent reference.
TYPED_TEST(InCoreSortTest, LargeRoundOnEveryGpu) {
  using T = TypeParam;
  const std::uint64_t bytes = kLargeKeys * sizeof(T);
  const std::uint64_t available = available_host_bytes();
  // Input, reference and the pinned buffer, plus room for the rest.
  if (available < 4 * bytes)
    GTEST_SKIP() << "needs about " << (4 * bytes >> 20) << " MiB of available host memory, "
                 << (available >> 20) << " MiB available";
  auto sorter = sorter_for(key_type_of<T>(), most_gpus(), kLargeKeys);
  GuardedBuffer<T> buffer(kLargeKeys, 0);
  expect_round_sorts<T>(*sorter, buffer, "uniform", kLargeKeys, SortOrder::ascending, 700);
  if (::testing::Test::HasFatalFailure()) return;
  expect_round_sorts<T>(*sorter, buffer, "zipf:1.0", kLargeKeys, SortOrder::descending, 701);
  if (::testing::Test::HasFatalFailure()) return;
  // The copy in goes in pieces that end on the kernels' blocks, but the last (gpu/copy_in_pieces.hpp):
  // a count that ends inside a block, and two chunks of such pieces on one device.
  expect_round_sorts<T>(*sorter, buffer, "bits:10", kLargeKeys - 4097, SortOrder::ascending, 702);
  if (::testing::Test::HasFatalFailure()) return;
  InCoreSorter twice(plan_in_core_for(key_type_of<T>(), std::vector<int>{0, 0}, kLargeKeys, std::nullopt));
  expect_round_sorts<T>(twice, buffer, "uniform", kLargeKeys - 1, SortOrder::descending, 703);
  if (::testing::Test::HasFatalFailure()) return;
  // Then one key: the second chunk is empty, copied in no pieces, and the next round's pieces reuse
  // the events of this one.
  expect_round_sorts<T>(twice, buffer, "uniform", 1, SortOrder::ascending, 704);
  if (::testing::Test::HasFatalFailure()) return;
  expect_round_sorts<T>(twice, buffer, "zipf:1.0", kLargeKeys, SortOrder::ascending, 705);
}

}  // namespace
}  // namespace rmgsort

int main(int argc, char** argv) { return rmgsort::testing::gpu_test_main(argc, argv, rmgsort::summary); }
