// What a sort in memory does with an output on tmpfs (app/output_memory.hpp): the CPU's bare keys
// without --verify are written while sorted into pages reserved beside the sort from
// kMinThreadsToSortBeside threads on, within --host-memory beside the plan's peak, and sorted in the
// output's own pages on fewer threads, less memory or a ramfs; with --verify,
// or records sorted as pairs, always in the pages; a disk output or --index-output gets neither.
#include "app/output_memory.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/io/io_test_support.hpp"

namespace rmgsort {
namespace {

using output_memory_config::kMinThreadsToSortBeside;

// The CPU's plan of a file of `records` of LAYOUT under HOST_MEMORY.
SortPlan cpu_plan(const RecordLayout& layout, std::uint64_t records, std::uint64_t host_memory) {
  const PlanRequest request{layout, false, "in", host_memory,
                            [](const RecordLayout&, PositionSource, std::uint64_t, RoundSorting, std::string& why_not) {
                              why_not = "no GPU selected";
                              return std::unique_ptr<SortEngine>();
                            }};
  return plan_file(request, records * layout.record_size);
}

class OutputMemoryTest : public testing::Test {
 protected:
  void SetUp() override {
    if (!test::is_memory_file_system(test::memory_directory()))
      GTEST_SKIP() << "no tmpfs at " << test::memory_directory();
    dir_.emplace(test::memory_directory());
  }

  struct Choice {
    bool pages = false, reservation = false;
  };

  // output_memory_for a file of BYTES of LAYOUT's records into a staged output in DIRECTORY, planned
  // under HOST_MEMORY. (What it chose is held until the next choice, whose output replaces
  // the file and closes its descriptor: a reservation's thread is stopped first.)
  Choice choose(const RecordLayout& layout, unsigned threads, bool verify, const std::string& directory,
                bool index_output = false, std::uint64_t host_memory = std::uint64_t{1} << 30,
                std::uint64_t bytes = 4096) {
    memory_ = OutputMemory();
    const std::string input_path = dir_->file("in");
    test::write_plain_file(input_path, std::vector<std::byte>(bytes, std::byte{1}));
    std::vector<InputPart> parts;
    parts.push_back(open_input_part(input_path, "keys"));
    input_.emplace(std::move(parts), layout);
    std::filesystem::remove(directory + "/out");
    output_.emplace(OutputFile::create(directory + "/out"));
    plan_.emplace(cpu_plan(layout, bytes / layout.record_size, host_memory));
    EXPECT_EQ(plan_->path, SortPath::in_memory);
    SortRun run;
    run.verify = verify;
    run.output_fd = output_->fd();
    run.output_name = output_->writer_name();
    if (index_output) run.index_fd = output_->fd();  // (any descriptor: only whether there is one counts)
    memory_ = output_memory_for(*plan_, *input_, &*output_, NpyOutputFormats{}, run, threads);
    return Choice{memory_.pages != nullptr, memory_.reservation != nullptr};
  }

  void TearDown() override { memory_ = OutputMemory(); }

  std::optional<test::TempDir> dir_;
  std::optional<InputSequence> input_;
  std::optional<OutputFile> output_;
  std::optional<SortPlan> plan_;
  OutputMemory memory_;
};

TEST_F(OutputMemoryTest, BareKeysOnManyThreadsAreReservedBesideTheSortOnFewSortedInThePages) {
  const RecordLayout u64 = RecordLayout::bare_key(KeyType::u64);
  const Choice many = choose(u64, kMinThreadsToSortBeside, false, dir_->path());
  EXPECT_TRUE(many.reservation);
  EXPECT_FALSE(many.pages);
  const Choice few = choose(u64, kMinThreadsToSortBeside - 1, false, dir_->path());
  EXPECT_FALSE(few.reservation);
  EXPECT_TRUE(few.pages);
}

// Reserved, the keys are in memory twice (their own and the output's pages), beside the sort's
// scratch: only within --host-memory.
TEST_F(OutputMemoryTest, KeysThatFitTheHostMemoryOnlyOnceAreSortedInThePages) {
  const RecordLayout u64 = RecordLayout::bare_key(KeyType::u64);
  const std::uint64_t bytes = 128 << 20;  // (the plan in memory needs the sort's buffers beside the keys)
  const std::uint64_t held = cpu_plan(u64, bytes / 8, std::uint64_t{1} << 40).memory.peak() + bytes;
  ASSERT_GT(held, 2 * bytes) << "the plan's peak holds the sort's scratch beside the keys";
  const Choice fits = choose(u64, 64, false, dir_->path(), false, held, bytes);
  EXPECT_TRUE(fits.reservation);
  const Choice short_by_one = choose(u64, 64, false, dir_->path(), false, held - 1, bytes);
  EXPECT_FALSE(short_by_one.reservation);
  EXPECT_TRUE(short_by_one.pages);
}

// A memory file system without fallocate (ramfs) gets no reservation: its keys sort in its pages.
TEST_F(OutputMemoryTest, KeysIntoARamfsAreSortedInItsPagesOnAnyNumberOfThreads) {
  const test::Ramfs ramfs;
  if (!ramfs.mounted()) GTEST_SKIP() << ramfs.why_not();
  const std::string directory = std::filesystem::path(ramfs.file("x")).parent_path();
  const Choice many = choose(RecordLayout::bare_key(KeyType::u64), 64, false, directory);
  EXPECT_FALSE(many.reservation);
  EXPECT_TRUE(many.pages);
}

TEST_F(OutputMemoryTest, VerifiedKeysAndPairsAreSortedInThePagesOnAnyNumberOfThreads) {
  const Choice verified = choose(RecordLayout::bare_key(KeyType::u32), 64, true, dir_->path());
  EXPECT_FALSE(verified.reservation) << "--verify checks before anything is written";
  EXPECT_TRUE(verified.pages);
  const RecordLayout pairs = RecordLayout::of(KeySpec{KeyType::u64, 8}, 16, 0);
  const Choice sorted_as_pairs = choose(pairs, 64, false, dir_->path());
  EXPECT_FALSE(sorted_as_pairs.reservation) << "pairs are final only when their sort returns";
  EXPECT_TRUE(sorted_as_pairs.pages);
}

TEST_F(OutputMemoryTest, ADiskOutputOrASecondOutputGetsNeither) {
  const RecordLayout u64 = RecordLayout::bare_key(KeyType::u64);
  const Choice indexed = choose(u64, 64, false, dir_->path(), /*index_output=*/true);
  EXPECT_FALSE(indexed.reservation);
  EXPECT_FALSE(indexed.pages);
  test::TempDir disk(test::disk_directory());
  if (test::is_memory_file_system(disk.path())) GTEST_SKIP() << "no disk directory";
  const Choice on_disk = choose(u64, 64, false, disk.path());
  EXPECT_FALSE(on_disk.reservation);
  EXPECT_FALSE(on_disk.pages);
}

}  // namespace
}  // namespace rmgsort
