// app/npy_output_headers.hpp: which outputs get a header (every one for .npy input; those named
// *.npy for raw input), the headers before the records, written again for --unique and for raw
// input, and the outputs that cannot be written again refused by name.
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

// .npy input's formats: both outputs .npy, whatever their names.
NpyOutputFormats npy_input_formats(const RecordLayout& layout, std::uint64_t count) {
  return npy_output_formats(header_of(layout, count), layout, "out", "index");
}

TEST(NpyOutputHeadersTest, RawInputToOutputsNotNamedNpyWritesNothing) {
  TempDir dir(test::disk_directory());
  const UniqueFd out = open_for_writing(dir.file("out")), index = open_for_writing(dir.file("index"));
  const SortRun run = run_into(out, index);
  const RecordLayout layout = RecordLayout::bare_key(KeyType::u64);
  for (const auto& [output, index_output] : {std::pair{"out", "index"}, std::pair{"-", "-"}, std::pair{"", ""},
                                             std::pair{"out.npy.bin", "x.NPYZ"}}) {
    const NpyOutputFormats formats = npy_output_formats(std::nullopt, layout, output, index_output);
    EXPECT_FALSE(formats.any()) << output;
    for (bool unique : {false, true}) EXPECT_FALSE(formats.rewritten(unique));
    const NpyOutputHeads heads = write_npy_output_headers(formats, 5, run);
    EXPECT_FALSE(heads.output_offset);
    EXPECT_FALSE(heads.index_offset);
    EXPECT_NO_THROW(require_rewritable_npy_outputs(formats, true, run));
    rewrite_npy_output_headers(formats, run, heads, 5, 2);
  }
  EXPECT_TRUE(test::read_plain_file(dir.file("out")).empty());
  EXPECT_TRUE(test::read_plain_file(dir.file("index")).empty());
}

// Raw input: each output named *.npy (any case) gets generate's header for the layout, written for
// no records first and always rewritten with the count written; the other output stays raw.
TEST(NpyOutputHeadersTest, RawInputToOutputsNamedNpyGetGeneratesHeaderRewrittenAtTheEnd) {
  for (const RecordLayout& layout : {RecordLayout::bare_key(KeyType::f32), RecordLayout::of({KeyType::bytes, 10}, 100, 0),
                                     RecordLayout{KeyType::i64, 8, 13, 5}}) {
    TempDir dir(test::disk_directory());
    const UniqueFd out = open_for_writing(dir.file("out")), index = open_for_writing(dir.file("index"));
    const SortRun run = run_into(out, index);
    const NpyOutputFormats only_output = npy_output_formats(std::nullopt, layout, "a/sorted.NPY", "positions.u64");
    ASSERT_TRUE(only_output.array.has_value());
    EXPECT_FALSE(only_output.index);
    EXPECT_TRUE(only_output.rewritten(false));
    const RecordLayout read_back = npy_record_layout(
        *only_output.array, layout.is_bare_key() ? std::nullopt : std::optional<std::string_view>("key"), std::nullopt,
        "out.npy");
    EXPECT_TRUE(read_back.key_type == layout.key_type && read_back.key_size == layout.key_size &&
                read_back.record_size == layout.record_size &&
                read_back.key_offset == layout.key_offset);
    require_rewritable_npy_outputs(only_output, false, run);
    const NpyOutputHeads heads = write_npy_output_headers(only_output, 0, run);
    EXPECT_FALSE(heads.index_offset);
    EXPECT_EQ(test::read_plain_file(dir.file("out")), npy_header_for_generate(layout, 0));
    rewrite_npy_output_headers(only_output, run, heads, 0, 12345);
    EXPECT_EQ(test::read_plain_file(dir.file("out")), npy_header_for_generate(layout, 12345));
    EXPECT_TRUE(test::read_plain_file(dir.file("index")).empty());
    const NpyOutputFormats only_index = npy_output_formats(std::nullopt, layout, "sorted.bin", "positions.npy");
    EXPECT_FALSE(only_index.array.has_value());
    EXPECT_TRUE(only_index.index);
  }
}

// Typed over record layouts: a bare key, a structured record.
TEST(NpyOutputHeadersTest, HeadersWrittenThenRewrittenForTheRecordsKept) {
  for (const RecordLayout& layout : {RecordLayout::bare_key(KeyType::u64), RecordLayout{KeyType::i32, 4, 12, 3}}) {
    TempDir dir(test::disk_directory());
    const NpyOutputFormats formats = npy_input_formats(layout, 9);
    ASSERT_TRUE(formats.array && formats.index);
    EXPECT_FALSE(formats.rewritten(false));
    EXPECT_TRUE(formats.rewritten(true));
    const UniqueFd out = open_for_writing(dir.file("out")), index = open_for_writing(dir.file("index"));
    const SortRun run = run_into(out, index);
    require_rewritable_npy_outputs(formats, true, run);
    const NpyOutputHeads heads = write_npy_output_headers(formats, 9, run);
    ASSERT_EQ(heads.output_offset, std::optional<std::uint64_t>(0));
    ASSERT_EQ(heads.index_offset, std::optional<std::uint64_t>(0));
    EXPECT_EQ(test::read_plain_file(dir.file("out")), npy_header_for(*formats.array, 9));
    EXPECT_EQ(test::read_plain_file(dir.file("index")), npy_index_header(9));
    rewrite_npy_output_headers(formats, run, heads, 9, 4);
    EXPECT_EQ(test::read_plain_file(dir.file("out")), npy_header_for(*formats.array, 4));
    EXPECT_EQ(test::read_plain_file(dir.file("index")), npy_index_header(4));
  }
}

TEST(NpyOutputHeadersTest, AnOutputOpenedToAppendIsRefusedByName) {
  TempDir dir(test::disk_directory());
  const UniqueFd out = open_for_writing(dir.file("out"), O_APPEND), index = open_for_writing(dir.file("index"));
  try {
    require_rewritable_npy_outputs(npy_input_formats(RecordLayout::bare_key(KeyType::u32), 3), true,
                                   run_into(out, index));
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
    require_rewritable_npy_outputs(npy_input_formats(RecordLayout::bare_key(KeyType::u32), 3), true, run);
    FAIL() << "a pipe was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("index.npy: --unique"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
  // Without --unique, .npy input's headers are written once: a pipe takes them.
  EXPECT_NO_THROW(require_rewritable_npy_outputs(npy_input_formats(RecordLayout::bare_key(KeyType::u32), 3), false, run));
  // Raw input to a pipe named *.npy (a FIFO): refused whether or not --unique, saying why.
  const NpyOutputFormats raw = npy_output_formats(std::nullopt, RecordLayout::bare_key(KeyType::u32), "out", "fifo.npy");
  try {
    require_rewritable_npy_outputs(raw, false, run);
    FAIL() << "a pipe was accepted for raw input's .npy output";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("index.npy: a .npy output of raw input gets its header's shape"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace rmgsort
