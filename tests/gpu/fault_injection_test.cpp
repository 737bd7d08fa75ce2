// What the test-only fault injection (gpu/fault_injection.hpp) shows, on a GPU host (label "gpu";
// built only with -DRMGSORT_FAULT_INJECTION=ON):
//   - a CUDA fault in any stage of the in-core sort, of keys or of records carried as pairs, on the
//     first or the second GPU, is an Error naming that GPU and the stage, and the GPUs sort again;
//   - through the engine chooser (sort/gpu_engine.hpp): an allocation that fails once, as if another
//     process had taken the memory, is planned again with smaller rounds that sort correctly; one
//     that always fails leaves the CPU to sort, told once, and the sort plan made with it is a
//     valid plan for the CPU; a fault in an engine's sort is an Error naming the GPU and the stage.
#include "gpu/fault_injection.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/record_pair.hpp"
#include "gpu/devices.hpp"
#include "gpu/in_core_sort.hpp"
#include "host/radix_sort.hpp"
#include "sort/cpu_engine.hpp"
#include "sort/gpu_engine.hpp"
#include "sort/sort_plan.hpp"

namespace rmgsort {
namespace {

constexpr std::uint64_t kKeys = (std::uint64_t{1} << 20) + 3;
constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// Sets RMGSORT_INJECT_FAULT's value for the scope; after it nothing is injected and the memory the
// fault took is given back.
class InjectedFault {
 public:
  explicit InjectedFault(const std::string& spec) { fault_injection::set_spec(spec); }
  ~InjectedFault() {
    fault_injection::set_spec("");
    fault_injection::release_taken_memory();
  }
  InjectedFault(const InjectedFault&) = delete;
  InjectedFault& operator=(const InjectedFault&) = delete;
};

std::vector<std::uint64_t> random_keys(std::uint64_t count, std::uint64_t seed) {
  std::vector<std::uint64_t> keys(count);
  std::mt19937_64 random(seed);
  for (auto& key : keys) key = random();
  return keys;
}

// The stage as RMGSORT_INJECT_FAULT names it, and what the error must say.
struct Stage {
  const char* name;
  const char* label;  // the stage's words after "GPU N, "
  const char* call;   // the failing check's call, where one stage label covers two steps
};
constexpr Stage kStages[] = {
    {"copy-in", "copy in", ""},
    {"histogram", "histogram of pass 1", ""},
    {"scatter", "scatter of pass 1", ""},
    {"swap", "key swap", ""},
    {"bucket-sort", "bucket sorts", "DeviceRadixSort"},
    {"copy-back", "copy back", "cudaMemcpyDeviceToHost"},
};

// The GPU sets tested, and the GPU of each that the fault is injected on: GPU 0 alone, and the
// second of two where there are two.
std::vector<std::pair<std::vector<int>, int>> gpu_cases() {
  std::vector<std::pair<std::vector<int>, int>> cases{{{0}, 0}};
  if (cuda_device_count() >= 2) cases.push_back({{0, 1}, 1});
  return cases;
}

// 16-byte records with a u64 key at offset 0: carried as pairs.
const RecordLayout kPairRecords = RecordLayout::of(KeySpec{KeyType::u64, 8}, 16, 0);

// Sorts kKeys keys (or records as pairs) on `gpus`: the error's text, or "" when it sorted (checked).
std::string sort_once(const std::vector<int>& gpus, bool records) {
  try {
    if (!records) {
      InCoreSorter sorter(plan_in_core_for(KeyType::u64, gpus, kKeys, std::nullopt));
      std::vector<std::uint64_t> keys = random_keys(kKeys, 7);
      std::vector<std::uint64_t> expected = keys;
      std::sort(expected.begin(), expected.end());
      (void)sorter.sort(reinterpret_cast<std::byte*>(keys.data()), kKeys, SortOrder::ascending);
      EXPECT_EQ(keys, expected) << "keys on " << gpus.size() << " GPU(s) not sorted";
      return "";
    }
    InCoreSorter sorter(plan_in_core_for(pair_key_type(kPairRecords), gpus, kKeys, std::nullopt, kPairValueBytes));
    std::vector<std::uint64_t> words = random_keys(2 * kKeys, 8);  // key, then 8 bytes of payload
    std::vector<std::uint64_t> expected_keys;
    for (std::uint64_t i = 0; i < kKeys; ++i) expected_keys.push_back(words[2 * i]);
    std::sort(expected_keys.begin(), expected_keys.end());
    (void)sorter.sort_records(reinterpret_cast<std::byte*>(words.data()), kKeys, kPairRecords, SortOrder::ascending);
    std::vector<std::uint64_t> keys;
    for (std::uint64_t i = 0; i < kKeys; ++i) keys.push_back(words[2 * i]);
    EXPECT_EQ(keys, expected_keys) << "records on " << gpus.size() << " GPU(s) not sorted";
    return "";
  } catch (const Error& error) {
    return error.what();
  }
}

TEST(FaultInjectionTest, AFaultInEveryStageNamesTheGpuAndTheStageAndTheGpusSortAgain) {
  for (const bool records : {false, true}) {
    for (const auto& [gpus, faulty] : gpu_cases()) {
      for (const Stage& stage : kStages) {
        const std::string spec = std::string(stage.name) + ":" + std::to_string(faulty);
        const std::string what = spec + (records ? ", records as pairs" : ", keys") + " on " +
                                 std::to_string(gpus.size()) + " GPU(s)";
        std::string message;
        {
          const InjectedFault fault(spec);
          message = sort_once(gpus, records);
        }
        ASSERT_NE(message, "") << what << ": the sort did not fail";
        const std::string gpu = "GPU " + std::to_string(faulty) + ", ";
        EXPECT_EQ(message.find(gpu), 0u) << what << ": " << message;
        EXPECT_NE(message.find(stage.label), std::string::npos) << what << ": " << message;
        EXPECT_NE(message.find(stage.call), std::string::npos) << what << ": " << message;
        EXPECT_NE(message.find("cudaErrorLaunchFailure"), std::string::npos) << what << ": " << message;
        EXPECT_NE(message.find("injected: RMGSORT_INJECT_FAULT=" + spec), std::string::npos) << what << ": " << message;
        EXPECT_EQ(sort_once(gpus, records), "") << what << ": the GPUs do not sort after the fault";
      }
    }
  }
}

TEST(FaultInjectionTest, AMalformedSpecIsAnErrorNamingTheVariable) {
  for (const char* spec : {"copy", "copy-in:", "copy-in:x", "copy-in:-1", "allocate:0:1"}) {
    try {
      fault_injection::set_spec(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(std::string("RMGSORT_INJECT_FAULT=") + spec), std::string::npos)
          << error.what();
    }
  }
  fault_injection::set_spec("");
}

// ---------------------------------------------------------------------------------------------------
// Through the engine chooser

const RecordLayout kU64 = RecordLayout::bare_key(KeyType::u64);

struct Chooser {
  std::vector<std::string> notices;
  GpuEngineChooser choose =
      gpu_engine_chooser({0}, std::nullopt, [this](const std::string& line) { notices.push_back(line); });
};

TEST(GpuEngineFaultTest, AnAllocationThatFailsOnceIsPlannedAgainWithSmallerRoundsThatSort) {
  const InjectedFault fault("allocate:0");
  Chooser chooser;
  std::string why_not;
  std::unique_ptr<SortEngine> engine =
      chooser.choose(kU64, PositionSource::none, kKeys, RoundSorting::one_at_a_time, why_not);
  ASSERT_NE(engine, nullptr) << why_not;
  EXPECT_EQ(engine->name(), "gpu");
  EXPECT_LT(engine->round_keys(), kKeys) << "half the memory, about half the round";
  EXPECT_GT(engine->round_keys(), kKeys / 4);
  ASSERT_EQ(chooser.notices.size(), 1u);
  EXPECT_EQ(chooser.notices[0].find("rmgsort: GPU 0 has only "), 0u) << chooser.notices[0];
  EXPECT_NE(chooser.notices[0].find("; planned again for rounds of " + std::to_string(engine->round_keys()) +
                                    " keys instead of " + std::to_string(kKeys)),
            std::string::npos)
      << chooser.notices[0];
  const std::string stats = engine->stats().dump();
  EXPECT_NE(stats.find("\"replanned_because\":\"GPU 0 has only "), std::string::npos) << stats;
  EXPECT_NE(stats.find("\"round_keys_first_planned\":" + std::to_string(kKeys)), std::string::npos) << stats;

  const std::uint64_t round = engine->round_keys();
  engine->allocate(round);
  std::vector<std::uint64_t> keys = random_keys(round, 9);
  std::vector<std::uint64_t> expected = keys;
  std::sort(expected.begin(), expected.end());
  (void)engine->sort(reinterpret_cast<std::byte*>(keys.data()), round, SortOrder::ascending);
  EXPECT_EQ(keys, expected);
}

TEST(GpuEngineFaultTest, WhenNotEvenASmallerPlanIsAllocatedTheCpuSortsToldOnce) {
  const InjectedFault fault("allocate-always:0");
  Chooser chooser;
  std::string why_not;
  EXPECT_EQ(chooser.choose(kU64, PositionSource::none, kKeys, RoundSorting::one_at_a_time, why_not), nullptr);
  EXPECT_NE(why_not.find("GPU 0"), std::string::npos) << why_not;
  EXPECT_NE(why_not.find("a smaller plan could not be allocated either"), std::string::npos) << why_not;
  ASSERT_EQ(chooser.notices.size(), 1u);
  EXPECT_EQ(chooser.notices[0].find("rmgsort: "), 0u) << chooser.notices[0];
  EXPECT_NE(chooser.notices[0].find("; sorting on the CPU"), std::string::npos) << chooser.notices[0];
  // The rest of the run: the CPU, without trying or telling again.
  std::string again;
  EXPECT_EQ(chooser.choose(kU64, PositionSource::none, 1000, RoundSorting::one_at_a_time, again), nullptr);
  EXPECT_EQ(again, why_not);
  EXPECT_EQ(chooser.notices.size(), 1u);
}

// The GPUs would sort 32 MiB of keys in place within one byte less than the CPU's sort needs (the
// keys and its in-place sort's buffers beside them, host/radix_sort.hpp), so the CPU's plan spills.
TEST(GpuEngineFaultTest, APlanWhoseGpusCannotHaveTheirMemoryIsAValidPlanForTheCpu) {
  const InjectedFault fault("allocate-always:0");
  Chooser chooser;
  const std::uint64_t host_memory = 32 * kMiB + radix_sort_scratch_bytes(KeyType::u64, 4 * kMiB) - 1;
  const PlanRequest request{kU64, false, "in.u64", host_memory, chooser.choose};
  const SortPlan plan = plan_file(request, 32 * kMiB);
  EXPECT_EQ(plan.engine->name(), "cpu");
  EXPECT_NE(plan.cpu_because.find("GPU 0"), std::string::npos) << plan.cpu_because;
  EXPECT_EQ(plan.path, SortPath::spill);
  EXPECT_EQ(plan.memory.sort_scratch, radix_sort_scratch_bytes(KeyType::u64, plan.round_keys))
      << "the CPU's radix sort buffers";
  EXPECT_LE(plan.memory.peak(), host_memory);
}

TEST(GpuEngineFaultTest, AFaultInAnEnginesSortNamesTheGpuAndTheStage) {
  Chooser chooser;
  std::string why_not;
  std::unique_ptr<SortEngine> engine =
      chooser.choose(kU64, PositionSource::none, kKeys, RoundSorting::one_at_a_time, why_not);
  ASSERT_NE(engine, nullptr) << why_not;
  EXPECT_EQ(chooser.notices.size(), 0u);
  engine->allocate(kKeys);
  std::vector<std::uint64_t> keys = random_keys(kKeys, 10);
  const InjectedFault fault("scatter:0");
  try {
    (void)engine->sort(reinterpret_cast<std::byte*>(keys.data()), kKeys, SortOrder::ascending);
    ADD_FAILURE() << "the sort did not fail";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()).find("GPU 0, scatter of pass 1: CUDA error cudaErrorLaunchFailure"), 0u)
        << error.what();
  }
}

}  // namespace
}  // namespace rmgsort
