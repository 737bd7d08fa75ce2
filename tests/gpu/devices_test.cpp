// Runs on a GPU host (label "gpu"); exits 77 where there is no CUDA device.
#include "gpu/devices.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace rmgsort {
namespace {

TEST(DevicesTest, EveryDeviceReportsANameAndMemory) {
  const int count = cuda_device_count();
  ASSERT_GT(count, 0);
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    const GpuInfo info = gpu_info(ordinal);
    EXPECT_FALSE(info.name.empty());
    EXPECT_GT(info.total_memory, 0u);
    EXPECT_LE(info.free_memory, info.total_memory);
  }
}

// Kernel grids are sized by it: a real count, the same from the cache as from the first query.
TEST(DevicesTest, EveryDeviceReportsItsMultiprocessorsOnceAndForAll) {
  const int count = cuda_device_count();
  ASSERT_GT(count, 0);
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    const int first = multiprocessor_count(ordinal);
    EXPECT_GT(first, 0) << "GPU " << ordinal;
    EXPECT_EQ(multiprocessor_count(ordinal), first) << "GPU " << ordinal;
  }
}

// rmgsort --version's view: every device, as gpu_info sees it, with a compute capability, and a
// driver new enough for the linked runtime.
TEST(DevicesTest, CudaSummaryListsEveryDevice) {
  const CudaSummary summary = cuda_summary();
  EXPECT_TRUE(summary.built_with_cuda);
  EXPECT_FALSE(summary.architectures.empty());
  EXPECT_GT(summary.runtime_version, 0);
  EXPECT_GT(summary.driver_version, 0);
  EXPECT_FALSE(summary.driver_too_old);
  ASSERT_EQ(summary.gpus.size(), std::size_t(cuda_device_count()));
  for (std::size_t i = 0; i < summary.gpus.size(); ++i) {
    const CudaSummary::Gpu& gpu = summary.gpus[i];
    EXPECT_EQ(gpu.ordinal, int(i));
    const GpuInfo info = gpu_info(gpu.ordinal);
    EXPECT_EQ(gpu.name, info.name);
    EXPECT_GE(gpu.total_memory, info.free_memory) << "GPU " << i;
    EXPECT_GE(gpu.major, 1) << "GPU " << i;
  }
}

}  // namespace
}  // namespace rmgsort

int main(int argc, char** argv) {
  if (rmgsort::cuda_device_count() == 0) return 77;  // ctest: skipped
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
