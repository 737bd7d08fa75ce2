// The description of a partitioning pass that its histograms and its scatter both walk (pure host
// code): which parts each GPU holds, their blocks and block-count slots, and the planner's
// histograms from their digit starts.
#include "gpu/pass_parts.hpp"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "gpu/gpu_policy.hpp"

namespace rmgsort {
namespace {

constexpr std::uint64_t kBlockKeys32 = gpu_policy::kKeysPerBlock<4>;
constexpr std::uint64_t kDigits = gpu_policy::kDigits;

// Two spanning buckets on three GPUs; GPU 1 holds none of the first, GPU 2 none of either.
std::vector<SpanningBucket> two_buckets_on_three_gpus() {
  return {SpanningBucket{{GpuRange{0, 2 * kBlockKeys32 + 1}, GpuRange{0, 0}, GpuRange{0, 0}}, 24},
          SpanningBucket{{GpuRange{2 * kBlockKeys32 + 1, 5}, GpuRange{0, kBlockKeys32}, GpuRange{7, 0}}, 16}};
}

TEST(PassPartsTest, EachGpuWalksItsNonEmptyPartsWithConsecutiveBlockCountSlots) {
  const PassParts parts = pass_parts(two_buckets_on_three_gpus(), 3, 4);
  EXPECT_EQ(parts.rows, 6u);
  ASSERT_EQ(parts.on_gpu.size(), 3u);

  ASSERT_EQ(parts.on_gpu[0].size(), 2u);
  const PassPart& first = parts.on_gpu[0][0];
  EXPECT_EQ(first.row, 0u);  // bucket 0, GPU 0
  EXPECT_EQ(first.range.offset, 0u);
  EXPECT_EQ(first.range.keys, 2 * kBlockKeys32 + 1);
  EXPECT_EQ(first.digit_shift, 24);
  EXPECT_EQ(first.blocks, 3u);  // two full blocks and one key
  EXPECT_EQ(first.slot, 0u);
  const PassPart& second = parts.on_gpu[0][1];
  EXPECT_EQ(second.row, 3u);  // bucket 1, GPU 0
  EXPECT_EQ(second.range.offset, 2 * kBlockKeys32 + 1);
  EXPECT_EQ(second.digit_shift, 16);
  EXPECT_EQ(second.blocks, 1u);
  EXPECT_EQ(second.slot, 3 * kDigits);  // after the first part's 3 blocks of kDigits counts

  ASSERT_EQ(parts.on_gpu[1].size(), 1u);  // its empty part of bucket 0 is left out...
  EXPECT_EQ(parts.on_gpu[1][0].row, 4u);
  EXPECT_EQ(parts.on_gpu[1][0].slot, 0u);  // ...and takes no slots
  EXPECT_EQ(parts.on_gpu[1][0].blocks, 1u);
  EXPECT_TRUE(parts.on_gpu[2].empty());
}

TEST(PassPartsTest, BlocksFollowTheKeyWidth) {
  const std::vector<SpanningBucket> spanning = {SpanningBucket{{GpuRange{0, gpu_policy::kKeysPerBlock<8> + 1}}, 56}};
  EXPECT_EQ(pass_parts(spanning, 1, 8).on_gpu[0][0].blocks, 2u);
  EXPECT_EQ(pass_parts(spanning, 1, 4).on_gpu[0][0].blocks, 1u);
}

TEST(PassPartsTest, HistogramsAreTheDigitStartsDifferencesAndZeroWhereAGpuHoldsNone) {
  const PassParts parts = pass_parts(two_buckets_on_three_gpus(), 3, 4);
  std::vector<std::uint32_t> starts(parts.rows * kDigits, 0xdeadbeef);  // rows without a part: never read
  // Row `row`'s digit starts for a part of `keys` keys with counts[digit] keys of each digit listed.
  const auto fill = [&](std::size_t row, std::uint64_t keys, std::map<std::size_t, std::uint32_t> counts) {
    std::uint32_t start = 0;
    for (std::size_t d = 0; d < kDigits; ++d) {
      starts[row * kDigits + d] = start;
      start += counts[d];
    }
    ASSERT_EQ(start, keys);
  };
  fill(0, 2 * kBlockKeys32 + 1, {{0, kBlockKeys32}, {2, kBlockKeys32 + 1}});
  fill(3, 5, {{kDigits - 1, 5}});
  fill(4, kBlockKeys32, {{0, 1}, {1, kBlockKeys32 - 1}});
  const std::vector<std::vector<std::uint64_t>> histograms = digit_histograms(parts, starts.data());
  ASSERT_EQ(histograms.size(), 6u);
  for (const auto& histogram : histograms) ASSERT_EQ(histogram.size(), kDigits);
  EXPECT_EQ(histograms[0][0], kBlockKeys32);
  EXPECT_EQ(histograms[0][1], 0u);
  EXPECT_EQ(histograms[0][2], kBlockKeys32 + 1);
  EXPECT_EQ(histograms[3][kDigits - 1], 5u);  // the last digit: the part's keys less its start
  EXPECT_EQ(histograms[4][0], 1u);
  EXPECT_EQ(histograms[4][1], kBlockKeys32 - 1);
  for (std::size_t row : {1, 2, 5})
    for (std::uint64_t count : histograms[row]) EXPECT_EQ(count, 0u) << "row " << row;
}

}  // namespace
}  // namespace rmgsort
