// app/npy_output_headers.hpp: the headers before the records, written again for --unique, and the
// outputs that cannot be written again refused by name.
#include "app/npy_output_headers.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/npy_format.hpp"
#include "io/unique_fd.hpp"
#include "tests/io/io_test_support.hpp"

namespace rmgsort {
namespace {

using test::TempDir;

NpyHeader header_of(const RecordLayout& layout, std::uint64_t count) {
  return parse_npy_header(npy_header_for_generate(layout, count), "input.npy");
}

UniqueFd open_for_writing(const std::string& path, int extra_flags = 0) {
  return UniqueFd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | extra_flags, 0600));
}

SortRun run_into(const UniqueFd& out, const UniqueFd& index) {
  SortRun run;
  run.output_fd = out.get();
  run.output_name = "out.npy";
  run.index_fd = index.get();
  run.index_name = "index.npy";
  return run;
}

TEST(NpyOutputHeadersTest, RawInputWritesNothing) {
  TempDir dir(test::disk_directory());
  const UniqueFd out = open_for_writing(dir.file("out")), index = open_for_writing(dir.file("index"));
  const SortRun run = run_into(out, index);
  const NpyOutputHeads heads = write_npy_output_headers(std::nullopt, 5, run);
  EXPECT_FALSE(heads.output_offset);
  EXPECT_FALSE(heads.index_offset);
  EXPECT_NO_THROW(require_rewritable_npy_outputs(std::nullopt, run));
  rewrite_npy_output_headers(std::nullopt, run, heads, 5, 2);
  EXPECT_TRUE(test::read_plain_file(dir.file("out")).empty());
  EXPECT_TRUE(test::read_plain_file(dir.file("index")).empty());
}

// Typed over record layouts: a bare key, a structured record.
TEST(NpyOutputHeadersTest, HeadersWrittenThenRewrittenForTheRecordsKept) {
  for (const RecordLayout& layout : {RecordLayout::bare_key(KeyType::u64), RecordLayout{KeyType::i32, 4, 12, 3}}) {
    TempDir dir(test::disk_directory());
    const std::optional<NpyHeader> array = header_of(layout, 9);
    const UniqueFd out = open_for_writing(dir.file("out")), index = open_for_writing(dir.file("index"));
    const SortRun run = run_into(out, index);
    require_rewritable_npy_outputs(array, run);
    const NpyOutputHeads heads = write_npy_output_headers(array, 9, run);
    ASSERT_EQ(heads.output_offset, std::optional<std::uint64_t>(0));
    ASSERT_EQ(heads.index_offset, std::optional<std::uint64_t>(0));
    EXPECT_EQ(test::read_plain_file(dir.file("out")), npy_header_for(*array, 9));
    EXPECT_EQ(test::read_plain_file(dir.file("index")), npy_index_header(9));
    rewrite_npy_output_headers(array, run, heads, 9, 4);
    EXPECT_EQ(test::read_plain_file(dir.file("out")), npy_header_for(*array, 4));
    EXPECT_EQ(test::read_plain_file(dir.file("index")), npy_index_header(4));
  }
}

TEST(NpyOutputHeadersTest, AnOutputOpenedToAppendIsRefusedByName) {
  TempDir dir(test::disk_directory());
  const UniqueFd out = open_for_writing(dir.file("out"), O_APPEND), index = open_for_writing(dir.file("index"));
  try {
    require_rewritable_npy_outputs(header_of(RecordLayout::bare_key(KeyType::u32), 3), run_into(out, index));
    FAIL() << "an output opened to append was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("out.npy: --unique with .npy input"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("is opened to append"), std::string::npos) << e.what();
  }
}

TEST(NpyOutputHeadersTest, APipeIsRefusedByName) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const UniqueFd read_end(ends[0]), write_end(ends[1]);
  TempDir dir(test::disk_directory());
  const UniqueFd out = open_for_writing(dir.file("out"));
  SortRun run = run_into(out, write_end);
  try {
    require_rewritable_npy_outputs(header_of(RecordLayout::bare_key(KeyType::u32), 3), run);
    FAIL() << "a pipe was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("index.npy: --unique"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rmgsort
