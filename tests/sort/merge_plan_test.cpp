// The merge's plan: the fan-in that memory and open files allow, each source's chunk within the
// budget, and the groups of a pass: all of them stable (consecutive), and as few as leave the
// fan-in for the last pass.
#include "sort/merge_plan.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <numeric>
#include <vector>

namespace rmgsort {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// The sources left after a pass of GROUPS.
std::size_t after_pass(const std::vector<std::size_t>& groups) { return groups.size(); }

TEST(MergePlanTest, OneGroupWhenTheFanInTakesThemAll) {
  EXPECT_EQ(merge_pass_groups(0, 2), std::vector<std::size_t>{0});
  EXPECT_EQ(merge_pass_groups(1, 2), std::vector<std::size_t>{1});
  EXPECT_EQ(merge_pass_groups(10, 10), std::vector<std::size_t>{10});
}

TEST(MergePlanTest, AFewOverTheFanInMergeOnlyTheFirstFew) {
  std::vector<std::size_t> eleven{2};
  eleven.insert(eleven.end(), 9, 1);
  EXPECT_EQ(merge_pass_groups(11, 10), eleven);
  std::vector<std::size_t> twenty{10, 2};
  twenty.insert(twenty.end(), 8, 1);
  EXPECT_EQ(merge_pass_groups(20, 10), twenty);
  EXPECT_EQ(merge_pass_groups(100, 10), std::vector<std::size_t>(10, 10));
  EXPECT_EQ(merge_pass_groups(3, 2), (std::vector<std::size_t>{2, 1}));
}

TEST(MergePlanTest, ManyOverTheFanInMergeEveryGroup) {
  std::vector<std::size_t> expected(10, 10);
  expected.push_back(1);
  EXPECT_EQ(merge_pass_groups(101, 10), expected);
}

TEST(MergePlanTest, PassesEndAtTheFanInForEveryCount) {
  for (std::size_t fan_in : {2, 3, 7, 16}) {
    for (std::size_t sources = 0; sources < 600; ++sources) {
      std::size_t left = sources;
      int passes = 0;
      while (left > fan_in) {
        const std::vector<std::size_t> groups = merge_pass_groups(left, fan_in);
        ASSERT_EQ(std::accumulate(groups.begin(), groups.end(), std::size_t{0}), left);
        for (std::size_t size : groups) ASSERT_TRUE(size >= 1 && size <= fan_in);
        const std::size_t next = after_pass(groups);
        const std::size_t least = (left + fan_in - 1) / fan_in;
        ASSERT_EQ(next, least > fan_in ? least : fan_in) << left << " sources, fan-in " << fan_in;
        left = next;
        ++passes;
      }
      // ceil(log_fanin(sources)) passes in all, the last one into the output.
      std::size_t reach = fan_in;
      int needed = 0;
      while (reach < sources) {
        reach *= fan_in;
        ++needed;
      }
      EXPECT_EQ(passes, needed) << sources << " sources, fan-in " << fan_in;
    }
  }
}

// Two output buffers (an eighth of the limit each, at least 64 KiB) and two sources of four chunks
// of 64 KiB, or of a record in whole pages: the least limit that holds them, exactly.
TEST(MergePlanTest, TheLeastHostMemoryHoldsTwoOutputBuffersAndTwoSourcesExactly) {
  const auto held = [](std::uint64_t limit, std::size_t stride) {
    const MergePlan plan = plan_merge(limit, stride, 1000);
    return 2 * plan.output_buffer_bytes + 2 * 4 * merge_chunk_bytes(plan, 2, stride);
  };
  for (const std::size_t stride : {std::size_t{8}, std::size_t{16}, std::size_t{65536}, std::size_t{100000},
                                   std::size_t{1} << 22}) {
    SCOPED_TRACE(stride);
    const std::uint64_t least = merge_host_memory_least(stride);
    EXPECT_EQ(plan_merge(least, stride, 1000).fan_in, 2u);
    EXPECT_LE(held(least, stride), least);
    EXPECT_GT(held(least - 1, stride), least - 1);  // one byte less does not hold them
  }
  EXPECT_EQ(merge_host_memory_least(8), 699050u);  // 4/3 of 8 chunks of 64 KiB: the buffers are 85.3 KiB
}

TEST(MergePlanTest, FanInByMemoryAndByOpenFiles) {
  // 4 MiB: two 512 KiB output buffers, 3 MiB for sources of four 64 KiB chunks: 12.
  const MergePlan small = plan_merge(4 * kMiB, 8, 100000);
  EXPECT_EQ(small.output_buffer_bytes, 512 * 1024u);
  EXPECT_EQ(small.fan_in_by_memory, 12u);
  EXPECT_EQ(small.fan_in, 12u);
  const MergePlan files = plan_merge(64ULL << 30, 8, 1024);
  EXPECT_EQ(files.fan_in_by_open_files, (1024u - 64) / 3);
  EXPECT_EQ(files.fan_in, files.fan_in_by_open_files);
  EXPECT_EQ(plan_merge(64ULL << 30, 8, 1024, 5).fan_in, 5u);
  // Never below 2, whatever is short.
  EXPECT_EQ(plan_merge(64 * 1024, 8, 10).fan_in, 2u);
  EXPECT_EQ(plan_merge(64ULL << 30, 8, 1024, 1).fan_in, 2u);
}

TEST(MergePlanTest, ChunksFitTheBudgetAndHoldARecord) {
  for (std::uint64_t memory : {4 * kMiB, 64 * kMiB, 8192 * kMiB}) {
    const MergePlan plan = plan_merge(memory, 100, 1 << 20);
    for (std::size_t sources : {std::size_t{1}, std::size_t{2}, std::size_t{7}, plan.fan_in}) {
      const std::size_t chunk = merge_chunk_bytes(plan, sources, 100);
      EXPECT_EQ(chunk % 4096, 0u);
      EXPECT_GE(chunk, 64u * 1024);
      EXPECT_LE(sources * 4 * chunk + 2 * plan.output_buffer_bytes, memory) << memory << " " << sources;
    }
  }
  // A record larger than the smallest chunk: a chunk holds one.
  const MergePlan huge = plan_merge(4 * kMiB, 1 << 20, 1 << 20);
  EXPECT_GE(merge_chunk_bytes(huge, huge.fan_in, 1 << 20), std::size_t{1} << 20);
}

TEST(MergePlanTest, RunsHeldAreWhatTheOpenFilesLeave) {
  MergePlan plan = plan_merge(64ULL << 30, 8, 1024);
  // 1024 less 10 in use, three for each of the fan-in's sources and 16 for the rest.
  EXPECT_EQ(runs_held_at_most(plan, 10), 1024u - 10 - 3 * plan.fan_in - 16);
  plan = plan_merge(64ULL << 30, 8, 64);  // fan-in 2 (the floor)
  EXPECT_EQ(runs_held_at_most(plan, 10), 64u - 10 - 6 - 16);
  EXPECT_EQ(runs_held_at_most(plan, 60), 2u) << "never below 2";
}

// The counter's arity: none when the runs fit; else the fewest levels ((arity - 1) runs held at each)
// within the room and the fan-in, down to a binary counter.
TEST(MergePlanTest, RunsAreMergedAsACounterOnlyWhenTheyWouldBeTooMany) {
  EXPECT_EQ(runs_counter_arity(30, 30, 10), 0u);
  EXPECT_EQ(runs_counter_arity(0, 0, 10), 0u);
  EXPECT_EQ(runs_counter_arity(31, 30, 320), 31u);   // one level: 30 held, then all 31 merged
  EXPECT_EQ(runs_counter_arity(313, 34, 320), 18u);  // 18^2 >= 313, 2 levels of 17 held
  EXPECT_EQ(runs_counter_arity(250, 34, 12), 7u);    // 7^3 >= 250, 3 levels of 6 held (16^2: over the fan-in)
  EXPECT_EQ(runs_counter_arity(1500, 4, 2), 2u);     // a binary counter at least, whatever it holds
  EXPECT_EQ(runs_counter_arity(50, 6, 4), 2u);       // 4^3 and 3^4 hold 9 and 8: over 6
  for (std::size_t runs : {3u, 17u, 64u, 65u, 1000u, 100000u})
    for (std::size_t room : {1u, 4u, 9u, 40u})
      for (std::size_t fan_in : {2u, 3u, 12u, 320u}) {
        const std::size_t arity = runs_counter_arity(runs, room, fan_in);
        if (runs <= room) {
          EXPECT_EQ(arity, 0u);
          continue;
        }
        EXPECT_GE(arity, 2u);
        EXPECT_TRUE(arity == 2 || arity <= fan_in) << runs << " " << room << " " << fan_in;
        std::size_t levels = 0;
        for (std::uint64_t taken = 1; taken < runs; taken *= arity) ++levels;
        EXPECT_TRUE(arity == 2 || (arity - 1) * levels <= room) << runs << " " << room << " " << fan_in;
        // One level fewer would not take the runs at any arity within the fan-in and the room.
        if (levels > 1 && arity > 2) {
          std::uint64_t fewer = 1;
          const std::size_t wider = std::min(fan_in, room / (levels - 1) + 1);
          for (std::size_t l = 0; l + 1 < levels; ++l) fewer *= wider;
          EXPECT_LT(fewer, runs) << runs << " " << room << " " << fan_in;
        }
      }
}

TEST(MergePlanTest, OpenDescriptorsCountsThisProcesss) {
  const std::size_t before = open_descriptors(0);
  EXPECT_GE(before, 1u);
  const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(open_descriptors(0), before + 1);
  ::close(fd);
}

TEST(MergePlanTest, TheOpenFileLimitIsRaisedToTheHardLimit) {
  EXPECT_GE(raise_open_file_limit(), 3u);
}

}  // namespace
}  // namespace rmgsort
