#include "io/chunk_reader.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "io_test_support.hpp"

namespace rmgsort {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// Reads INPUT with CHUNK_BYTES chunks, checking every chunk's length, and returns the concatenation.
std::vector<std::byte> read_all_chunks(const InputFile& input, std::size_t chunk_bytes, std::uint64_t expected_size,
                                       const ChunkReaderOptions& options, std::uint64_t* direct_bytes = nullptr) {
  ChunkReader reader(input, chunk_bytes, options);
  std::vector<std::byte> all;
  for (;;) {
    const std::span<const std::byte> chunk = reader.next();
    if (chunk.empty()) break;
    const std::uint64_t left = expected_size - all.size();
    EXPECT_EQ(chunk.size(), std::min<std::uint64_t>(chunk_bytes, left)) << "at byte " << all.size();
    all.insert(all.end(), chunk.begin(), chunk.end());
  }
  EXPECT_TRUE(reader.next().empty());  // stays at the end
  EXPECT_EQ(reader.bytes_returned(), all.size());
  if (direct_bytes != nullptr) *direct_bytes = reader.direct_bytes();
  return all;
}

struct ChunkCase {
  std::uint64_t file_bytes;
  std::size_t chunk_bytes;
};

const ChunkCase kCases[] = {
    {0, kMiB},                          // empty
    {1, 4096},                          // one short chunk
    {10 * kMiB + 123, kMiB},            // aligned chunks, unaligned end
    {10 * kMiB + 123, 3 * kMiB + 5},    // chunks that are not multiples of 4096 (buffered)
    {9 * kMiB, 3 * kMiB},               // chunks that divide the file
    {5 * kMiB + 1, 64 * kMiB},          // a chunk larger than the file
    {40 * kMiB + 7, 36 * kMiB + 4096},  // more requests per chunk than the queue holds
};

TEST(ChunkReader, RegularFileInOrder) {
  for (const std::string& base : {test::disk_directory(), test::memory_directory()}) {
    test::TempDir dir(base);
    const bool direct_possible = test::supports_direct_io(dir.path()) && !test::is_memory_file_system(dir.path());
    for (const ChunkCase& c : kCases) {
      for (unsigned ahead : {0u, 1u, 3u}) {
        SCOPED_TRACE(base + ": file " + std::to_string(c.file_bytes) + ", chunk " + std::to_string(c.chunk_bytes) +
                     ", ahead " + std::to_string(ahead));
        const std::string path = dir.file("in");
        const std::vector<std::byte> expected = test::pattern_bytes(c.file_bytes, c.chunk_bytes);
        test::write_plain_file(path, expected);
        const InputFile input = open_input(path);
        ChunkReaderOptions options;
        options.chunks_ahead = ahead;
        options.direct = DirectIo::prefer;
        std::uint64_t direct_bytes = 0;
        EXPECT_TRUE(read_all_chunks(input, c.chunk_bytes, c.file_bytes, options, &direct_bytes) == expected);
        const bool aligned_chunks = c.chunk_bytes % 4096 == 0;
        EXPECT_EQ(direct_bytes > 0, direct_possible && aligned_chunks && c.file_bytes > 0);
      }
    }
  }
}

TEST(ChunkReader, ReadsAheadWhileTheCallerWorks) {
  // Correctness under a slow consumer: the read-ahead must not overwrite the chunk being held.
  test::TempDir dir(test::disk_directory());
  const std::uint64_t bytes = 24 * kMiB + 17;
  const std::vector<std::byte> expected = test::pattern_bytes(bytes, 5);
  test::write_plain_file(dir.file("in"), expected);
  const InputFile input = open_input(dir.file("in"));
  for (DirectIo mode : {DirectIo::never, DirectIo::prefer}) {
    ChunkReaderOptions options;
    options.direct = mode;
    ChunkReader reader(input, 2 * kMiB, options);
    std::uint64_t at = 0;
    for (std::span<const std::byte> chunk = reader.next(); !chunk.empty(); chunk = reader.next()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      ASSERT_TRUE(std::equal(chunk.begin(), chunk.end(), expected.begin() + static_cast<std::ptrdiff_t>(at)));
      at += chunk.size();
    }
    EXPECT_EQ(at, bytes);
  }
}

TEST(ChunkReader, StopsEarlyWithoutTrouble) {
  test::TempDir dir(test::disk_directory());
  test::write_plain_file(dir.file("in"), test::pattern_bytes(16 * kMiB));
  const InputFile input = open_input(dir.file("in"));
  ChunkReaderOptions options;
  options.chunks_ahead = 3;
  ChunkReader reader(input, kMiB, options);
  EXPECT_EQ(reader.next().size(), kMiB);
  // The destructor waits for the three chunks in flight.
}

TEST(ChunkReader, FileThatShrankIsAnError) {
  test::TempDir dir(test::memory_directory());
  const std::string path = dir.file("in");
  test::write_plain_file(path, test::pattern_bytes(8 * kMiB));
  const InputFile input = open_input(path);
  ASSERT_EQ(truncate(path.c_str(), 5 * kMiB), 0);
  ChunkReader reader(input, 2 * kMiB);
  try {
    while (!reader.next().empty()) {
    }
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), path + ": the file shrank while being read: it ended at byte " +
                                             std::to_string(5 * kMiB) + ", expected " + std::to_string(8 * kMiB));
  }
}

TEST(ChunkReader, KernelFileIsReadToItsEndNotToItsSize) {
  // sysfs says 4096 bytes for an attribute of a few; procfs says 0 for most of its files.
  int checked = 0;
  for (const char* path : {"/sys/kernel/address_bits", "/sys/devices/system/cpu/online", "/proc/version"}) {
    std::ifstream file(path, std::ios::binary);
    if (!file) continue;
    const std::string expected((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const InputFile input = open_input(path);
    std::string got;
    ChunkReader reader(input, 4096);
    for (std::span<const std::byte> chunk = reader.next(); !chunk.empty(); chunk = reader.next())
      got.append(reinterpret_cast<const char*>(chunk.data()), chunk.size());
    EXPECT_EQ(got, expected) << path;
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "neither sysfs nor procfs here";
}

// Writes DATA into a pipe from another thread in uneven pieces; returns the read end as an input.
class PipeFeeder {
 public:
  explicit PipeFeeder(const std::vector<std::byte>& data) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe");
    input_ = InputFile("pipe", fds[0], false, 0);
    writer_ = std::thread([fd = fds[1], &data] {
      std::size_t at = 0;
      std::size_t piece = 1;
      while (at < data.size()) {
        const std::size_t n = std::min(piece, data.size() - at);
        const ssize_t put = write(fd, data.data() + at, n);
        if (put <= 0) break;
        at += static_cast<std::size_t>(put);
        piece = piece * 3 % 200003 + 1;  // 1, 4, 13, ... uneven sizes
      }
      close(fd);
    });
  }
  ~PipeFeeder() { writer_.join(); }
  PipeFeeder(const PipeFeeder&) = delete;
  PipeFeeder& operator=(const PipeFeeder&) = delete;
  [[nodiscard]] const InputFile& input() const { return input_; }

 private:
  InputFile input_;
  std::thread writer_;
};

TEST(ChunkReader, PipeInOrder) {
  for (const ChunkCase& c : kCases) {
    SCOPED_TRACE("pipe " + std::to_string(c.file_bytes) + ", chunk " + std::to_string(c.chunk_bytes));
    const std::vector<std::byte> expected = test::pattern_bytes(c.file_bytes, 3);
    PipeFeeder feeder(expected);
    EXPECT_TRUE(read_all_chunks(feeder.input(), c.chunk_bytes, c.file_bytes, {}) == expected);
  }
}

}  // namespace
}  // namespace rmgsort
