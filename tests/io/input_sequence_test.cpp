// Several inputs read as one (io/input_sequence.hpp): regular parts are one sized source whose bytes
// any offset reads across parts; any stream makes the whole sequence a stream, read front to back
// (its files by position), each raw stream's head spliced in, each stream held to whole records and a
// .npy stream to its header.
#include "io/input_sequence.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io_test_support.hpp"

namespace rmgsort {
namespace {

const RecordLayout kU32 = RecordLayout::bare_key(KeyType::u32);
const RecordLayout kRecords12 = record_layout_option(KeySpec{KeyType::u64, 8}, 12, 3);

std::vector<std::byte> concatenation(const std::vector<std::vector<std::byte>>& parts) {
  std::vector<std::byte> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

// Files of PARTS in DIR, opened in order.
std::vector<InputPart> file_parts(const test::TempDir& dir, const std::vector<std::vector<std::byte>>& parts) {
  std::vector<InputPart> opened;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string path = dir.file("part" + std::to_string(i));
    test::write_plain_file(path, parts[i]);
    opened.push_back(open_input_part(path, "keys"));
  }
  return opened;
}

// A .npy file of COUNT u64 keys 0, 1, ... at PATH; its data.
std::vector<std::byte> write_npy_u64(const std::string& path, std::uint64_t count) {
  std::vector<std::byte> file = npy_header_for_generate(RecordLayout::bare_key(KeyType::u64), count);
  std::vector<std::byte> data(count * 8);
  for (std::uint64_t i = 0; i < count; ++i) std::memcpy(data.data() + 8 * i, &i, 8);
  file.insert(file.end(), data.begin(), data.end());
  test::write_plain_file(path, file);
  return data;
}

// Everything read() hands on, in reads of READ_BYTES.
std::vector<std::byte> read_all(InputSequence& input, std::size_t read_bytes) {
  std::vector<std::byte> all, piece(read_bytes);
  for (;;) {
    const std::size_t got = input.read(piece.data(), piece.size());
    all.insert(all.end(), piece.begin(), piece.begin() + std::ptrdiff_t(got));
    if (got < piece.size()) return all;
  }
}

std::string read_error(InputSequence& input, std::size_t read_bytes) {
  try {
    (void)read_all(input, read_bytes);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(InputSequence, RegularPartsAreOneSizedSource) {
  test::TempDir dir(test::disk_directory());
  const std::vector<std::vector<std::byte>> data{test::pattern_bytes(4000, 1), test::pattern_bytes(12, 2),
                                                 test::pattern_bytes(8196, 3)};
  InputSequence input(file_parts(dir, data), kU32);
  EXPECT_TRUE(input.regular());
  EXPECT_EQ(input.size(), 4000u + 12u + 8196u);
  EXPECT_EQ(input.display_name(), dir.file("part0") + ", " + dir.file("part1") + ", " + dir.file("part2"));
  const std::vector<std::byte> all = concatenation(data);
  // Every piece, within a part or across one or two boundaries, reads as the concatenation's bytes.
  for (const std::uint64_t offset : {0, 1, 3996, 3999, 4000, 4005, 4011, 4012, 5000, 12200, 12207}) {
    for (const std::size_t bytes : {1, 7, 16, 4096, 20000}) {
      std::vector<std::byte> got(bytes);
      const std::size_t n = input.read_at(got.data(), bytes, offset);
      ASSERT_EQ(n, std::min<std::size_t>(bytes, all.size() - offset)) << offset << " " << bytes;
      EXPECT_TRUE(std::equal(got.begin(), got.begin() + std::ptrdiff_t(n), all.begin() + std::ptrdiff_t(offset)))
          << offset << " " << bytes;
    }
  }
  std::vector<std::byte> none(8);
  EXPECT_EQ(input.read_at(none.data(), 8, all.size()), 0u);
}

TEST(InputSequence, OnePartIsThatPart) {
  test::TempDir dir(test::disk_directory());
  InputSequence input(file_parts(dir, {test::pattern_bytes(400)}), kU32);
  EXPECT_TRUE(input.regular());
  EXPECT_EQ(input.size(), 400u);
  EXPECT_EQ(input.display_name(), dir.file("part0"));
}

TEST(InputSequence, NpyPartsAreTheirData) {
  test::TempDir dir(test::disk_directory());
  const std::vector<std::byte> first = write_npy_u64(dir.file("a.npy"), 5);
  const std::vector<std::byte> second = write_npy_u64(dir.file("b.npy"), 700);
  std::vector<InputPart> parts;
  parts.push_back(open_input_part(dir.file("a.npy"), "keys"));
  parts.push_back(open_input_part(dir.file("b.npy"), "keys"));
  ASSERT_TRUE(parts[0].npy && parts[1].npy);
  InputSequence input(std::move(parts), RecordLayout::bare_key(KeyType::u64));
  const std::vector<std::byte> all = concatenation({first, second});
  ASSERT_EQ(input.size(), all.size());
  std::vector<std::byte> got(all.size());
  EXPECT_EQ(input.read_at(got.data(), got.size(), 0), all.size());
  EXPECT_EQ(got, all);
}

TEST(InputSequence, AnEmptyStreamLeavesTheFilesSized) {
  test::TempDir dir(test::disk_directory());
  test::Feeder empty({});
  std::vector<InputPart> parts = file_parts(dir, {test::pattern_bytes(40)});
  parts.push_back(open_input_part("/dev/fd/" + std::to_string(empty.input().fd), "keys"));
  EXPECT_TRUE(parts.back().ended);
  InputSequence input(std::move(parts), kU32);
  EXPECT_TRUE(input.regular());
  EXPECT_EQ(input.size(), 40u);
}

TEST(InputSequence, AStreamMakesTheSequenceAStreamReadInOrder) {
  test::TempDir dir(test::disk_directory());
  // A raw file, a pipe (its first bytes read to tell its format), a .npy file (read from its data).
  const std::vector<std::byte> file_data = test::pattern_bytes(4 * 1001, 4);
  const std::vector<std::byte> pipe_data = test::pattern_bytes(4 * 50000, 5);
  test::Feeder pipe(pipe_data);
  std::vector<InputPart> parts = file_parts(dir, {file_data});
  parts.push_back(open_input_part("/dev/fd/" + std::to_string(pipe.input().fd), "keys"));
  EXPECT_EQ(parts.back().head.size(), kNpyMagicBytes);
  const std::vector<std::byte> npy_data = write_npy_u64(dir.file("c.npy"), 3);
  parts.push_back(open_input_part(dir.file("c.npy"), "keys"));
  InputSequence input(std::move(parts), kU32);
  EXPECT_FALSE(input.regular());
  EXPECT_EQ(input.size(), 0u);
  EXPECT_TRUE(input.parts()[0].file.regular);  // still a file: read by position, and checked by its size
  const std::vector<std::byte> all = read_all(input, 4093);  // reads cut across every boundary
  EXPECT_EQ(all, concatenation({file_data, pipe_data, npy_data}));
  EXPECT_EQ(input.bytes_read(), all.size());
  std::vector<std::byte> more(8);
  EXPECT_EQ(input.read(more.data(), more.size()), 0u);  // and stays at its end
}

// A sort of more inputs than the open-file limit holds closes those beyond it until their turn:
// read_at() and a stream's read() open such a part again, and refuse it when it changed since.
TEST(InputSequence, PartsClosedUntilReadAreOpenedAgainForTheirTurn) {
  EXPECT_EQ(inputs_held_open_at_most(1024), 512u);
  EXPECT_EQ(inputs_held_open_at_most(1), 1u);
  test::TempDir dir(test::disk_directory());
  const std::vector<std::vector<std::byte>> data = {test::pattern_bytes(4 * 1001, 1), test::pattern_bytes(4 * 3, 2),
                                                    test::pattern_bytes(4 * 7000, 3)};
  const std::vector<std::byte> all = concatenation(data);
  std::vector<InputPart> parts = file_parts(dir, data);
  const std::size_t open_with_all = test::open_descriptor_count();
  for (InputPart& part : parts) close_until_read(part);
  EXPECT_EQ(test::open_descriptor_count(), open_with_all - 3);
  EXPECT_EQ(parts[2].file.size, data[2].size());  // its name and size stay
  EXPECT_EQ(parts[2].file.path, dir.file("part2"));
  const InputSequence input(std::move(parts), kU32);
  ASSERT_TRUE(input.regular());
  std::vector<std::byte> got(all.size());
  EXPECT_EQ(input.read_at(got.data(), got.size(), 0), all.size());
  EXPECT_EQ(got, all);
  EXPECT_EQ(input.read_at(got.data(), 100, 4 * 1000), 100u);  // across all three parts
  EXPECT_TRUE(std::equal(got.begin(), got.begin() + 100, all.begin() + 4 * 1000));
  EXPECT_EQ(test::open_descriptor_count(), open_with_all - 3);

  // Read as a stream (a pipe among them): the closed files by position, in turn.
  const std::vector<std::byte> pipe_data = test::pattern_bytes(4 * 5000, 4);
  test::Feeder pipe(pipe_data);
  std::vector<InputPart> mixed = file_parts(dir, data);
  mixed.push_back(open_input_part("/dev/fd/" + std::to_string(pipe.input().fd), "keys"));
  for (InputPart& part : mixed) close_until_read(part);
  EXPECT_FALSE(mixed.back().closed.has_value());  // a stream cannot be opened again: it stays open
  InputSequence stream(std::move(mixed), kU32);
  EXPECT_EQ(read_all(stream, 4093), concatenation({data[0], data[1], data[2], pipe_data}));

  // An empty file (read as a stream, its end met when its head was read) is closed too.
  test::write_plain_file(dir.file("empty"), {});
  std::vector<InputPart> with_empty = file_parts(dir, {data[0]});
  with_empty.push_back(open_input_part(dir.file("empty"), "keys"));
  const std::size_t open_with_empty = test::open_descriptor_count();
  for (InputPart& part : with_empty) close_until_read(part);
  EXPECT_EQ(test::open_descriptor_count(), open_with_empty - 2);
  const InputSequence sized(std::move(with_empty), kU32);
  EXPECT_TRUE(sized.regular());
  EXPECT_EQ(sized.size(), data[0].size());

  // Written since it was closed (same size, new contents): refused by name, not read.
  std::vector<InputPart> later = file_parts(dir, data);
  for (InputPart& part : later) close_until_read(part);
  const InputSequence changed(std::move(later), kU32);
  ::usleep(20000);  // a later modification time, on a file system of coarse timestamps too
  test::write_plain_file(dir.file("part1"), test::pattern_bytes(4 * 3, 9));
  try {
    (void)changed.read_at(got.data(), got.size(), 0);
    ADD_FAILURE() << "a part written since it was closed was read";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), dir.file("part1") + ": changed while rmgsort read its inputs (it is another "
                                                         "file now, another size, or written since)");
  }
}

TEST(InputSequence, AStreamThatIsNoWholeNumberOfRecordsIsNamed) {
  test::TempDir dir(test::disk_directory());
  test::Feeder cut(test::pattern_bytes(12 * 100 + 5));
  std::vector<InputPart> parts = file_parts(dir, {test::pattern_bytes(12 * 10)});
  parts.push_back(open_input_part("/dev/fd/" + std::to_string(cut.input().fd), "keys"));
  const std::string name = parts.back().file.display_name();
  InputSequence input(std::move(parts), kRecords12);
  EXPECT_EQ(read_error(input, 4096), name + ": 1205 bytes are not a whole number of records (12 bytes each)");
}

TEST(InputSequence, AShortStreamEndedWhileItsHeadWasReadIsItsHead) {
  // Three bytes: fewer than a .npy magic, so the stream ended; its records are 1-byte keys.
  test::Feeder three({std::byte{7}, std::byte{8}, std::byte{9}});
  std::vector<InputPart> parts;
  parts.push_back(open_input_part("/dev/fd/" + std::to_string(three.input().fd), "keys"));
  EXPECT_TRUE(parts[0].ended);
  InputSequence input(std::move(parts), record_layout_option(KeySpec{KeyType::bytes, 1}, 1, 0));
  EXPECT_FALSE(input.regular());
  EXPECT_EQ(read_all(input, 2), (std::vector<std::byte>{std::byte{7}, std::byte{8}, std::byte{9}}));
}

// A .npy stream whose data is not its header's count, shorter or longer: named with both lengths,
// the longer one as soon as it holds more.
TEST(InputSequence, NpyStreamsHoldExactlyTheirHeadersData) {
  for (const std::size_t items : {99, 101}) {
    std::vector<std::byte> stream = npy_header_for_generate(RecordLayout::bare_key(KeyType::u64), 100);
    const std::vector<std::byte> data = test::pattern_bytes(8 * items);
    stream.insert(stream.end(), data.begin(), data.end());
    test::Feeder pipe(stream);
    std::vector<InputPart> parts;
    parts.push_back(open_input_part("/dev/fd/" + std::to_string(pipe.input().fd), "keys"));
    const std::string name = parts[0].file.display_name();
    InputSequence input(std::move(parts), RecordLayout::bare_key(KeyType::u64));
    const std::string error = read_error(input, 8 * 100 + 8);
    const std::string stated =
        name + ": the .npy header states 100 items of 8 bytes (800 bytes of data), but the stream ";
    if (items < 100) {
      EXPECT_EQ(error, stated + "ends after 792 bytes of data");
    } else {
      EXPECT_EQ(error, stated + "holds more: 808 bytes so far");
    }
  }
}

}  // namespace
}  // namespace rmgsort
