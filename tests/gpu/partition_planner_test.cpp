// The planner driven by a host simulation of the in-core pipeline: real keys are split into GPU
// chunks, partitioned pass by pass exactly as the GPUs will (histogram, stable scatter of each
// spanning bucket's part), swapped by the plan, each transfer as late as the sorts' waits allow
// (swap_waits), and sorted by the plan's bit ranges only. The result must equal std::sort, and the
// plan must respect the thesis's bounds.
#include "gpu/partition_planner.hpp"
#include "gpu/swap_waits.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "generate/generate.hpp"
#include "core/key_order.hpp"
#include "core/error.hpp"
#include "tests/core/key_types.hpp"

namespace rmgsort {
namespace {

template <class Bits>
struct SimulatedRun {
  std::vector<Bits> sorted;
  int passes = 0;
  std::size_t max_spanning_per_pass = 0;
  std::size_t total_spanning = 0;
};


// Runs the planner over `radix` (encoded keys) on `gpus` simulated GPUs and returns the output.
template <class Bits>
SimulatedRun<Bits> simulate(const std::vector<Bits>& radix, int gpus, const PlannerConfig& config) {
  const auto chunks = equal_chunks(radix.size(), std::size_t(gpus));
  const std::size_t g = std::size_t(gpus);
  std::vector<std::vector<Bits>> gpu(g);
  std::size_t next = 0;
  for (int i = 0; i < gpus; ++i) {
    gpu[std::size_t(i)].assign(radix.begin() + std::ptrdiff_t(next), radix.begin() + std::ptrdiff_t(next + chunks[std::size_t(i)]));
    next += chunks[std::size_t(i)];
  }

  PartitionPlanner planner(chunks, config);
  EXPECT_LE(planner.buffer_keys() - *std::max_element(chunks.begin(), chunks.end()), 2 * planner.epsilon_keys());
  SimulatedRun<Bits> run;
  const std::size_t digits = std::size_t{1} << config.digit_bits;
  while (!planner.done()) {
    const auto& spanning = planner.spanning();
    run.max_spanning_per_pass = std::max(run.max_spanning_per_pass, spanning.size());
    run.total_spanning += spanning.size();
    std::vector<std::vector<std::uint64_t>> histograms;
    for (const SpanningBucket& span : spanning) {
      for (int i = 0; i < gpus; ++i) {
        const GpuRange part = span.on_gpu[std::size_t(i)];
        auto begin = gpu[std::size_t(i)].begin() + std::ptrdiff_t(part.offset);
        auto end = begin + std::ptrdiff_t(part.keys);
        const auto digit = [&](Bits key) { return std::size_t(key >> span.digit_shift) & (digits - 1); };
        std::vector<std::uint64_t> histogram(digits, 0);
        for (auto it = begin; it != end; ++it) ++histogram[digit(*it)];
        histograms.push_back(histogram);
        std::stable_sort(begin, end, [&](Bits a, Bits b) { return digit(a) < digit(b); });  // the scatter
      }
    }
    planner.refine(histograms);
    ++run.passes;
    if (run.passes > config.key_bits / config.digit_bits) {
      ADD_FAILURE() << "more passes than digits";
      return run;
    }
  }

  // The swap as late as the GPUs may run it: a transfer runs when a sort waits for it (its stream's
  // earlier transfers with it), the rest at the end. Each sort sorts its range of the receiving
  // buffer, then scribbles over the same range of the sending buffer, as its double buffer does: a
  // wait missing from swap_waits sorts keys not yet received, or sends scribbles.
  std::vector<std::vector<Bits>> received(g);
  std::vector<std::vector<int>> written(g);
  std::vector<std::vector<BucketSort>> sorts(g);
  for (int j = 0; j < gpus; ++j) {
    const std::uint64_t keys = planner.boundaries()[std::size_t(j) + 1] - planner.boundaries()[std::size_t(j)];
    EXPECT_LE(keys, planner.buffer_keys()) << "GPU " << j << " receives more than its buffer";
    received[std::size_t(j)].assign(keys, Bits(0));
    written[std::size_t(j)].assign(keys, 0);
    sorts[std::size_t(j)] = planner.sort_plan(j);
  }
  const std::vector<KeyTransfer> transfers = planner.swap_plan();
  const SwapWaits waits = swap_waits(transfers, sorts);
  std::vector<bool> done(transfers.size(), false);
  std::vector<std::uint64_t> sent(g, 0);
  const auto run_through = [&](std::size_t last) {  // `last` and its stream's earlier transfers
    for (std::size_t i = 0; i <= last; ++i) {
      const KeyTransfer& t = transfers[i];
      if (done[i] || t.src_gpu != transfers[last].src_gpu || t.dst_gpu != transfers[last].dst_gpu) continue;
      for (std::uint64_t k = 0; k < t.keys; ++k) {
        received[std::size_t(t.dst_gpu)][t.dst_offset + k] = gpu[std::size_t(t.src_gpu)][t.src_offset + k];
        ++written[std::size_t(t.dst_gpu)][t.dst_offset + k];
      }
      sent[std::size_t(t.src_gpu)] += t.keys;
      done[i] = true;
    }
  };
  // The sorts: each by its bit range only; a copy-only range must already be one value per bucket,
  // which the final comparison with std::sort checks. Taken in turn across the GPUs.
  std::size_t most_sorts = 0;
  for (const auto& list : sorts) most_sorts = std::max(most_sorts, list.size());
  for (std::size_t k = 0; k < most_sorts; ++k) {
    for (std::size_t j = 0; j < g; ++j) {
      if (k >= sorts[j].size()) continue;
      const BucketSort& sort = sorts[j][k];
      std::vector<std::pair<int, int>> streams;
      for (const std::size_t t : waits.of_sort[j][k]) {
        EXPECT_TRUE(waits.awaited[t]);
        streams.emplace_back(transfers[t].src_gpu, transfers[t].dst_gpu);
        run_through(t);
      }
      // Every transfer writing into the sort's range or reading from it, checked one by one: the
      // sort waits for it or a later one of its stream. (The sorts of one GPU run on two streams
      // at once, so a wait that only an earlier sort holds does not count, which the serial
      // simulation below could not tell.)
      for (std::size_t t = 0; t < transfers.size(); ++t) {
        const KeyTransfer& transfer = transfers[t];
        const auto overlaps = [&](std::uint64_t offset) {
          return offset < sort.offset + sort.keys && sort.offset < offset + transfer.keys;
        };
        if (!(transfer.dst_gpu == int(j) && overlaps(transfer.dst_offset)) &&
            !(transfer.src_gpu == int(j) && overlaps(transfer.src_offset)))
          continue;
        const auto& awaited = waits.of_sort[j][k];
        EXPECT_TRUE(std::any_of(awaited.begin(), awaited.end(), [&](std::size_t w) {
          return w >= t && transfers[w].src_gpu == transfer.src_gpu && transfers[w].dst_gpu == transfer.dst_gpu;
        })) << "GPU " << j << ", sort " << k << " does not wait for transfer " << t;
      }
      std::sort(streams.begin(), streams.end());
      EXPECT_EQ(std::adjacent_find(streams.begin(), streams.end()), streams.end()) << "one wait per stream";
      EXPECT_EQ(sort.offset, k == 0 ? 0 : sorts[j][k - 1].offset + sorts[j][k - 1].keys) << "sorts in order";
      auto& keys = received[j];
      const Bits mask = sort.end_bit >= int(8 * sizeof(Bits)) ? Bits(~Bits(0)) : Bits((Bits(1) << sort.end_bit) - 1);
      std::stable_sort(keys.begin() + std::ptrdiff_t(sort.offset), keys.begin() + std::ptrdiff_t(sort.offset + sort.keys),
                       [mask](Bits a, Bits b) { return (a & mask) < (b & mask); });
      auto& sending = gpu[j];
      for (std::uint64_t i = sort.offset; i < std::min<std::uint64_t>(sort.offset + sort.keys, sending.size()); ++i)
        sending[i] = Bits(0x5a5a5a5a5a5a5a5aULL);
    }
  }
  for (std::size_t t = 0; t < transfers.size(); ++t) run_through(t);
  for (int i = 0; i < gpus; ++i) {
    EXPECT_EQ(sent[std::size_t(i)], chunks[std::size_t(i)]) << "GPU " << i << " must send every key once";
    EXPECT_TRUE(std::all_of(written[std::size_t(i)].begin(), written[std::size_t(i)].end(), [](int w) { return w == 1; }))
        << "GPU " << i << " must receive every position exactly once";
    std::uint64_t covered = 0;
    for (const BucketSort& sort : sorts[std::size_t(i)]) covered = sort.offset + sort.keys;
    EXPECT_EQ(covered, received[std::size_t(i)].size()) << "sorts cover the received keys";
    run.sorted.insert(run.sorted.end(), received[std::size_t(i)].begin(), received[std::size_t(i)].end());
  }
  run.passes = planner.passes_done();
  return run;
}

template <class T>
class PartitionPlannerTest : public ::testing::Test {};
TYPED_TEST_SUITE(PartitionPlannerTest, testing::AllKeyTypes);

TYPED_TEST(PartitionPlannerTest, SimulatedPipelineSortsEveryDistributionOnOneToEightGpus) {
  using T = TypeParam;
  using Bits = RadixBits<T>;
  PlannerConfig config;
  config.key_bits = int(8 * sizeof(T));
  const char* distributions[] = {"uniform", "normal",  "zipf:0.5", "zipf:1.0", "zipf:1.5", "zipf:2.0", "bits:0",
                                 "bits:8",  "bits:10", "bits:17",  "bits:25",  "bits:26",  "sorted",   "reverse",
                                 "nearly-sorted", "zero", "special"};
  const std::size_t sizes[] = {0, 1, 7, 20003};
  std::uint64_t seed = 1;
  for (const char* distribution : distributions) {
    const Distribution dist = parse_distribution(distribution);
    if (dist.kind == Distribution::Kind::bits && dist.bits > unsigned(config.key_bits)) continue;
    for (std::size_t n : sizes) {
      std::vector<T> keys(n);
      generate_keys(keys.data(), 0, n, n, dist, seed++);
      std::vector<Bits> radix(n);
      for (std::size_t i = 0; i < n; ++i) radix[i] = KeyOrder<T, SortOrder::ascending>::encode(keys[i]);
      auto expected = radix;
      std::sort(expected.begin(), expected.end());
      for (int gpus = 1; gpus <= 8; ++gpus) {
        const auto run = simulate(radix, gpus, config);
        ASSERT_EQ(run.sorted, expected) << distribution << " n=" << n << " g=" << gpus;
        // Thesis §3.2.4: a pass leaves at most g - 1 spanning buckets, at most s_max in all.
        if (run.passes > 1) {
          EXPECT_LE(run.max_spanning_per_pass, std::size_t(std::max(gpus - 1, 1)));
        }
        EXPECT_LE(run.total_spanning, PartitionPlanner::max_spanning_buckets(gpus, config.key_bits, 8))
            << distribution << " n=" << n << " g=" << gpus;
      }
    }
  }
}

// Uniform keys fill the 256 first-pass buckets equally, so GPU j's ideal boundary lies at 256 j / g
// buckets; ε is 0.005 * 256 / g = 1.28 / g buckets. One pass suffices where every boundary is within
// ε of a border (up to fluctuation, small for 2^14-key buckets): g = 2, 4, 8 (on borders) and 3
// (1/3 of a bucket inside, ε = 0.43); not g = 5 (boundaries at 102.4 and 153.6: 0.4 inside,
// ε = 0.26) nor g = 6 (1/3 inside, ε = 0.21).
TEST(PartitionPlannerTest, UniformKeysNeedOnePassWhereEpsilonCoversTheBoundaries) {
  std::vector<std::uint32_t> keys(std::size_t{1} << 22);
  generate_keys(keys.data(), 0, keys.size(), keys.size(), parse_distribution("uniform"), 5);
  for (int gpus : {2, 3, 4, 8}) EXPECT_EQ(simulate(keys, gpus, PlannerConfig{}).passes, 1) << "g=" << gpus;
  for (int gpus : {5, 6}) EXPECT_EQ(simulate(keys, gpus, PlannerConfig{}).passes, 2) << "g=" << gpus;
}

TEST(PartitionPlannerTest, AllKeysEqualTakeEveryPassAndSplitEvenly) {
  const std::vector<std::uint32_t> keys(1001, 0xdeadbeef);
  const auto run = simulate(keys, 4, PlannerConfig{});
  EXPECT_EQ(run.passes, 4);
  EXPECT_EQ(run.sorted, keys);
  // The last-pass spanning bucket is split at the ideal boundaries: chunks 251, 251, 251, 248.
  PartitionPlanner planner(equal_chunks(1001, 4), PlannerConfig{});
  for (int pass = 0; pass < 4; ++pass) {
    std::vector<std::vector<std::uint64_t>> histograms;
    for (const SpanningBucket& span : planner.spanning())
      for (const GpuRange& part : span.on_gpu) {
        std::vector<std::uint64_t> histogram(256, 0);
        histogram[(0xdeadbeefu >> span.digit_shift) & 255] = part.keys;
        histograms.push_back(histogram);
      }
    planner.refine(histograms);
  }
  ASSERT_TRUE(planner.done());
  EXPECT_EQ(planner.boundaries(), (std::vector<std::uint64_t>{0, 251, 502, 753, 1001}));
  for (int gpu = 0; gpu < 4; ++gpu)
    for (const BucketSort& sort : planner.sort_plan(gpu)) EXPECT_EQ(sort.end_bit, 0) << "nothing left to sort";
}

// Two GPUs of 10000 keys (ε = 50) and buckets of the first pass placed around the boundary at
// 10000: the boundary moves to a border within ε, otherwise the bucket spans.
std::vector<std::uint64_t> first_pass_histogram(std::uint64_t below, std::uint64_t middle, std::uint64_t above) {
  std::vector<std::uint64_t> histogram(256, 0);
  histogram[10] = below;
  histogram[20] = middle;
  histogram[30] = above;
  return histogram;
}

PartitionPlanner two_gpus_after_first_pass(std::uint64_t below, std::uint64_t middle, std::uint64_t above) {
  PartitionPlanner planner(std::vector<std::uint64_t>{10000, 10000}, PlannerConfig{});
  EXPECT_EQ(planner.epsilon_keys(), 50u);
  // GPU 0 holds the `below` keys and the rest of its chunk from the middle bucket; GPU 1 the rest.
  const std::vector<std::vector<std::uint64_t>> histograms = {first_pass_histogram(below, 10000 - below, 0),
                                                              first_pass_histogram(0, middle - (10000 - below), above)};
  planner.refine(histograms);
  return planner;
}

TEST(PartitionPlannerTest, BucketOverflowingByAtMostEpsilonStaysWhole) {
  // Bucket 20 spans [9960, 19000): GPU 0 would hold 40 of its keys; 40 <= ε, so the boundary moves left.
  auto left = two_gpus_after_first_pass(9960, 9040, 1000);
  EXPECT_TRUE(left.done());
  EXPECT_EQ(left.boundaries()[1], 9960u);
  // Bucket 10 spans [0, 10030): GPU 1 would hold 30 of its keys; the boundary moves right.
  auto right = two_gpus_after_first_pass(10030, 8970, 1000);
  EXPECT_TRUE(right.done());
  EXPECT_EQ(right.boundaries()[1], 10030u);
}

TEST(PartitionPlannerTest, BucketOverflowingByMoreThanEpsilonSpans) {
  auto planner = two_gpus_after_first_pass(9900, 9100, 1000);  // 100 keys of bucket 20 on GPU 0's side
  ASSERT_FALSE(planner.done());
  ASSERT_EQ(planner.spanning().size(), 1u);
  const SpanningBucket& span = planner.spanning()[0];
  EXPECT_EQ(span.digit_shift, 16);
  EXPECT_EQ(span.on_gpu[0].offset, 9900u);
  EXPECT_EQ(span.on_gpu[0].keys, 100u);
  EXPECT_EQ(span.on_gpu[1].offset, 0u);
  EXPECT_EQ(span.on_gpu[1].keys, 9000u);
}

TEST(PartitionPlannerTest, HistogramsThatDoNotAddUpAreAnError) {
  PartitionPlanner planner(std::vector<std::uint64_t>{100, 100}, PlannerConfig{});
  std::vector<std::vector<std::uint64_t>> histograms(2, std::vector<std::uint64_t>(256, 0));
  histograms[0][1] = 100;
  histograms[1][2] = 99;
  EXPECT_THROW(planner.refine(histograms), Error);
}

TEST(PartitionPlannerTest, SmallBucketsOfOnePassAreFusedWithTheXorBitRange) {
  // One GPU, 100000 keys: SBT = 1000 keys. Buckets 33 and 36 (500 keys each) fuse; their digits
  // differ in bit 2, so the fused sort covers the 24 unconsumed bits plus 3.
  PartitionPlanner planner(std::vector<std::uint64_t>{100000}, PlannerConfig{});
  std::vector<std::uint64_t> histogram(256, 0);
  histogram[33] = 500;
  histogram[36] = 500;
  histogram[200] = 99000;
  planner.refine(std::vector<std::vector<std::uint64_t>>{histogram});
  ASSERT_TRUE(planner.done());
  const auto sorts = planner.sort_plan(0);
  ASSERT_EQ(sorts.size(), 2u);
  EXPECT_EQ(sorts[0].keys, 1000u);
  EXPECT_EQ(sorts[0].end_bit, 24 + 3);
  EXPECT_EQ(sorts[1].keys, 99000u);
  EXPECT_EQ(sorts[1].end_bit, 24);
}

TEST(PartitionPlannerTest, MoreThan128BucketSortsBecomeOneWholeChunkSort) {
  // With fusing limited to 0.1 % of the chunk, 256 equal buckets stay 256 sorts > 128.
  PlannerConfig barely_fusing;
  barely_fusing.small_bucket_fraction = 0.001;
  const std::uint64_t total = 256 * 4000;
  PartitionPlanner planner(std::vector<std::uint64_t>{total}, barely_fusing);
  planner.refine(std::vector<std::vector<std::uint64_t>>{std::vector<std::uint64_t>(256, 4000)});
  const auto sorts = planner.sort_plan(0);
  ASSERT_EQ(sorts.size(), 1u);
  EXPECT_EQ(sorts[0].keys, total);
  EXPECT_EQ(sorts[0].end_bit, 32);

  // Equal buckets fuse in pairs (SBT = 2.56 buckets): exactly 128 sorts, each over 24 + 1 bits.
  PartitionPlanner pairs(std::vector<std::uint64_t>{256 * 4000}, PlannerConfig{});
  pairs.refine(std::vector<std::vector<std::uint64_t>>{std::vector<std::uint64_t>(256, 4000)});
  const auto paired = pairs.sort_plan(0);
  ASSERT_EQ(paired.size(), 128u);
  EXPECT_EQ(paired[0].keys, 8000u);
  EXPECT_EQ(paired[0].end_bit, 25);
}

TEST(PartitionPlannerTest, SpanningBoundTable) {
  EXPECT_EQ(PartitionPlanner::max_spanning_buckets(1, 32, 8), 1u);
  EXPECT_EQ(PartitionPlanner::max_spanning_buckets(4, 32, 8), 10u);
  EXPECT_EQ(PartitionPlanner::max_spanning_buckets(8, 32, 8), 22u);  // thesis §4.5: s_max = 22
  EXPECT_EQ(PartitionPlanner::max_spanning_buckets(8, 64, 8), 50u);
}

}  // namespace
}  // namespace rmgsort
