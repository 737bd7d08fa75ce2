// A slice read window by window gives the same records, in the same windows, whether it is held in
// memory or read through its callback; a window is at most 1 Mi records and at most 64 MiB.
#include "dist/slice_reader.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace rmgsort::dist {
namespace {

std::vector<std::byte> numbered(std::uint64_t count, std::size_t record_size) {
  std::vector<std::byte> records(count * record_size);
  for (std::uint64_t i = 0; i < count; ++i) std::memcpy(records.data() + i * record_size, &i, std::min<std::size_t>(8, record_size));
  return records;
}

TEST(SliceReaderTest, WindowsFromMemoryAndFromTheCallbackAgree) {
  for (const std::size_t record_size : {std::size_t{8}, std::size_t{100}, std::size_t{1000}}) {
    const std::uint64_t count = 2'500'000 / (record_size / 8);
    const std::vector<std::byte> records = numbered(count, record_size);
    SliceReader memory(records.data(), count, record_size);
    int reads = 0;
    SliceReader file(
        [&](std::uint64_t first, std::uint64_t n, std::byte* dst) {
          ++reads;
          std::memcpy(dst, records.data() + first * record_size, n * record_size);
        },
        count, record_size);
    EXPECT_EQ(memory.window_records(), file.window_records());
    EXPECT_LE(memory.window_records(), std::uint64_t{1} << 20);
    EXPECT_LE(SliceReader::window_bytes(record_size), std::uint64_t{64} << 20);
    std::uint64_t seen = 0;
    file.for_each_window([&](const std::byte* window, std::uint64_t first, std::uint64_t n) {
      EXPECT_EQ(first, seen);
      EXPECT_EQ(std::memcmp(window, memory.records(first, n), n * record_size), 0);
      seen += n;
    });
    EXPECT_EQ(seen, count);
    EXPECT_EQ(std::uint64_t(reads), (count + file.window_records() - 1) / file.window_records());
  }
}

TEST(SliceReaderTest, AnEmptySliceHasNoWindow) {
  SliceReader empty([](std::uint64_t, std::uint64_t, std::byte*) { FAIL() << "read an empty slice"; }, 0, 13);
  int windows = 0;
  empty.for_each_window([&](const std::byte*, std::uint64_t, std::uint64_t) { ++windows; });
  EXPECT_EQ(windows, 0);
}

}  // namespace
}  // namespace rmgsort::dist
