// The readers of several inputs read as one (io/sequence_reading.hpp): every byte of a regular
// sequence lands where it lies in the concatenation, each block reported once at its offset there;
// a stream's prefix stops one byte past its limit and read() goes on from there; whole records come
// out in order whatever the parts' and chunks' sizes.
#include "io/sequence_reading.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "io_test_support.hpp"

namespace rmgsort {
namespace {

const RecordLayout kRecords12 = record_layout_option(KeySpec{KeyType::u64, 8}, 12, 3);

std::vector<std::byte> concatenation(const std::vector<std::vector<std::byte>>& parts) {
  std::vector<std::byte> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

std::vector<InputPart> file_parts(const test::TempDir& dir, const std::vector<std::vector<std::byte>>& parts) {
  std::vector<InputPart> opened;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string path = dir.file("part" + std::to_string(i));
    test::write_plain_file(path, parts[i]);
    opened.push_back(open_input_part(path, "keys"));
  }
  return opened;
}

// Parts of 12-byte records: sizes that are and are not multiples of 4096 and of the block size, so
// parts start at aligned and unaligned places of the destination.
std::vector<std::vector<std::byte>> record_parts() {
  return {test::pattern_bytes(12 * 1024, 1), test::pattern_bytes(12 * 7, 2), test::pattern_bytes(12 * 30001, 3),
          test::pattern_bytes(12, 4)};
}

TEST(ReadSequenceFile, EveryByteLandsAtItsPlaceInTheConcatenation) {
  for (const DirectIo direct : {DirectIo::never, DirectIo::prefer}) {
    test::TempDir dir(test::disk_directory());
    const std::vector<std::vector<std::byte>> data = record_parts();
    const InputSequence input(file_parts(dir, data), kRecords12);
    const std::vector<std::byte> all = concatenation(data);
    HostBuffer dst(all.size());
    std::vector<int> seen(all.size(), 0);
    std::mutex mutex;
    ReadOptions options;
    options.direct = direct;
    options.block_bytes = 64 << 10;
    const auto on_block = [&](std::uint64_t offset, const std::byte* block, std::size_t length) {
      EXPECT_EQ(block, dst.data() + offset);
      std::lock_guard lock(mutex);
      for (std::size_t i = 0; i < length; ++i) ++seen[offset + i];
    };
    (void)read_sequence_file(input, dst.data(), options, on_block);
    EXPECT_TRUE(std::equal(all.begin(), all.end(), dst.data()));
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), std::ptrdiff_t(all.size()));  // once each
  }
}

TEST(ReadSequencePrefix, StopsPastTheLimitAndReadGoesOn) {
  test::TempDir dir(test::disk_directory());
  const std::vector<std::byte> first = test::pattern_bytes(12 * 1000, 5);
  const std::vector<std::byte> piped = test::pattern_bytes(12 * 5000, 6);
  test::Feeder pipe(piped);
  std::vector<InputPart> parts = file_parts(dir, {first});
  parts.push_back(open_input_part("/dev/fd/" + std::to_string(pipe.input().fd), "keys"));
  InputSequence input(std::move(parts), kRecords12);
  ASSERT_FALSE(input.regular());
  const std::vector<std::byte> all = concatenation({first, piped});
  std::uint64_t bytes = 0;
  bool complete = true;
  const HostBuffer prefix = read_sequence_prefix(input, 20000, bytes, complete);  // inside the pipe, inside a record
  EXPECT_FALSE(complete);
  EXPECT_EQ(bytes, 20001u);
  EXPECT_TRUE(std::equal(prefix.data(), prefix.data() + bytes, all.begin()));
  std::vector<std::byte> rest(all.size());
  EXPECT_EQ(input.read(rest.data(), rest.size()), all.size() - bytes);
  EXPECT_TRUE(std::equal(all.begin() + std::ptrdiff_t(bytes), all.end(), rest.begin()));
}

TEST(ReadSequencePrefix, AShortStreamIsComplete) {
  test::Feeder pipe(test::pattern_bytes(12 * 10, 7));
  std::vector<InputPart> parts;
  parts.push_back(open_input_part("/dev/fd/" + std::to_string(pipe.input().fd), "keys"));
  InputSequence input(std::move(parts), kRecords12);
  std::uint64_t bytes = 0;
  bool complete = false;
  const HostBuffer all = read_sequence_prefix(input, 120, bytes, complete);  // exactly the limit
  EXPECT_TRUE(complete);
  EXPECT_EQ(bytes, 120u);
  EXPECT_TRUE(std::equal(all.data(), all.data() + 120, pipe.data().begin()));
}

// Every chunk of SequenceRecords: whole records, at most CHUNK_BYTES; together, EXPECTED.
void expect_records(SequenceRecords& records, std::size_t chunk_bytes, const std::vector<std::byte>& expected) {
  std::vector<std::byte> joined;
  for (std::span<const std::byte> chunk = records.next(); !chunk.empty(); chunk = records.next()) {
    EXPECT_EQ(chunk.size() % 12, 0u);
    EXPECT_LE(chunk.size(), chunk_bytes);
    joined.insert(joined.end(), chunk.begin(), chunk.end());
  }
  EXPECT_EQ(joined.size(), expected.size());
  EXPECT_TRUE(joined == expected);
  EXPECT_TRUE(records.next().empty());
}

TEST(SequenceRecords, RegularPartsInWholeRecords) {
  for (const std::size_t chunk_bytes : {12, 4096, 12 * 4096, 1 << 20}) {
    test::TempDir dir(test::disk_directory());
    const std::vector<std::vector<std::byte>> data = record_parts();
    InputSequence input(file_parts(dir, data), kRecords12);
    SequenceRecords records(input, kRecords12, chunk_bytes);
    expect_records(records, chunk_bytes, concatenation(data));
  }
}

TEST(SequenceRecords, AStreamAfterAPrefixThatEndsInsideARecord) {
  for (const std::size_t chunk_bytes : {12, 4096, 1 << 20}) {
    test::TempDir dir(test::disk_directory());
    const std::vector<std::byte> first = test::pattern_bytes(12 * 3000, 8);
    const std::vector<std::byte> piped = test::pattern_bytes(12 * 7001, 9);
    test::Feeder pipe(piped);
    std::vector<InputPart> parts = file_parts(dir, {first});
    parts.push_back(open_input_part("/dev/fd/" + std::to_string(pipe.input().fd), "keys"));
    InputSequence input(std::move(parts), kRecords12);
    std::vector<std::byte> prefix(12 * 2000 + 5);
    ASSERT_EQ(input.read(prefix.data(), prefix.size()), prefix.size());
    SequenceRecords records(input, kRecords12, chunk_bytes, prefix);
    expect_records(records, chunk_bytes, concatenation({first, piped}));
  }
}

TEST(SequenceRecords, EmptyInputsHaveNoRecords) {
  test::Feeder empty({});
  std::vector<InputPart> parts;
  parts.push_back(open_input_part("/dev/fd/" + std::to_string(empty.input().fd), "keys"));
  InputSequence input(std::move(parts), kRecords12);
  EXPECT_TRUE(input.regular());
  SequenceRecords records(input, kRecords12, 4096);
  EXPECT_TRUE(records.next().empty());
}

// Parts closed until read (a sort of more inputs than the open-file limit holds): every reader
// opens each again for its turn and reads the same bytes, holding no descriptor of them after.
TEST(ReadSequenceFile, PartsClosedUntilReadAreReadTheSame) {
  test::TempDir dir(test::disk_directory());
  const std::vector<std::vector<std::byte>> data = record_parts();
  const auto closed_parts = [&] {
    std::vector<InputPart> parts = file_parts(dir, data);
    for (std::size_t i = 1; i < parts.size(); ++i) close_until_read(parts[i]);
    EXPECT_GE(parts[0].file.fd, 0);
    EXPECT_EQ(parts[1].file.fd, -1);
    return parts;
  };
  const InputSequence input(closed_parts(), kRecords12);
  const std::vector<std::byte> all = concatenation(data);
  HostBuffer dst(all.size());
  const std::size_t open_before = test::open_descriptor_count();
  (void)read_sequence_file(input, dst.data(), ReadOptions{});
  EXPECT_TRUE(std::equal(all.begin(), all.end(), dst.data()));
  for (const std::size_t chunk_bytes : {std::size_t{12}, std::size_t{12 * 4096}}) {
    InputSequence records_input(closed_parts(), kRecords12);
    SequenceRecords records(records_input, kRecords12, chunk_bytes);
    expect_records(records, chunk_bytes, all);
    // Read to its end, it holds no part's descriptor (the first part's is the sequence's own).
    EXPECT_EQ(test::open_descriptor_count(), open_before + 1) << "a part opened again is still open";
  }
  EXPECT_EQ(test::open_descriptor_count(), open_before) << "a part opened again is still open";
}

}  // namespace
}  // namespace rmgsort
