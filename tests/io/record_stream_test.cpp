// RecordStream: whole records of any size from files and streams, after a prefix or not; a record
// cut by a read or by the prefix's end is carried whole into a chunk; an input that ends inside a
// record is an Error naming it.
#include "io/record_stream.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "io_test_support.hpp"

namespace rmgsort {
namespace {

// Every chunk of STREAM, checked to be whole records of at most CHUNK_BYTES, joined.
std::vector<std::byte> read_all(RecordStream& stream, std::size_t record_bytes, std::size_t chunk_bytes) {
  std::vector<std::byte> all;
  for (std::span<const std::byte> chunk = stream.next(); !chunk.empty(); chunk = stream.next()) {
    EXPECT_EQ(chunk.size() % record_bytes, 0u) << "at byte " << all.size();
    EXPECT_LE(chunk.size(), chunk_bytes);
    all.insert(all.end(), chunk.begin(), chunk.end());
  }
  EXPECT_TRUE(stream.next().empty());  // stays at the end
  EXPECT_EQ(stream.bytes_returned(), all.size());
  return all;
}

RecordLayout records_of(std::size_t bytes) { return RecordLayout::of(KeySpec{KeyType::u32, 4}, bytes, 0); }

// The message of the Error that reading all of STREAM ends with ("" when none).
std::string cut_message(RecordStream& stream) {
  try {
    while (!stream.next().empty()) {
    }
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(RecordStream, PrefixThenStream) {
  // 12-byte records; the prefix ends inside a record, and chunks of 4096 are no whole number of
  // records either, so every read cuts one.
  const std::vector<std::byte> data = test::pattern_bytes(12 * 100001);
  const std::size_t prefix_bytes = 12 * 3000 + 5;
  test::Feeder feeder({data.begin() + std::ptrdiff_t(prefix_bytes), data.end()});
  const std::vector<std::byte> prefix(data.begin(), data.begin() + std::ptrdiff_t(prefix_bytes));
  RecordStream stream(feeder.input(), records_of(12), 4096, prefix);
  EXPECT_EQ(read_all(stream, 12, 4096), data);
}

TEST(RecordStream, RecordsCutAcrossReads) {
  // Regular files and pipes, record sizes that divide the chunk and sizes that do not.
  test::TempDir dir(test::disk_directory());
  for (const std::size_t record : {std::size_t{4}, std::size_t{8}, std::size_t{12}, std::size_t{100}}) {
    for (const std::size_t chunk : {std::size_t{4096}, std::size_t{3 * 4096 + 300}}) {
      SCOPED_TRACE("record " + std::to_string(record) + ", chunk " + std::to_string(chunk));
      const std::vector<std::byte> data = test::pattern_bytes(record * 20011);
      const std::string path = dir.file("records");
      test::write_plain_file(path, data);
      const InputFile file = open_input(path);
      RecordStream from_file(file, records_of(record), chunk);
      EXPECT_EQ(read_all(from_file, record, chunk), data);
      test::Feeder feeder(data);
      RecordStream from_pipe(feeder.input(), records_of(record), chunk);
      EXPECT_EQ(read_all(from_pipe, record, chunk), data);
    }
  }
}

TEST(RecordStream, AStreamEndingInsideARecordIsNamed) {
  const std::vector<std::byte> data = test::pattern_bytes(8 * 5000 + 3);
  {
    test::Feeder feeder(data);
    RecordStream stream(feeder.input(), RecordLayout::bare_key(KeyType::u64), 4096);
    EXPECT_EQ(cut_message(stream), "stdin-like pipe: 40003 bytes are not a whole number of u64 keys (8 bytes each)");
  }
  {
    // After a prefix, counted from the last whole key.
    test::Feeder feeder({data.begin() + 100, data.end()});
    const std::vector<std::byte> prefix(data.begin(), data.begin() + 100);
    RecordStream stream(feeder.input(), RecordLayout::bare_key(KeyType::u64), 4096, prefix,
                        CutRecordMessage::bytes_after_last);
    EXPECT_EQ(cut_message(stream),
              "stdin-like pipe: the input ends inside a key (3 bytes after the last whole 8-byte key)");
  }
  {
    // Less than one record in all, and records that are not bare keys.
    test::Feeder feeder(test::pattern_bytes(7));
    RecordStream stream(feeder.input(), records_of(12), 4096, {}, CutRecordMessage::bytes_after_last);
    EXPECT_EQ(cut_message(stream),
              "stdin-like pipe: the input ends inside a record (7 bytes after the last whole 12-byte record)");
  }
}

TEST(RecordStream, EmptyInputs) {
  test::Feeder feeder({});
  RecordStream stream(feeder.input(), records_of(12), 4096);
  EXPECT_TRUE(read_all(stream, 12, 4096).empty());
  test::TempDir dir(test::disk_directory());
  test::write_plain_file(dir.file("empty"), {});
  const InputFile file = open_input(dir.file("empty"));
  RecordStream from_file(file, records_of(8), 4096);
  EXPECT_TRUE(read_all(from_file, 8, 4096).empty());
  // An empty prefix of an empty stream, and a prefix that is all there is.
  test::Feeder nothing({});
  const std::vector<std::byte> prefix = test::pattern_bytes(24);
  RecordStream prefixed(nothing.input(), records_of(12), 4096, prefix);
  EXPECT_EQ(read_all(prefixed, 12, 4096), prefix);
}

}  // namespace
}  // namespace rmgsort
