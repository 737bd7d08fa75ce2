// rmgsort merge's driver through its API: sorted runs in files (and a pipe) merged into a file, with
// their positions, in one pass or several (a small fan-in), every key type and record layout,
// against the stable sort of their concatenation; and what an input that breaks its promises gets:
// disorder (MergeDisorder naming it, the record and its byte offset, in whichever pass reads it), a
// cut record, a .npy stream of the wrong length. No temporary file is left in the directory.
#include "sort/merge_inputs.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/input_file.hpp"
#include "io/unique_fd.hpp"
#include "../core/key_types.hpp"
#include "../host/merge_test_runs.hpp"
#include "../io/io_test_support.hpp"

namespace rmgsort {
namespace {

using testing::TestRuns;

std::vector<std::byte> bytes_of(const TestRuns& runs, std::size_t i) {
  const std::size_t size = runs.layout.record_size;
  const auto first = runs.records.begin() + std::ptrdiff_t(runs.firsts[i] * size);
  return {first, first + std::ptrdiff_t(runs.counts[i] * size)};
}

MergeInput file_input(const std::string& path, std::uint64_t records) {
  MergeInput input;
  input.check = WindowInput{true, false, path, 0, std::nullopt, false, 0, 0};
  input.records = records;
  input.open = [path] { return OpenedInput{open_input(path), {}}; };
  return input;
}

// A merge of files in a directory of its own, and what it wrote.
class MergeFixture {
 public:
  MergeFixture() : dir_(test::disk_directory()), temp_(dir_.path() + "/temp") { ::mkdir(temp_.c_str(), 0700); }

  // Each run of RUNS in a file of its own, as the job's inputs.
  void add_runs(const TestRuns& runs) {
    for (std::size_t i = 0; i < runs.counts.size(); ++i) {
      const std::string path = dir_.file("run" + std::to_string(job_.inputs.size()));
      test::write_plain_file(path, bytes_of(runs, i));
      job_.inputs.push_back(file_input(path, runs.counts[i]));
    }
  }
  MergeJob& job() { return job_; }

  // Runs the merge into output files; `positions` asks for them too.
  MergeOutcome merge(const RecordLayout& layout, SortOrder order, bool positions) {
    job_.layout = layout;
    job_.temp_dir = temp_;
    job_.threads = 4;
    if (job_.host_memory == 0) job_.host_memory = 64 << 20;
    const UniqueFd records(::open(dir_.file("out").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    const UniqueFd positions_file(::open(dir_.file("positions").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    job_.run = SortRun{order, true, /*unique=*/false, records.get(), "out", positions ? positions_file.get() : -1,
                       "positions", &progress_, {}};
    MergeOutcome outcome;
    merge_inputs(job_, outcome);
    return outcome;
  }
  [[nodiscard]] std::vector<std::byte> records() const { return test::read_plain_file(dir_.file("out")); }
  [[nodiscard]] std::vector<std::uint64_t> positions() const {
    const std::vector<std::byte> bytes = test::read_plain_file(dir_.file("positions"));
    std::vector<std::uint64_t> positions(bytes.size() / 8);
    if (!bytes.empty()) std::memcpy(positions.data(), bytes.data(), bytes.size());
    return positions;
  }
  [[nodiscard]] std::vector<std::string> temporaries() const { return test::directory_entries(temp_); }
  [[nodiscard]] std::string file(const std::string& name) const { return dir_.file(name); }

 private:
  test::TempDir dir_;
  std::string temp_;
  MergeJob job_;
  Progress progress_{ProgressMode::never};
};

// Merges RUNS (each a file) with FAN_IN and checks records, positions, --verify and the directory.
void expect_merged(const TestRuns& runs, SortOrder order, std::size_t fan_in, std::size_t passes) {
  MergeFixture merge;
  merge.add_runs(runs);
  merge.job().fan_in_limit = fan_in;
  const MergeOutcome outcome = merge.merge(runs.layout, order, true);
  const std::vector<std::uint64_t> expected = testing::reference_merge_positions(runs, order);
  EXPECT_EQ(merge.positions(), expected);
  EXPECT_EQ(merge.records(), testing::gather(runs, expected));
  EXPECT_EQ(outcome.records, runs.total());
  EXPECT_EQ(outcome.verify_failure, "");
  EXPECT_EQ(outcome.passes.size(), passes) << "fan-in " << fan_in;
  EXPECT_TRUE(merge.temporaries().empty());
}

template <class T>
class MergeInputsKeysTest : public ::testing::Test {};
TYPED_TEST_SUITE(MergeInputsKeysTest, testing::AllKeyTypes);

TYPED_TEST(MergeInputsKeysTest, OnePassOrSeveralGiveTheStableMerge) {
  const RecordLayout layout = RecordLayout::bare_key(KeyTypeOf<TypeParam>::value);
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    const TestRuns runs = testing::make_runs(layout, order, {0, 1, 7, 3000, 20000, 7, 0, 500, 1}, 12);
    expect_merged(runs, order, 0, 1);
    expect_merged(runs, order, 3, 2);  // 9 -> 3 -> the output
    expect_merged(runs, order, 2, 4);  // 9 -> 5 -> 3 -> 2 -> the output
  }
}

// A pass whose runs would outnumber the descriptors it may hold merges its newest runs into one as
// it goes (runs_held_limit stands in for a small open-file limit): the same stable merge, positions
// too, every temporary gone.
TYPED_TEST(MergeInputsKeysTest, RunsHeldWithinTheLimitGiveTheStableMerge) {
  const RecordLayout layout = RecordLayout::bare_key(KeyTypeOf<TypeParam>::value);
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < 41; ++i) sizes.push_back((i * 37) % 300);
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    const TestRuns runs = testing::make_runs(layout, order, sizes, 5);
    for (const std::size_t held : {std::size_t{2}, std::size_t{3}, std::size_t{7}}) {
      MergeFixture merge;
      merge.add_runs(runs);
      merge.job().fan_in_limit = 2;
      merge.job().runs_held_limit = held;
      const MergeOutcome outcome = merge.merge(runs.layout, order, true);
      const std::vector<std::uint64_t> expected = testing::reference_merge_positions(runs, order);
      EXPECT_EQ(merge.positions(), expected) << held << " runs held";
      EXPECT_EQ(merge.records(), testing::gather(runs, expected)) << held << " runs held";
      EXPECT_EQ(outcome.plan.runs_held, held);
      EXPECT_GT(outcome.passes.front().runs, 41u / 2) << "the first pass merged its newest runs again";
      EXPECT_EQ(outcome.verify_failure, "");
      EXPECT_TRUE(merge.temporaries().empty());
    }
  }
}

// INPUTS runs of 10-29 u64 keys merged with fan-in 4 and HELD runs held at most: the stable merge,
// every temporary gone. TOTAL: their records.
MergeOutcome merge_with_runs_held(std::size_t inputs, std::size_t held, std::uint64_t& total) {
  const RecordLayout layout = RecordLayout::bare_key(KeyType::u64);
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < inputs; ++i) sizes.push_back(10 + (i * 37) % 20);
  const TestRuns runs = testing::make_runs(layout, SortOrder::ascending, sizes, 9);
  MergeFixture merge;
  merge.add_runs(runs);
  merge.job().fan_in_limit = 4;
  merge.job().runs_held_limit = held;
  const MergeOutcome outcome = merge.merge(runs.layout, SortOrder::ascending, true);
  const std::vector<std::uint64_t> expected = testing::reference_merge_positions(runs, SortOrder::ascending);
  EXPECT_EQ(merge.positions(), expected);
  EXPECT_EQ(merge.records(), testing::gather(runs, expected));
  EXPECT_TRUE(merge.temporaries().empty());
  total = runs.total();
  return outcome;
}

// When a pass's runs would outnumber what it may hold, it merges them as they come, as a counter
// (sort/merge_plan.hpp: runs_counter_arity): each record merged about log(runs) times, not once per
// run made after it, as when the newest runs alone were merged again whenever they were too many
// (600 inputs, fan-in 4, 6 runs held: 25.8 times the records before, 9.3 now).
TEST(MergeInputsRunsHeldTest, RunsMadeBeyondTheLimitAreMergedAsACounter) {
  std::uint64_t total = 0;
  const MergeOutcome outcome = merge_with_runs_held(600, 6, total);
  std::uint64_t merged = 0;
  for (const MergePassReport& pass : outcome.passes) merged += pass.records;
  // 150 runs of the first pass through a binary counter: 8 levels at most; the last pass adds 1.
  EXPECT_LE(merged, 10 * total) << double(merged) / double(total) << " times the records";
}

// A pass whose runs fit merges none early, a later pass over the runs of one before too: 80 inputs,
// fan-in 4, 20 runs held: 20 runs, then 5 (every record once in each), then 2 of them into one,
// then the output; a run merged early would be one more run of its pass.
TEST(MergeInputsRunsHeldTest, PassesWhoseRunsFitMergeNoneEarly) {
  std::uint64_t total = 0;
  const MergeOutcome outcome = merge_with_runs_held(80, 20, total);
  ASSERT_EQ(outcome.passes.size(), 4u);
  EXPECT_EQ(outcome.passes[0].runs, 20u);
  EXPECT_EQ(outcome.passes[1].runs, 5u);
  EXPECT_EQ(outcome.passes[2].runs, 1u);
  EXPECT_EQ(outcome.passes[0].records, total);
  EXPECT_EQ(outcome.passes[1].records, total);
  EXPECT_EQ(outcome.passes[3].records, total);
}

TEST(MergeInputsRecordsTest, EveryLayoutThroughAPassOfRuns) {
  for (const RecordLayout& layout : testing::record_test_layouts()) {
    SCOPED_TRACE(testing::layout_name(layout));
    const TestRuns runs = testing::make_runs(layout, SortOrder::descending, {40, 0, 7, 1, 90}, 2);
    expect_merged(runs, SortOrder::descending, 4, 2);
  }
}

TEST(MergeInputsRecordsTest, NoInputsOneInputAndEmptyInputs) {
  const RecordLayout layout = RecordLayout::of({KeyType::bytes, 10}, 100, 0);
  expect_merged(testing::make_runs(layout, SortOrder::ascending, {}, 1), SortOrder::ascending, 0, 1);
  expect_merged(testing::make_runs(layout, SortOrder::ascending, {1000}, 1), SortOrder::ascending, 0, 1);
  expect_merged(testing::make_runs(layout, SortOrder::ascending, {0, 0, 0}, 1), SortOrder::ascending, 2, 2);
}

// Windows far smaller than the runs: many rounds, each refilling some windows; equal keys across
// inputs wait for the earlier inputs' in every round.
TEST(MergeInputsRecordsTest, InputsLargerThanTheirWindows) {
  const RecordLayout layout = RecordLayout::of({KeyType::u32, 4}, 12, 8);
  const TestRuns runs = testing::make_runs(layout, SortOrder::ascending, {60000, 100000, 3, 80000}, 7);
  MergeFixture merge;
  merge.add_runs(runs);
  merge.job().host_memory = 4 << 20;  // 64 KiB chunks: windows of about 11 000 records
  const MergeOutcome outcome = merge.merge(layout, SortOrder::ascending, true);
  const std::vector<std::uint64_t> expected = testing::reference_merge_positions(runs, SortOrder::ascending);
  EXPECT_EQ(merge.positions(), expected);
  EXPECT_EQ(merge.records(), testing::gather(runs, expected));
  EXPECT_EQ(outcome.plan.fan_in, 12u);
}

TEST(MergeInputsRecordsTest, ThreeHundredInputsInPasses) {
  const RecordLayout layout = RecordLayout::bare_key(KeyType::i64);
  std::vector<std::uint64_t> counts;
  for (std::uint64_t i = 0; i < 300; ++i) counts.push_back((i * 37) % 50);
  expect_merged(testing::make_runs(layout, SortOrder::ascending, counts, 4), SortOrder::ascending, 5, 4);
}

// Input 2 of 3 breaks its order at record 5 (of 8-byte keys: byte offset 40), read in the first pass
// of runs or in the last one.
TEST(MergeInputsErrorsTest, AnInputOutOfOrderIsNamedWithItsRecordAndOffset) {
  const RecordLayout layout = RecordLayout::bare_key(KeyType::u64);
  const std::vector<std::uint64_t> bad{1, 2, 3, 4, 9, 8, 10};
  for (std::size_t fan_in : {0, 2}) {
    MergeFixture merge;
    merge.add_runs(testing::make_runs(layout, SortOrder::ascending, {100, 100}, 3));
    const std::string path = merge.file("bad.u64");
    test::write_plain_file(path, std::vector<std::byte>(reinterpret_cast<const std::byte*>(bad.data()),
                                                        reinterpret_cast<const std::byte*>(bad.data() + bad.size())));
    merge.job().inputs.insert(merge.job().inputs.begin() + 1, file_input(path, bad.size()));
    merge.job().fan_in_limit = fan_in;
    try {
      (void)merge.merge(layout, SortOrder::ascending, false);
      ADD_FAILURE() << "no MergeDisorder";
    } catch (const MergeDisorder& e) {
      EXPECT_EQ(std::string(e.what()), path + ": not in ascending order: key 5 is out of order (8 after 9, at byte "
                                             "offset 40)");
    }
    EXPECT_TRUE(merge.temporaries().empty());
  }
}

// A disorder across two refills of a window (the kept key of the one before): records of 13 bytes, an
// f64 key at 3; index 30000 of 40000, in 64 KiB chunks.
TEST(MergeInputsErrorsTest, ADisorderAcrossRefillsIsFound) {
  const RecordLayout layout = RecordLayout::of({KeyType::f64, 8}, 13, 3);
  TestRuns runs = testing::make_runs(layout, SortOrder::ascending, {40000}, 3);
  const double low = -1e300;
  std::memcpy(runs.records.data() + 30000 * 13 + 3, &low, 8);
  MergeFixture merge;
  merge.add_runs(runs);
  merge.job().host_memory = 4 << 20;
  EXPECT_THROW(
      {
        try {
          (void)merge.merge(layout, SortOrder::ascending, false);
        } catch (const MergeDisorder& e) {
          EXPECT_NE(std::string(e.what()).find(": not in ascending order: record 30000 is out of order (key -1e+300 "
                                               "after "),
                    std::string::npos)
              << e.what();
          EXPECT_NE(std::string(e.what()).find("at byte offset 390000)"), std::string::npos) << e.what();
          throw;
        }
      },
      MergeDisorder);
}

// A raw stream before the last input, with positions: copied first to learn its length.
TEST(MergeInputsStreamsTest, AStreamBeforeTheLastInputIsCopiedForThePositions) {
  const RecordLayout layout = RecordLayout::bare_key(KeyType::f32);
  const TestRuns runs = testing::make_runs(layout, SortOrder::ascending, {500, 20000, 300}, 5);
  MergeFixture merge;
  merge.add_runs(runs);
  auto feeder = std::make_shared<test::Feeder>(bytes_of(runs, 1));
  MergeInput& stream = merge.job().inputs[1];
  stream.records.reset();
  stream.stream = true;
  stream.check.name = "stdin";
  stream.open = [feeder] { return OpenedInput{std::move(feeder->input()), {}}; };
  const MergeOutcome outcome = merge.merge(layout, SortOrder::ascending, true);
  const std::vector<std::uint64_t> expected = testing::reference_merge_positions(runs, SortOrder::ascending);
  EXPECT_EQ(merge.positions(), expected);
  EXPECT_EQ(merge.records(), testing::gather(runs, expected));
  EXPECT_EQ(outcome.inputs_copied, 1u);
  EXPECT_TRUE(merge.temporaries().empty());
}

TEST(MergeInputsStreamsTest, AStreamCutInsideARecordIsRefused) {
  const RecordLayout layout = RecordLayout::bare_key(KeyType::u64);
  MergeFixture merge;
  auto feeder = std::make_shared<test::Feeder>(std::vector<std::byte>(13));
  MergeInput input;
  input.check = WindowInput{true, false, "stdin", 0, std::nullopt, false, 0, 0};
  input.stream = true;
  input.open = [feeder] { return OpenedInput{std::move(feeder->input()), {}}; };
  merge.job().inputs.push_back(input);
  try {
    (void)merge.merge(layout, SortOrder::ascending, false);
    ADD_FAILURE() << "no Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "stdin: 13 bytes are not a whole number of u64 keys (8 bytes each)");
  }
}

// A .npy stream whose data is longer or shorter than its header states; the head bytes a raw stream
// had read come first.
TEST(MergeInputsStreamsTest, ANpyStreamOfAnotherLengthIsRefused) {
  const RecordLayout layout = RecordLayout::bare_key(KeyType::u32);
  for (std::uint64_t stated : {3, 5}) {
    MergeFixture merge;
    auto feeder = std::make_shared<test::Feeder>(std::vector<std::byte>(12));
    MergeInput input;
    input.check = WindowInput{true, false, "stdin", 128, stated * 4, true, stated, 4};
    input.records = stated;
    input.stream = true;
    input.open = [feeder] { return OpenedInput{std::move(feeder->input()), std::vector<std::byte>(4)}; };
    merge.job().inputs.push_back(input);
    try {
      (void)merge.merge(layout, SortOrder::ascending, false);
      ADD_FAILURE() << "no Error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "stdin: the .npy header's shape says " + std::to_string(stated) +
                                           " items of 4 bytes, but the data " +
                                           (stated == 3 ? std::string("goes on after them") : "holds 4"));
    }
  }
}

}  // namespace
}  // namespace rmgsort
