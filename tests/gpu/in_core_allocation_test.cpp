// allocate_in_core (gpu/in_core_allocation.hpp) when another process takes GPU memory between the
// plan and the allocation: here the test takes it for real (cudaMalloc) after planning. The plan is
// allocated as made when its memory is still free; made again once, with smaller rounds that sort
// correctly, when the memory left holds a smaller round; given up, with the reasons, when it does
// not even hold that. On a GPU host (label "gpu"; exits 77 where there is no CUDA device); GPU 0,
// and GPU 1 where there is one.
#include "gpu/in_core_allocation.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gpu/device_resources.hpp"
#include "gpu/devices.hpp"
#include "gpu/memory_plan.cuh"
#include "tests/gpu/gpu_test_main.hpp"

namespace rmgsort {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// Takes `device`'s memory for as long as it lives, as another process would, until `left` bytes
// are free.
class TakenMemory {
 public:
  TakenMemory(int device, std::uint64_t left) {
    ScopedDevice scope(device);
    std::size_t free = 0, total = 0;
    RMGSORT_CUDA_TRY(cudaMemGetInfo(&free, &total));
    if (free > left) taken_ = DeviceBuffer(free - left, "memory taken by the test");
  }

 private:
  DeviceBuffer taken_;
};

std::uint64_t free_on(int device) { return gpu_info(device).free_memory; }

// `sorter` sorts `count` random u64 keys like std::sort.
void expect_sorts(InCoreSorter& sorter, std::uint64_t count) {
  std::vector<std::uint64_t> keys(count);
  std::mt19937_64 random(count);
  for (auto& key : keys) key = random();
  std::vector<std::uint64_t> expected = keys;
  std::sort(expected.begin(), expected.end());
  (void)sorter.sort(reinterpret_cast<std::byte*>(keys.data()), count, SortOrder::ascending);
  EXPECT_EQ(keys, expected) << "the sorter allocated after the failure does not sort " << count << " keys";
}

TEST(AllocateInCoreTest, ThePlanIsAllocatedAsMadeWhileItsMemoryIsFree) {
  const InCorePlan plan = plan_in_core_for(KeyType::u64, {0}, std::uint64_t{1} << 20, std::nullopt);
  InCoreAllocation allocation = allocate_in_core(plan, std::uint64_t{1} << 20, std::nullopt);
  ASSERT_NE(allocation.sorter, nullptr) << allocation.first_failure << " / " << allocation.replan_failure;
  EXPECT_EQ(allocation.sorter->plan().round_keys, plan.round_keys);
  EXPECT_EQ(allocation.first_round_keys, plan.round_keys);
  EXPECT_EQ(allocation.first_failure, "");
  EXPECT_FALSE(allocation.shortfall.has_value());
  EXPECT_EQ(allocation.replan_failure, "");
  EXPECT_GE(allocation.seconds, 0.0);
}

// A 4 GiB plan, then all but the margin and 2 GiB taken: the allocation fails for real (2.5 GiB
// free), and the plan made again fits the 2 GiB usable: about half the round.
TEST(AllocateInCoreTest, MemoryTakenAfterThePlanGivesOneSmallerPlanThatSorts) {
  constexpr std::uint64_t kBudget = 4 * kGiB;
  if (free_on(0) < kBudget + kGpuMemoryMargin + kGiB) GTEST_SKIP() << "GPU 0 has less than 5.5 GiB free";
  const InCorePlan largest = plan_in_core(KeyType::u64, {0}, kBudget);
  const std::uint64_t keys = largest.round_keys;  // the input asks for all of it
  const InCorePlan plan = plan_in_core_for(KeyType::u64, {0}, keys, kBudget);
  const std::uint64_t planned = plan.need[0].total();
  const TakenMemory taken(0, kGpuMemoryMargin + planned / 2);

  InCoreAllocation allocation = allocate_in_core(plan, keys, kBudget);
  ASSERT_NE(allocation.sorter, nullptr) << "re-plan failed: " << allocation.replan_failure;
  EXPECT_NE(allocation.first_failure.find("GPU 0"), std::string::npos) << allocation.first_failure;
  ASSERT_TRUE(allocation.shortfall.has_value());
  EXPECT_EQ(allocation.shortfall->device, 0);
  EXPECT_EQ(allocation.shortfall->planned, planned);
  EXPECT_LT(allocation.shortfall->usable, planned);
  EXPECT_GE(allocation.shortfall->free, allocation.shortfall->usable);
  const InCorePlan& again = allocation.sorter->plan();
  EXPECT_EQ(allocation.first_round_keys, keys);
  EXPECT_LT(again.round_keys, keys);
  EXPECT_GT(again.round_keys, keys / 4) << "half the memory holds about half the round";
  EXPECT_LE(again.need[0].total(), allocation.shortfall->usable);
  EXPECT_EQ(allocation.replan_failure, "");
  expect_sorts(*allocation.sorter, std::min<std::uint64_t>(again.round_keys, std::uint64_t{1} << 22));
}

// All but 64 MiB taken (less than the margin): nothing usable is left, so there is no sorter, and
// both reasons are told.
TEST(AllocateInCoreTest, WhenNotEvenASmallerPlanFitsThereIsNoSorterAndBothReasons) {
  const InCorePlan plan = plan_in_core(KeyType::u32, {0}, kGiB);
  const TakenMemory taken(0, 64 * kMiB);
  const InCoreAllocation allocation = allocate_in_core(plan, plan.round_keys, kGiB);
  EXPECT_EQ(allocation.sorter, nullptr);
  EXPECT_NE(allocation.first_failure, "");  // (which allocation failed first depends on the driver)
  ASSERT_TRUE(allocation.shortfall.has_value());
  EXPECT_EQ(allocation.shortfall->device, 0);
  EXPECT_EQ(allocation.shortfall->usable, 0u);
  EXPECT_LE(allocation.shortfall->free, 128 * kMiB) << "what the test left free, and the driver's slack";
  EXPECT_NE(allocation.replan_failure, "");
  std::printf("first failure: %s\nre-plan failure: %s\n", allocation.first_failure.c_str(),
              allocation.replan_failure.c_str());
}

// Two GPUs, memory taken on the second: the round made again fits the second, and it is the one named.
TEST(AllocateInCoreTest, TheGpuShortOfItsPlanIsNamedAndDecidesTheRound) {
  if (cuda_device_count() < 2) GTEST_SKIP() << "needs 2 GPUs";
  constexpr std::uint64_t kBudget = 4 * kGiB;
  for (int device : {0, 1})
    if (free_on(device) < kBudget + kGpuMemoryMargin + kGiB) GTEST_SKIP() << "GPU " << device << " lacks 5.5 GiB free";
  const InCorePlan plan = plan_in_core(KeyType::u64, {0, 1}, kBudget);
  const TakenMemory taken(1, kGpuMemoryMargin + plan.need[1].total() / 2);
  InCoreAllocation allocation = allocate_in_core(plan, plan.round_keys, kBudget);
  ASSERT_NE(allocation.sorter, nullptr) << allocation.replan_failure;
  ASSERT_TRUE(allocation.shortfall.has_value());
  EXPECT_EQ(allocation.shortfall->device, 1);
  EXPECT_LT(allocation.sorter->plan().round_keys, plan.round_keys);
  for (const GpuMemoryNeed& need : allocation.sorter->plan().need)
    EXPECT_LE(need.total(), allocation.shortfall->usable) << "equal chunks: the shortest GPU decides";
  expect_sorts(*allocation.sorter, std::uint64_t{1} << 20);
}

// What a failed sort left enqueued is done when wait_for_gpus returns, and the current device is
// the caller's again.
TEST(AllocateInCoreTest, WaitingForTheGpusFinishesWhatIsEnqueuedAndKeepsTheCurrentDevice) {
  const int last = cuda_device_count() - 1;
  ScopedDevice on_last(last);
  Stream stream;
  DeviceBuffer buffer(256 * kMiB, "the test's buffer");
  for (int i = 0; i < 16; ++i) RMGSORT_CUDA_TRY(cudaMemsetAsync(buffer.as(), i, buffer.bytes(), stream.get()));
  wait_for_gpus({0, last});
  EXPECT_EQ(cudaStreamQuery(stream.get()), cudaSuccess);
  int current = -1;
  RMGSORT_CUDA_TRY(cudaGetDevice(&current));
  EXPECT_EQ(current, last);
  wait_for_gpus({});  // nothing to wait for
}

}  // namespace
}  // namespace rmgsort

int main(int argc, char** argv) { return rmgsort::testing::gpu_test_main(argc, argv); }
