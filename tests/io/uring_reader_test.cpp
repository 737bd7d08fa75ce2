#include "io/uring_reader.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "io/host_buffer.hpp"
#include "io/detail/page_cache.hpp"
#include "io_test_support.hpp"

namespace rmgsort {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// Sizes around every alignment boundary read_file has: 4096 (O_DIRECT), the block and the thread split.
const std::uint64_t kSizes[] = {
    0, 1, 4095, 4096, 4097, 12345, 4 * kMiB - 1, 4 * kMiB, 3 * 4 * kMiB + 123, 17 * kMiB + 4096 * 3 + 5};

enum class Place { disk, memory };

std::string directory_for(Place place) {
  return place == Place::disk ? test::disk_directory() : test::memory_directory();
}

struct ReadCase {
  Place place;
  DirectIo mode;
  unsigned threads;
};

class ReadFileTest : public ::testing::TestWithParam<ReadCase> {};

TEST_P(ReadFileTest, RoundTripsEverySize) {
  const ReadCase c = GetParam();
  test::TempDir dir(directory_for(c.place));
  const bool direct_possible = test::supports_direct_io(dir.path()) && !test::is_memory_file_system(dir.path());
  for (std::uint64_t bytes : kSizes) {
    SCOPED_TRACE("bytes " + std::to_string(bytes));
    const std::string path = dir.file("in-" + std::to_string(bytes));
    const std::vector<std::byte> expected = test::pattern_bytes(bytes, bytes + 1);
    test::write_plain_file(path, expected);
    if (c.mode == DirectIo::automatic) test::evict_from_page_cache(path);

    const InputFile input = open_input(path);
    ASSERT_EQ(input.size, bytes);
    HostBuffer buffer(bytes);
    ReadOptions options;
    options.direct = c.mode;
    options.threads = c.threads;
    options.block_bytes = 1 * kMiB;  // many blocks per thread even for the small files
    options.queue_depth = 4;
    const ReadStats stats = read_file(input, buffer.data(), bytes, options);
    ASSERT_TRUE(std::equal(expected.begin(), expected.end(), buffer.data()));
    EXPECT_EQ(stats.direct_bytes + stats.buffered_bytes, bytes);

    // O_DIRECT is used exactly where it is possible and asked for (automatic: see its own tests).
    if (c.mode != DirectIo::automatic) {
      EXPECT_EQ(stats.direct, bytes > 0 && c.mode == DirectIo::prefer && direct_possible);
    }
    if (c.place == Place::memory) {
      EXPECT_FALSE(stats.direct);  // tmpfs: buffered fallback
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    PlacesModesThreads, ReadFileTest,
    ::testing::Values(ReadCase{Place::disk, DirectIo::prefer, 1}, ReadCase{Place::disk, DirectIo::prefer, 3},
                      ReadCase{Place::disk, DirectIo::never, 2}, ReadCase{Place::disk, DirectIo::automatic, 2},
                      ReadCase{Place::memory, DirectIo::prefer, 1}, ReadCase{Place::memory, DirectIo::prefer, 3},
                      ReadCase{Place::memory, DirectIo::automatic, 0}),
    [](const ::testing::TestParamInfo<ReadCase>& info) {
      return std::string(info.param.place == Place::disk ? "disk_" : "tmpfs_") + to_string(info.param.mode) + "_" +
             std::to_string(info.param.threads) + "threads";
    });

TEST(ReadFile, DirectOnDiskWhereSupported) {
  test::TempDir dir(test::disk_directory());
  if (!test::supports_direct_io(dir.path())) GTEST_SKIP() << dir.path() << " does not support O_DIRECT";
  const std::uint64_t bytes = 8 * kMiB + 4097;
  test::write_plain_file(dir.file("in"), test::pattern_bytes(bytes));
  const InputFile input = open_input(dir.file("in"));
  HostBuffer buffer(bytes);
  ReadOptions options;
  options.direct = DirectIo::prefer;
  const ReadStats stats = read_file(input, buffer.data(), bytes, options);
  EXPECT_TRUE(stats.direct);
  EXPECT_EQ(stats.direct_bytes, bytes);  // the partial last block too, read rounded up
}

TEST(ReadFile, AutomaticReadsCachedDataThroughThePageCache) {
  test::TempDir dir(test::disk_directory());
  const std::uint64_t bytes = 8 * kMiB;
  const std::string path = dir.file("in");
  test::write_plain_file(path, test::pattern_bytes(bytes));
  (void)test::read_plain_file(path);  // cached now
  const InputFile input = open_input(path);
  HostBuffer buffer(bytes);
  const ReadStats stats = read_file(input, buffer.data(), bytes);  // automatic by default
  EXPECT_EQ(stats.buffered_bytes, bytes);
  EXPECT_FALSE(stats.direct);
}

TEST(ReadFile, AutomaticReadsUncachedDataDirect) {
  test::TempDir dir(test::disk_directory());
  if (!test::supports_direct_io(dir.path())) GTEST_SKIP() << dir.path() << " does not support O_DIRECT";
  const std::uint64_t bytes = 8 * kMiB;
  const std::string path = dir.file("in");
  const std::vector<std::byte> expected = test::pattern_bytes(bytes);
  test::write_plain_file(path, expected);
  test::evict_from_page_cache(path);
  const InputFile input = open_input(path);
  if (mostly_in_page_cache(input.fd, 0, bytes)) GTEST_SKIP() << "the kernel kept " << path << " cached";
  HostBuffer buffer(bytes);
  const ReadStats stats = read_file(input, buffer.data(), bytes);
  EXPECT_TRUE(stats.direct);
  EXPECT_GT(stats.direct_bytes, bytes / 2);
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), buffer.data()));
}

TEST(ReadFile, UnalignedDestinationReadsBuffered) {
  test::TempDir dir(test::disk_directory());
  const std::uint64_t bytes = 3 * kMiB + 5;
  const std::vector<std::byte> expected = test::pattern_bytes(bytes);
  test::write_plain_file(dir.file("in"), expected);
  const InputFile input = open_input(dir.file("in"));
  HostBuffer buffer(bytes + 4096);
  ReadOptions options;
  options.direct = DirectIo::prefer;
  const ReadStats stats = read_file(input, buffer.data() + 8, bytes, options);
  EXPECT_FALSE(stats.direct);
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), buffer.data() + 8));
}

TEST(ReadFile, PrefixOfALargerFile) {
  for (const std::string& base : {test::disk_directory(), test::memory_directory()}) {
    test::TempDir dir(base);
    const std::vector<std::byte> whole = test::pattern_bytes(5 * kMiB + 999);
    test::write_plain_file(dir.file("in"), whole);
    const InputFile input = open_input(dir.file("in"));
    const std::uint64_t bytes = 2 * kMiB + 3;  // the direct read of its last block goes past it
    HostBuffer buffer(bytes);
    ReadOptions options;
    options.direct = DirectIo::prefer;
    (void)read_file(input, buffer.data(), bytes, options);
    EXPECT_TRUE(std::equal(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(bytes), buffer.data()));
  }
}

TEST(ReadFile, CallbackCoversEveryByteExactlyOnce) {
  for (const std::string& base : {test::disk_directory(), test::memory_directory()}) {
    test::TempDir dir(base);
    const std::uint64_t bytes = 13 * kMiB + 4097;
    test::write_plain_file(dir.file("in"), test::pattern_bytes(bytes));
    const InputFile input = open_input(dir.file("in"));
    HostBuffer buffer(bytes);
    ReadOptions options;
    options.threads = 3;
    options.block_bytes = 1 * kMiB;
    options.direct = DirectIo::prefer;

    std::mutex mutex;
    std::vector<std::tuple<std::uint64_t, const std::byte*, std::size_t>> calls;
    std::vector<std::byte> seen_copy(bytes);
    (void)read_file(input, buffer.data(), bytes, options,
                    [&](std::uint64_t offset, const std::byte* data, std::size_t length) {
                      // The block is complete when the callback runs: copy it as a checksum would read it.
                      std::memcpy(seen_copy.data() + offset, data, length);
                      const std::lock_guard lock(mutex);
                      calls.emplace_back(offset, data, length);
                    });
    std::sort(calls.begin(), calls.end());
    std::uint64_t next = 0;
    for (const auto& [offset, data, length] : calls) {
      EXPECT_EQ(offset, next);
      EXPECT_EQ(data, buffer.data() + offset);
      EXPECT_EQ(length, std::min<std::uint64_t>(kMiB, bytes - offset));
      next = offset + length;
    }
    EXPECT_EQ(next, bytes);
    EXPECT_EQ(calls.size(), (bytes + kMiB - 1) / kMiB);
    EXPECT_TRUE(std::equal(seen_copy.begin(), seen_copy.end(), buffer.data()));
  }
}

// What a histogram counted while reading relies on: each call's block has fully landed, starts on a
// key and holds whole keys, for both key widths, any number of keys and block sizes that are not
// powers of two; and the calls come from every reading thread.
TEST(ReadFile, CallbackBlocksHaveLandedAndHoldWholeKeys) {
  test::TempDir dir(test::memory_directory());
  for (const std::size_t width : {std::size_t{4}, std::size_t{8}}) {
    for (const std::uint64_t keys : {std::uint64_t{1}, std::uint64_t{1027}, std::uint64_t{3 * kMiB / 8 + 5}}) {
      for (const std::size_t block_bytes : {std::size_t{4096}, std::size_t{3 * 4096}, std::size_t{kMiB}}) {
        const std::uint64_t bytes = keys * width;
        SCOPED_TRACE("width " + std::to_string(width) + ", " + std::to_string(keys) + " keys, blocks of " +
                     std::to_string(block_bytes));
        const std::string path = dir.file("keys");
        const std::vector<std::byte> expected = test::pattern_bytes(bytes, keys + width);
        test::write_plain_file(path, expected);
        const InputFile input = open_input(path);
        HostBuffer buffer(bytes);
        ReadOptions options;
        options.threads = 3;
        options.block_bytes = block_bytes;
        options.queue_depth = 2;

        std::mutex mutex;
        std::vector<std::thread::id> threads;
        std::uint64_t whole_keys = 0, calls = 0, misplaced = 0, unlanded = 0, split_keys = 0;
        (void)read_file(input, buffer.data(), bytes, options,
                        [&](std::uint64_t offset, const std::byte* data, std::size_t length) {
                          const bool landed = std::memcmp(data, expected.data() + offset, length) == 0;
                          const std::lock_guard lock(mutex);
                          ++calls;
                          unlanded += !landed;
                          misplaced += data != buffer.data() + offset || offset % block_bytes != 0;
                          split_keys += offset % width != 0 || length % width != 0;
                          whole_keys += length / width;
                          if (std::find(threads.begin(), threads.end(), std::this_thread::get_id()) == threads.end())
                            threads.push_back(std::this_thread::get_id());
                        });
        EXPECT_EQ(calls, (bytes + block_bytes - 1) / block_bytes);
        EXPECT_EQ(unlanded, 0u);
        EXPECT_EQ(misplaced, 0u);
        EXPECT_EQ(split_keys, 0u);
        EXPECT_EQ(whole_keys, keys);
        EXPECT_EQ(threads.size(), read_threads_for(bytes, options));
      }
    }
  }
}

TEST(ReadFile, NoCallbackForNothing) {
  test::TempDir dir(test::memory_directory());
  test::write_plain_file(dir.file("empty"), {});
  const InputFile input = open_input(dir.file("empty"));
  bool called = false;
  (void)read_file(input, nullptr, 0, {}, [&](std::uint64_t, const std::byte*, std::size_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(ReadFile, CallbackExceptionPropagates) {
  test::TempDir dir(test::memory_directory());
  test::write_plain_file(dir.file("in"), test::pattern_bytes(8 * kMiB));
  const InputFile input = open_input(dir.file("in"));
  HostBuffer buffer(8 * kMiB);
  ReadOptions options;
  options.threads = 2;
  options.block_bytes = kMiB;
  EXPECT_THROW((void)read_file(input, buffer.data(), 8 * kMiB, options,
                               [](std::uint64_t offset, const std::byte*, std::size_t) {
                                 if (offset == 5 * kMiB) throw Error("checksum said no");
                               }),
               Error);
}

TEST(ReadFile, FileThatShrankIsAnErrorNamingIt) {
  for (const std::string& base : {test::disk_directory(), test::memory_directory()}) {
    for (DirectIo mode : {DirectIo::prefer, DirectIo::never}) {
      test::TempDir dir(base);
      const std::string path = dir.file("shrinking");
      test::write_plain_file(path, test::pattern_bytes(6 * kMiB));
      const InputFile input = open_input(path);
      ASSERT_EQ(truncate(path.c_str(), 3 * kMiB + 100), 0);
      HostBuffer buffer(input.size);
      ReadOptions options;
      options.direct = mode;
      options.block_bytes = kMiB;
      try {
        (void)read_file(input, buffer.data(), input.size, options);
        FAIL() << "no error for a file that shrank";
      } catch (const Error& error) {
        const std::string message = error.what();
        // Where the data ended, not where the first read to fail began (a block past it).
        EXPECT_EQ(message, path + ": the file shrank while being read: it ended at byte " +
                               std::to_string(3 * kMiB + 100) + ", expected " + std::to_string(6 * kMiB));
      }
    }
  }
}

TEST(ReadFile, ThreadCountFollowsTheSize) {
  ReadOptions options;
  options.threads = 8;
  EXPECT_EQ(read_threads_for(0, options), 1u);
  EXPECT_EQ(read_threads_for(10 * kMiB, options), 1u);
  EXPECT_EQ(read_threads_for(std::uint64_t{1} << 40, options), 8u);
  options.threads = 0;
  EXPECT_LE(read_threads_for(std::uint64_t{1} << 40, options), io_tuning::kMaxReadThreads);
  EXPECT_GE(read_threads_for(std::uint64_t{1} << 40, options), 1u);
}

}  // namespace
}  // namespace rmgsort
