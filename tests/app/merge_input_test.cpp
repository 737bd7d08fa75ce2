// app/merge_input: merge's inputs, raw or .npy, opened and their layouts agreed on before anything is
// written: the records each holds, a format or dtype other than the first input's refused naming the
// input, a regular file opened again for its pass (and refused when it changed meanwhile), a stream
// handed on once with the bytes read to tell its format; and the .npy headers of the outputs.
#include "app/merge_input.hpp"
#include "app/npy_output_headers.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/npy_format.hpp"
#include "io/unique_fd.hpp"
#include "tests/io/io_test_support.hpp"

namespace rmgsort {
namespace {

using test::pattern_bytes;
using test::TempDir;

const RecordLayout kU64 = RecordLayout::bare_key(KeyType::u64);

std::vector<std::byte> npy_file(const RecordLayout& layout, std::uint64_t count) {
  std::vector<std::byte> bytes = npy_header_for_generate(layout, count);
  const std::vector<std::byte> data = pattern_bytes(count * layout.record_size);
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

MergeOptions raw_options(std::vector<std::string> inputs) {
  MergeOptions options;
  options.inputs = std::move(inputs);
  options.layout = kU64;
  options.type_option = KeySpec{KeyType::u64, 8};
  return options;
}

// The error message open_merge_inputs throws, or "" when it opens them.
std::string open_error(const MergeOptions& options) {
  try {
    (void)open_merge_inputs(options);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MergeInputTest, RawFilesAreCountedAndOpenedAgainAtTheirData) {
  TempDir dir(test::disk_directory());
  test::write_plain_file(dir.file("a"), pattern_bytes(80, 1));
  test::write_plain_file(dir.file("b"), pattern_bytes(16, 2));
  test::write_plain_file(dir.file("empty"), {});
  MergeInputFiles files = open_merge_inputs(raw_options({dir.file("a"), dir.file("b")}));
  EXPECT_STREQ(files.format(), "raw");
  ASSERT_EQ(files.inputs.size(), 2u);
  EXPECT_EQ(files.inputs[0].records, std::optional<std::uint64_t>(10));
  EXPECT_EQ(files.inputs[0].check.name, dir.file("a"));
  EXPECT_FALSE(files.inputs[0].stream);
  EXPECT_EQ(files.records, std::optional<std::uint64_t>(12));
  // An empty file says nothing of its length (io/input_file.hpp): read as a stream, as sort reads it;
  // ending before its first byte, it holds no record, and no pass reads it.
  const MergeInputFiles empty = open_merge_inputs(raw_options({dir.file("a"), dir.file("empty"), dir.file("b")}));
  ASSERT_EQ(empty.inputs.size(), 2u);
  EXPECT_EQ(empty.inputs[1].check.name, dir.file("b"));
  EXPECT_EQ(empty.records, std::optional<std::uint64_t>(12));
  // Opened twice: a file is opened again for each pass that reads it.
  for (int i = 0; i < 2; ++i) {
    OpenedInput opened = files.inputs[0].open();
    EXPECT_TRUE(opened.file.regular);
    EXPECT_EQ(opened.file.size, 80u);
    EXPECT_TRUE(opened.head.empty());
  }
}

TEST(MergeInputTest, NpyFilesGiveTheirRecordsAndDataOffset) {
  TempDir dir(test::disk_directory());
  const RecordLayout layout = RecordLayout::of({KeyType::i32, 4}, 13, 3);
  test::write_plain_file(dir.file("a.npy"), npy_file(layout, 7));
  test::write_plain_file(dir.file("b.npy"), npy_file(layout, 0));
  MergeOptions options;
  options.inputs = {dir.file("a.npy"), dir.file("b.npy")};
  options.key_field = "key";
  MergeInputFiles files = open_merge_inputs(options);
  EXPECT_STREQ(files.format(), "npy");
  EXPECT_EQ(files.layout.record_size, 13u);
  EXPECT_EQ(files.layout.key_offset, 3u);
  EXPECT_EQ(files.records, std::optional<std::uint64_t>(7));
  ASSERT_EQ(files.inputs.size(), 1u);  // b.npy holds no record: no pass reads it
  const std::uint64_t header = npy_header_for_generate(layout, 7).size();
  EXPECT_EQ(files.inputs[0].check.data_start, header);
  EXPECT_TRUE(files.inputs[0].check.npy);
  EXPECT_FALSE(files.inputs[0].check.expected_bytes.has_value());  // a file's size was checked already
  OpenedInput opened = files.inputs[0].open();
  EXPECT_EQ(opened.file.data_offset, header);
  EXPECT_EQ(opened.file.size, 7u * 13);
}

// Empty inputs are checked (their format, the first's layout) and closed: a merge of many of them
// under a low open-file limit held one descriptor each and ran out where its passes keep within it.
TEST(MergeInputTest, EmptyInputsHoldNoDescriptor) {
  TempDir dir(test::disk_directory());
  const auto open_descriptors = [] {
    return std::distance(std::filesystem::directory_iterator("/proc/self/fd"), std::filesystem::directory_iterator());
  };
  std::vector<std::string> inputs;
  for (int i = 0; i < 50; ++i) {
    inputs.push_back(dir.file("e" + std::to_string(i)));
    test::write_plain_file(inputs.back(), {});
  }
  test::write_plain_file(dir.file("z.npy"), npy_file(kU64, 0));
  inputs.push_back(dir.file("z.npy"));
  const auto before = open_descriptors();
  EXPECT_NE(open_error(raw_options(inputs)).find("z.npy: a .npy file, where"), std::string::npos);
  inputs.pop_back();
  const MergeInputFiles files = open_merge_inputs(raw_options(inputs));
  EXPECT_TRUE(files.inputs.empty());
  EXPECT_EQ(files.records, std::optional<std::uint64_t>(0));
  EXPECT_EQ(open_descriptors(), before);
}

TEST(MergeInputTest, AnInputUnlikeTheFirstIsRefusedByName) {
  TempDir dir(test::disk_directory());
  const RecordLayout layout = RecordLayout::of({KeyType::u64, 8}, 16, 8);
  test::write_plain_file(dir.file("a.npy"), npy_file(layout, 2));
  test::write_plain_file(dir.file("other.npy"), npy_file(RecordLayout::of({KeyType::u64, 8}, 16, 0), 2));
  test::write_plain_file(dir.file("raw"), pattern_bytes(32));
  MergeOptions options;
  options.key_field = "key";
  options.inputs = {dir.file("a.npy"), dir.file("other.npy")};
  EXPECT_NE(open_error(options).find(dir.file("other.npy") + ": its .npy dtype "), std::string::npos)
      << open_error(options);
  options.inputs = {dir.file("a.npy"), dir.file("raw")};
  EXPECT_EQ(open_error(options), dir.file("raw") + ": not a .npy file, where " + dir.file("a.npy") +
                                     " is one: merge's inputs are all .npy files or all raw records");
  MergeOptions raw = raw_options({dir.file("raw"), dir.file("a.npy")});
  EXPECT_EQ(open_error(raw), dir.file("a.npy") + ": a .npy file, where " + dir.file("raw") +
                                 " is raw: merge's inputs are all .npy files or all raw records");
}

TEST(MergeInputTest, TheOptionsOfTheOtherFormatAreRefused) {
  TempDir dir(test::disk_directory());
  test::write_plain_file(dir.file("raw"), pattern_bytes(32));
  test::write_plain_file(dir.file("k.npy"), npy_file(kU64, 2));
  MergeOptions no_type;
  no_type.inputs = {dir.file("raw")};
  EXPECT_EQ(open_error(no_type),
            "-t,--type is required (" + dir.file("raw") + " is not a .npy file, whose header gives it)");
  MergeOptions key = raw_options({dir.file("raw")});
  key.key_field = "id";
  EXPECT_NE(open_error(key).find(": --key id: the input is not a .npy file"), std::string::npos);
  MergeOptions sizes;
  sizes.inputs = {dir.file("k.npy")};
  sizes.record_options = true;
  EXPECT_NE(open_error(sizes).find("--record-size and --key-offset describe raw input"), std::string::npos);
}

TEST(MergeInputTest, ARawFileOfACutRecordIsRefused) {
  TempDir dir(test::disk_directory());
  test::write_plain_file(dir.file("cut"), pattern_bytes(13));
  EXPECT_EQ(open_error(raw_options({dir.file("cut")})),
            dir.file("cut") + ": 13 bytes are not a whole number of u64 keys (8 bytes each)");
}

TEST(MergeInputTest, AFileChangedBeforeItsPassIsRefused) {
  TempDir dir(test::disk_directory());
  test::write_plain_file(dir.file("a"), pattern_bytes(80));
  MergeInputFiles files = open_merge_inputs(raw_options({dir.file("a")}));
  test::write_plain_file(dir.file("a"), pattern_bytes(88));
  try {
    (void)files.inputs[0].open();
    ADD_FAILURE() << "no Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), dir.file("a") + ": changed while merge read its inputs (it is another file now, "
                                                       "another size, or written since)");
  }
}

// Written over in place, same size: its modification time says so (it was merged with its new records).
TEST(MergeInputTest, AFileWrittenOverInPlaceBeforeItsPassIsRefused) {
  TempDir dir(test::disk_directory());
  test::write_plain_file(dir.file("a"), pattern_bytes(80));
  const timespec old_times[2] = {{0, UTIME_OMIT}, {1000000000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, dir.file("a").c_str(), old_times, 0), 0);
  MergeInputFiles files = open_merge_inputs(raw_options({dir.file("a")}));
  (void)files.inputs[0].open();  // unchanged: opened again as often as its passes ask
  {
    const UniqueFd file(::open(dir.file("a").c_str(), O_WRONLY | O_CLOEXEC));
    ASSERT_TRUE(file.valid());
    ASSERT_EQ(::pwrite(file.get(), "12345678", 8, 8), 8);
  }
  try {
    (void)files.inputs[0].open();
    ADD_FAILURE() << "no Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("or written since"), std::string::npos) << e.what();
  }
}

// A pipe (as /dev/fd/N): held open, handed on once, with the bytes read to tell its format first.
TEST(MergeInputTest, AStreamIsHandedOnOnceWithItsHead) {
  test::Feeder feeder(pattern_bytes(40, 2));
  const std::string path = "/dev/fd/" + std::to_string(feeder.input().fd);
  MergeInputFiles files = open_merge_inputs(raw_options({path}));
  ASSERT_EQ(files.inputs.size(), 1u);
  EXPECT_TRUE(files.inputs[0].stream);
  EXPECT_FALSE(files.inputs[0].records.has_value());
  EXPECT_FALSE(files.records.has_value());
  OpenedInput opened = files.inputs[0].open();
  EXPECT_EQ(opened.head.size(), kNpyMagicBytes);
  EXPECT_THROW((void)files.inputs[0].open(), Error);
}

TEST(MergeInputTest, NpyOutputsGetTheMergedArraysHeaders) {
  TempDir dir(test::disk_directory());
  test::write_plain_file(dir.file("a.npy"), npy_file(kU64, 3));
  test::write_plain_file(dir.file("b.npy"), npy_file(kU64, 4));
  MergeOptions options;
  options.inputs = {dir.file("a.npy"), dir.file("b.npy")};
  const MergeInputFiles files = open_merge_inputs(options);
  const UniqueFd out(::open(dir.file("out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  const UniqueFd index(::open(dir.file("index").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  SortRun run;
  run.output_fd = out.get();
  run.output_name = "out";
  run.index_fd = index.get();
  run.index_name = "index";
  ASSERT_EQ(files.records, std::optional<std::uint64_t>(7));
  write_npy_output_headers(npy_output_formats(files.npy, files.layout, "out", "index"), *files.records, run);
  EXPECT_EQ(test::read_plain_file(dir.file("out")), npy_header_for(*files.npy, 7));
  EXPECT_EQ(test::read_plain_file(dir.file("index")), npy_index_header(7));
  // Raw inputs to outputs not named *.npy: nothing precedes the records.
  test::write_plain_file(dir.file("raw"), pattern_bytes(8));
  const MergeInputFiles raw = open_merge_inputs(raw_options({dir.file("raw")}));
  write_npy_output_headers(npy_output_formats(raw.npy, raw.layout, "out", "index"), 1, run);
  EXPECT_EQ(test::read_plain_file(dir.file("out")).size(), npy_header_for(*files.npy, 7).size());
}

}  // namespace
}  // namespace rmgsort
