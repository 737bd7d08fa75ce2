// app/version: the lines of `rmgsort --version` for every answer CUDA can give (built without it, no
// driver, a driver too old, no GPU, GPUs with and without code in the build), and which compute
// capabilities a list of CUDA architectures runs on.
#include "app/version.hpp"

#include <gtest/gtest.h>

#include <string>

namespace rmgsort {
namespace {

constexpr const char* kDefault = "80-real 86-real 89-real 90-real 100-real 120";

CudaSummary built_with_cuda(int driver_version) {
  CudaSummary summary;
  summary.built_with_cuda = true;
  summary.architectures = kDefault;
  summary.runtime_version = 13000;
  summary.driver_version = driver_version;
  return summary;
}

TEST(VersionText, BuiltWithoutCudaSaysSo) {
  EXPECT_EQ(cuda_version_text(CudaSummary{}), "built without CUDA: rmgsort sorts on the CPU\n");
}

TEST(VersionText, NoDriverIsAnAnswer) {
  EXPECT_EQ(cuda_version_text(built_with_cuda(0)),
            "CUDA runtime 13.0 (linked in), GPU code for architectures 80-real 86-real 89-real 90-real 100-real 120\n"
            "no CUDA driver: rmgsort sorts on the CPU\n");
}

TEST(VersionText, DriverTooOldForTheRuntime) {
  CudaSummary summary = built_with_cuda(12040);
  summary.driver_too_old = true;
  EXPECT_EQ(cuda_version_text(summary),
            "CUDA runtime 13.0 (linked in), GPU code for architectures 80-real 86-real 89-real 90-real 100-real 120\n"
            "CUDA driver 12.4\n"
            "the CUDA driver is older than the runtime needs: no GPU can be used, rmgsort sorts on the CPU\n");
}

TEST(VersionText, DriverWithoutGpu) {
  EXPECT_EQ(cuda_version_text(built_with_cuda(13010)),
            "CUDA runtime 13.0 (linked in), GPU code for architectures 80-real 86-real 89-real 90-real 100-real 120\n"
            "CUDA driver 13.1\n"
            "no GPU: rmgsort sorts on the CPU\n");
}

TEST(VersionText, EveryGpuWithIndexNameMemoryAndCapability) {
  CudaSummary summary = built_with_cuda(13000);
  summary.gpus = {{0, "NVIDIA H200", std::uint64_t{150} << 30, 9, 0},
                  {1, "NVIDIA GeForce RTX 4090", std::uint64_t{24} << 30, 8, 9},
                  {2, "Tesla T4", std::uint64_t{15} << 30, 7, 5}};
  EXPECT_EQ(cuda_version_text(summary),
            "CUDA runtime 13.0 (linked in), GPU code for architectures 80-real 86-real 89-real 90-real 100-real 120\n"
            "CUDA driver 13.0\n"
            "GPU 0: NVIDIA H200, 150.00 GiB, compute capability 9.0\n"
            "GPU 1: NVIDIA GeForce RTX 4090, 24.00 GiB, compute capability 8.9\n"
            "GPU 2: Tesla T4, 15.00 GiB, compute capability 7.5 (this build has no GPU code for it)\n");
}

TEST(ArchitecturesRunOn, DefaultListCoversAmpereToBlackwellAndLater) {
  for (const auto& [major, minor] : {std::pair{8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {10, 3}, {12, 0},
                                     {12, 1}, {13, 0}}) {
    EXPECT_EQ(architectures_run_on(kDefault, major, minor), true) << major << "." << minor;
  }
  // Before Ampere; 11.0 has neither machine code (no 110) nor PTX old enough (compute_120).
  for (const auto& [major, minor] : {std::pair{7, 0}, {7, 5}, {6, 1}, {11, 0}}) {
    EXPECT_EQ(architectures_run_on(kDefault, major, minor), false) << major << "." << minor;
  }
}

TEST(ArchitecturesRunOn, MachineCodeRunsOnLaterMinorsPtxOnEverythingLater) {
  EXPECT_EQ(architectures_run_on("90", 9, 0), true);
  EXPECT_EQ(architectures_run_on("90", 10, 0), true);  // PTX
  EXPECT_EQ(architectures_run_on("90-real", 10, 0), false);
  EXPECT_EQ(architectures_run_on("86-real", 8, 9), true);
  EXPECT_EQ(architectures_run_on("86-real", 8, 0), false);
  EXPECT_EQ(architectures_run_on("90-virtual", 8, 9), false);
  EXPECT_EQ(architectures_run_on("90-virtual", 12, 0), true);
  EXPECT_EQ(architectures_run_on("90a-real", 9, 0), true);  // arch-specific: that GPU only
  EXPECT_EQ(architectures_run_on("90a-real", 10, 0), false);
  EXPECT_EQ(architectures_run_on("", 9, 0), false);
}

TEST(ArchitecturesRunOn, ListsThatDoNotSayAreUnknown) {
  EXPECT_EQ(architectures_run_on("native", 9, 0), std::nullopt);
  EXPECT_EQ(architectures_run_on("all-major", 9, 0), std::nullopt);
  EXPECT_EQ(architectures_run_on("90-realx", 9, 0), std::nullopt);
}

TEST(VersionText, NoRemarkWhereTheListDoesNotSay) {
  CudaSummary summary = built_with_cuda(13000);
  summary.architectures = "native";
  summary.gpus = {{0, "Tesla T4", std::uint64_t{15} << 30, 7, 5}};
  EXPECT_EQ(cuda_version_text(summary),
            "CUDA runtime 13.0 (linked in), GPU code for architectures native\n"
            "CUDA driver 13.0\n"
            "GPU 0: Tesla T4, 15.00 GiB, compute capability 7.5\n");
}

}  // namespace
}  // namespace rmgsort
