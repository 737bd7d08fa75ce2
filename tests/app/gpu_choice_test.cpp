// app/gpu_choice: --gpus all sends an input smaller than the CPU's first share (sort/small_input.hpp)
// to the CPU without looking for GPUs, and looks for them above it; a device list and --gpus none
// are never overruled by the input's size. (Without a GPU, the GPUs' chooser then declines with
// its own reason: what is checked here is who decided, and what `selected` holds.)
#include "app/gpu_choice.hpp"

#include <gtest/gtest.h>

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "gpu/devices.hpp"
#include "sort/small_input.hpp"

namespace rmgsort {
namespace {

constexpr std::size_t kThreads = 2;

struct Choice {
  std::unique_ptr<SortEngine> engine;
  std::string why_not;
  std::vector<int> selected;
};

Choice choose(GpuSpec spec, std::vector<int> listed, const RecordLayout& layout, std::uint64_t records) {
  Choice result;
  GpuEngineChooser chooser = choose_gpu_engine(GpuChoice{std::move(spec), std::move(listed), std::nullopt, kThreads},
                                               result.selected);
  result.engine = chooser(layout, PositionSource::none, records, RoundSorting::one_at_a_time, result.why_not);
  return result;
}

bool says_small(const Choice& choice) { return choice.why_not.find("small input") != std::string::npos; }

const RecordLayout kU64 = RecordLayout::of(KeySpec{KeyType::u64, 8}, 8, 0);
const RecordLayout kRows = RecordLayout::of(KeySpec{KeyType::bytes, 10}, 100, 0);

TEST(CpuFirstInputBytes, ScalesWithTheThreadsAndCountsAtLeastOne) {
  EXPECT_EQ(cpu_first_input_bytes(1), kCpuFirstBytesPerThread);
  EXPECT_EQ(cpu_first_input_bytes(0), kCpuFirstBytesPerThread);
  EXPECT_EQ(cpu_first_input_bytes(16), 16 * kCpuFirstBytesPerThread);
}

TEST(GpuChoice, AllSendsAnInputUnderTheThresholdToTheCpuWithoutSelectingAGpu) {
  const std::uint64_t threshold = cpu_first_input_bytes(kThreads);
  for (const RecordLayout& layout : {kU64, kRows}) {
    for (const std::uint64_t records : {std::uint64_t{1}, std::uint64_t{7}, threshold / layout.record_size - 1}) {
      const Choice choice = choose({GpuSpec::Kind::all, {}}, {}, layout, records);
      EXPECT_EQ(choice.engine, nullptr);
      EXPECT_TRUE(says_small(choice)) << records << " records: " << choice.why_not;
      EXPECT_NE(choice.why_not.find(std::to_string(records * layout.record_size) + " bytes"), std::string::npos)
          << choice.why_not;
      EXPECT_TRUE(choice.selected.empty());
    }
  }
}

TEST(GpuChoice, AllLooksForTheGpusFromTheThresholdOn) {
  const std::uint64_t records = cpu_first_input_bytes(kThreads) / kU64.record_size;
  const Choice choice = choose({GpuSpec::Kind::all, {}}, {}, kU64, records);
  EXPECT_FALSE(says_small(choice)) << choice.why_not;
  EXPECT_EQ(int(choice.selected.size()), cuda_device_count());
  EXPECT_EQ(choice.engine != nullptr, !choice.selected.empty()) << choice.why_not;
}

TEST(GpuChoice, NoKeysAreNotASmallInput) {
  const Choice choice = choose({GpuSpec::Kind::all, {}}, {}, kU64, 0);
  EXPECT_EQ(choice.engine, nullptr);
  EXPECT_FALSE(says_small(choice)) << choice.why_not;
}

// (Without a GPU, a CUDA build's chooser fails planning for GPU 0, which is what shows that it, not
// the small-input rule, was asked. The command line refuses such a list before it gets here.)
TEST(GpuChoice, ADeviceListIsNeverOverruledBySize) {
  GpuChoice choice;
  choice.spec.kind = GpuSpec::Kind::list;
  choice.spec.ordinals = {0};
  choice.listed = {0};
  choice.threads = kThreads;
  std::vector<int> selected;
  const GpuEngineChooser chooser = choose_gpu_engine(choice, selected);
  std::string why_not;
  try {
    const std::unique_ptr<SortEngine> engine =
        chooser(kU64, PositionSource::none, 1, RoundSorting::one_at_a_time, why_not);
    EXPECT_EQ(why_not.find("small input"), std::string::npos) << why_not;
  } catch (const std::exception& error) {
    EXPECT_EQ(cuda_device_count(), 0) << error.what();
  }
  EXPECT_EQ(selected, std::vector<int>{0});
}

TEST(GpuChoice, NoneSelectsNothingAtAnySize) {
  for (const std::uint64_t records : {std::uint64_t{1}, cpu_first_input_bytes(kThreads)}) {
    const Choice choice = choose({GpuSpec::Kind::none, {}}, {}, kU64, records);
    EXPECT_EQ(choice.engine, nullptr);
    EXPECT_FALSE(says_small(choice)) << choice.why_not;
    EXPECT_TRUE(choice.selected.empty());
  }
}

}  // namespace
}  // namespace rmgsort
