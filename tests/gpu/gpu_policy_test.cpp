// The GPU policy's derived limits against the planner that relies on them (pure host code).
#include "gpu/gpu_policy.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "gpu/partition_planner.hpp"

namespace rmgsort {
namespace {

std::uint64_t planned_buffer_keys(std::uint64_t chunk_keys, int key_bits) {
  PlannerConfig config;
  config.key_bits = key_bits;
  return PartitionPlanner(std::vector<std::uint64_t>{chunk_keys}, config).buffer_keys();
}

// A pass counts and offsets keys in 32 bits: the largest planned chunk's buffer, with the planner's
// own ε at both ends, must stay within them, and no chunk noticeably larger may fit.
TEST(GpuPolicyTest, LargestPlannedChunkIsTheLargestWhoseBufferAPassCanCount) {
  for (int key_bits : {32, 64}) {
    EXPECT_LE(planned_buffer_keys(gpu_policy::kMaxPlannedChunk, key_bits), gpu_policy::kMaxChunkKeys);
    const std::uint64_t larger = gpu_policy::kMaxPlannedChunk + gpu_policy::kMaxPlannedChunk / 100000;
    EXPECT_GT(planned_buffer_keys(larger, key_bits), gpu_policy::kMaxChunkKeys);
  }
}

// The planner's ε is the policy's: the buffers the memory plan sizes from the policy hold what the
// planner lets a GPU receive.
TEST(GpuPolicyTest, PlannerEpsilonIsThePolicys) {
  const std::uint64_t chunk = 1000000;
  const PartitionPlanner planner(std::vector<std::uint64_t>{chunk, chunk - 1}, PlannerConfig{});
  EXPECT_EQ(planner.epsilon_keys(), chunk / gpu_policy::kEpsilonReciprocal);
  EXPECT_EQ(planner.buffer_keys(), chunk + 2 * chunk / gpu_policy::kEpsilonReciprocal);
}

}  // namespace
}  // namespace rmgsort
