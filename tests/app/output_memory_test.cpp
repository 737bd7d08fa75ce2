// What a sort in memory does with an output on tmpfs (app/output_memory.hpp): the CPU's bare keys
// without --verify are written while sorted into pages reserved beside the sort from
// kMinThreadsToSortBeside threads on, and sorted in the output's own pages on fewer; with --verify,
// or records sorted as pairs, always in the pages; a disk output or --index-output gets neither.
#include "app/output_memory.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/io/io_test_support.hpp"

namespace rmgsort {
namespace {

using output_memory_config::kMinThreadsToSortBeside;

// The CPU's plan of a file of `records` of LAYOUT, in memory.
SortPlan cpu_plan(const RecordLayout& layout, std::uint64_t records) {
  const PlanRequest request{layout, false, "in", std::uint64_t{1} << 30,
                            [](const RecordLayout&, PositionSource, std::uint64_t, RoundSorting, std::string& why_not) {
                              why_not = "no GPU selected";
                              return std::unique_ptr<SortEngine>();
                            }};
  return plan_file(request, records * layout.record_size);
}

class OutputMemoryTest : public testing::Test {
 protected:
  void SetUp() override {
    if (!test::is_memory_file_system(test::memory_directory())) GTEST_SKIP() << "no tmpfs at " << test::memory_directory();
    dir_.emplace(test::memory_directory());
  }

  // output_memory_for a file of 4096 bytes of LAYOUT's records into a staged output in DIRECTORY.
  OutputMemory choose(const RecordLayout& layout, unsigned threads, bool verify, const std::string& directory,
                      bool index_output = false) {
    const std::string input_path = dir_->file("in");
    test::write_plain_file(input_path, std::vector<std::byte>(4096, std::byte{1}));
    std::vector<InputPart> parts;
    parts.push_back(open_input_part(input_path, "keys"));
    input_.emplace(std::move(parts), layout);
    std::filesystem::remove(directory + "/out");
    output_.emplace(OutputFile::create(directory + "/out"));
    plan_.emplace(cpu_plan(layout, 4096 / layout.record_size));
    SortRun run;
    run.verify = verify;
    run.output_fd = output_->fd();
    run.output_name = output_->writer_name();
    if (index_output) run.index_fd = output_->fd();  // (any descriptor: only whether there is one counts)
    return output_memory_for(*plan_, *input_, &*output_, NpyOutputFormats{}, run, threads);
  }

  std::optional<test::TempDir> dir_;
  std::optional<InputSequence> input_;
  std::optional<OutputFile> output_;
  std::optional<SortPlan> plan_;
};

TEST_F(OutputMemoryTest, BareKeysOnManyThreadsAreReservedBesideTheSortOnFewSortedInThePages) {
  const RecordLayout u64 = RecordLayout::bare_key(KeyType::u64);
  OutputMemory many = choose(u64, kMinThreadsToSortBeside, false, dir_->path());
  EXPECT_NE(many.reservation, nullptr);
  EXPECT_EQ(many.pages, nullptr);
  OutputMemory few = choose(u64, kMinThreadsToSortBeside - 1, false, dir_->path());
  EXPECT_EQ(few.reservation, nullptr);
  EXPECT_NE(few.pages, nullptr);
}

TEST_F(OutputMemoryTest, VerifiedKeysAndPairsAreSortedInThePagesOnAnyNumberOfThreads) {
  OutputMemory verified = choose(RecordLayout::bare_key(KeyType::u32), 64, true, dir_->path());
  EXPECT_EQ(verified.reservation, nullptr) << "--verify checks before anything is written";
  EXPECT_NE(verified.pages, nullptr);
  const RecordLayout pairs = RecordLayout::of(KeySpec{KeyType::u64, 8}, 16, 0);
  OutputMemory sorted_as_pairs = choose(pairs, 64, false, dir_->path());
  EXPECT_EQ(sorted_as_pairs.reservation, nullptr) << "pairs are final only when their sort returns";
  EXPECT_NE(sorted_as_pairs.pages, nullptr);
}

TEST_F(OutputMemoryTest, ADiskOutputOrASecondOutputGetsNeither) {
  const RecordLayout u64 = RecordLayout::bare_key(KeyType::u64);
  OutputMemory indexed = choose(u64, 64, false, dir_->path(), /*index_output=*/true);
  EXPECT_EQ(indexed.reservation, nullptr);
  EXPECT_EQ(indexed.pages, nullptr);
  test::TempDir disk(test::disk_directory());
  if (test::is_memory_file_system(disk.path())) GTEST_SKIP() << "no disk directory";
  OutputMemory on_disk = choose(u64, 64, false, disk.path());
  EXPECT_EQ(on_disk.reservation, nullptr);
  EXPECT_EQ(on_disk.pages, nullptr);
}

}  // namespace
}  // namespace rmgsort
