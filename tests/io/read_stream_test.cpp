#include "io/read_stream.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "io_test_support.hpp"

namespace rmgsort {
namespace {

using test::Feeder;

std::string over_limit_message(std::size_t bytes, std::uint64_t limit) {
  Feeder feeder(test::pattern_bytes(bytes));
  std::uint64_t read = 0;
  try {
    (void)read_stream(feeder.input(), limit, read);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(ReadStream, UnderTheLimit) {
  Feeder feeder(test::pattern_bytes(1000003));
  std::uint64_t read = 0;
  const HostBuffer buffer = read_stream(feeder.input(), 1000004, read);
  EXPECT_EQ(read, 1000003u);
  EXPECT_EQ(buffer.size(), 1000003u);
  EXPECT_TRUE(std::equal(feeder.data().begin(), feeder.data().end(), buffer.data()));
}

TEST(ReadStream, ExactlyTheLimit) {
  Feeder feeder(test::pattern_bytes(1000003));
  std::uint64_t read = 0;
  const HostBuffer buffer = read_stream(feeder.input(), 1000003, read);
  EXPECT_EQ(read, 1000003u);
  EXPECT_TRUE(std::equal(feeder.data().begin(), feeder.data().end(), buffer.data()));
}

TEST(ReadStream, OverTheLimitNamesInputAndLimit) {
  EXPECT_EQ(over_limit_message(1000003, 1000002), "stdin-like pipe: input is larger than the limit of 1000002 bytes");
  EXPECT_EQ(over_limit_message(1, 0), "stdin-like pipe: input is larger than the limit of 0 bytes");
}

TEST(ReadStream, EmptyInput) {
  Feeder feeder({});
  std::uint64_t read = 7;
  const HostBuffer buffer = read_stream(feeder.input(), 0, read);
  EXPECT_EQ(read, 0u);
  EXPECT_EQ(buffer.size(), 0u);
}

TEST(ReadStream, GrowsPastTheFirstBuffer) {
  // More than the 64 MiB first mapping: the buffer is remapped while reading.
  Feeder feeder(test::pattern_bytes((std::size_t{150} << 20) + 13));
  std::uint64_t read = 0;
  const HostBuffer buffer = read_stream(feeder.input(), std::uint64_t{1} << 40, read);
  EXPECT_EQ(read, feeder.data().size());
  EXPECT_TRUE(std::equal(feeder.data().begin(), feeder.data().end(), buffer.data()));
}

TEST(ReadStream, ReadsARegularFileToo) {
  test::TempDir dir(test::memory_directory());
  const std::vector<std::byte> data = test::pattern_bytes(77777);
  test::write_plain_file(dir.file("in"), data);
  const InputFile input = open_input(dir.file("in"));
  std::uint64_t read = 0;
  const HostBuffer buffer = read_stream(input, 100000, read);
  EXPECT_EQ(read, data.size());
  EXPECT_TRUE(std::equal(data.begin(), data.end(), buffer.data()));
}

TEST(ReadStream, ReadsAKernelFileOfSizeZeroToItsEnd) {
  std::ifstream file("/proc/version", std::ios::binary);
  if (!file) GTEST_SKIP() << "no /proc/version";
  const std::string expected((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(expected.empty());
  const InputFile input = open_input("/proc/version");
  std::uint64_t read = 0;
  const HostBuffer buffer = read_stream(input, 1 << 20, read);
  ASSERT_EQ(read, expected.size());
  EXPECT_EQ(std::memcmp(buffer.data(), expected.data(), expected.size()), 0);
}

}  // namespace
}  // namespace rmgsort
