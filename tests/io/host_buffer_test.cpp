#include "io/host_buffer.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "io_test_support.hpp"

namespace rmgsort {
namespace {

bool page_aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 4096 == 0; }

TEST(HostBuffer, ZeroBytesMapsNothing) {
  HostBuffer buffer(0);
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_EQ(buffer.capacity(), 0u);
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_TRUE(buffer.bytes().empty());
}

TEST(HostBuffer, CapacityIsRoundedUpTo4096AndPageAligned) {
  for (std::size_t bytes :
       {std::size_t{1}, std::size_t{4095}, std::size_t{4096}, std::size_t{4097}, std::size_t{3} * 4096 + 1}) {
    HostBuffer buffer(bytes);
    EXPECT_EQ(buffer.size(), bytes);
    EXPECT_EQ(buffer.capacity(), (bytes + 4095) / 4096 * 4096);
    EXPECT_TRUE(page_aligned(buffer.data()));
    // The whole capacity is usable (an O_DIRECT read of the last partial block writes all of it).
    std::memset(buffer.data(), 0xab, buffer.capacity());
  }
}

TEST(HostBuffer, StartsZeroed) {
  HostBuffer buffer(12345);
  for (std::size_t i = 0; i < buffer.capacity(); i += 511) EXPECT_EQ(buffer.data()[i], std::byte{0});
}

TEST(HostBuffer, AsGivesTypedView) {
  HostBuffer buffer(8 * sizeof(std::uint64_t));
  buffer.as<std::uint64_t>()[7] = 42;
  EXPECT_EQ(reinterpret_cast<std::uint64_t*>(buffer.data())[7], 42u);
  const HostBuffer& view = buffer;
  EXPECT_EQ(view.as<std::uint64_t>()[7], 42u);
}

TEST(HostBuffer, MoveTransfersOwnership) {
  HostBuffer a(10000);
  a.data()[9999] = std::byte{7};
  std::byte* memory = a.data();
  HostBuffer b(std::move(a));
  EXPECT_EQ(b.data(), memory);
  EXPECT_EQ(b.size(), 10000u);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from state is specified
  EXPECT_EQ(a.size(), 0u);
  HostBuffer c(5);
  c = std::move(b);
  EXPECT_EQ(c.data(), memory);
  EXPECT_EQ(c.data()[9999], std::byte{7});
}

TEST(HostBuffer, GrowKeepsContents) {
  HostBuffer buffer(0);
  buffer.grow(5000);
  EXPECT_EQ(buffer.size(), 5000u);
  for (std::size_t i = 0; i < 5000; ++i) buffer.data()[i] = std::byte(i * 7);
  buffer.grow(5001);  // within capacity: no move needed
  EXPECT_EQ(buffer.size(), 5001u);
  buffer.grow(std::size_t{64} << 20);  // mremap, may move
  EXPECT_EQ(buffer.size(), std::size_t{64} << 20);
  EXPECT_TRUE(page_aligned(buffer.data()));
  for (std::size_t i = 0; i < 5000; ++i) ASSERT_EQ(buffer.data()[i], std::byte(i * 7)) << i;
  buffer.data()[buffer.size() - 1] = std::byte{1};
}

TEST(HostBuffer, ShrinkKeepsPrefix) {
  HostBuffer buffer(std::size_t{1} << 20);
  buffer.data()[100] = std::byte{9};
  buffer.shrink(4097);
  EXPECT_EQ(buffer.size(), 4097u);
  EXPECT_EQ(buffer.capacity(), 8192u);
  EXPECT_EQ(buffer.data()[100], std::byte{9});
  buffer.shrink(0);
  EXPECT_EQ(buffer.data(), nullptr);
}

TEST(HostBuffer, AllocationFailureNamesTheSize) {
  try {
    HostBuffer buffer(std::size_t{1} << 60);
    FAIL() << "a 1 EiB mapping succeeded";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("cannot allocate 1152921504606846976 bytes of host memory: "),
              std::string::npos)
        << error.what();
  }
}

// The cause travels as an errno, so that the command line can add its hint without matching text.
TEST(HostBuffer, AllocationFailureCarriesEnomem) {
  const auto error_number_of = [](auto&& allocate) {
    try {
      allocate();
    } catch (const Error& error) {
      return error.error_number();
    }
    return 0;
  };
  EXPECT_EQ(error_number_of([] { HostBuffer buffer(std::size_t{1} << 60); }), ENOMEM);
  EXPECT_EQ(error_number_of([] { HostBuffer buffer(SIZE_MAX); }), ENOMEM);  // rounding up overflows
  // Under `ulimit -v`, in a child: growing past the limit is ENOMEM too.
  const int status = test::run_in_child([&] {
    HostBuffer buffer(4096);
    const rlimit limit{std::size_t{4} << 30, std::size_t{4} << 30};
    if (setrlimit(RLIMIT_AS, &limit) != 0) return 10;
    return error_number_of([&] { buffer.grow(std::size_t{8} << 30); }) == ENOMEM ? 0 : 11;
  });
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// Pages of [data, data + bytes) that are backed by memory now (mincore).
std::size_t resident_pages(const std::byte* data, std::size_t bytes) {
  const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> residency((bytes + page - 1) / page);
  EXPECT_EQ(mincore(const_cast<std::byte*>(data), bytes, residency.data()), 0) << std::strerror(errno);
  return std::size_t(std::count_if(residency.begin(), residency.end(), [](unsigned char r) { return r & 1; }));
}

TEST(PopulatePages, BacksEveryPageAndKeepsTheContents) {
  const std::size_t bytes = (std::size_t{64} << 20) + 3 * 4096;  // not a whole number of pieces
  HostBuffer buffer(bytes);
  for (std::size_t i = 0; i < bytes; i += 1'000'003) buffer.data()[i] = std::byte(i % 251 + 1);
  populate_pages(buffer.data(), bytes, 4);
  EXPECT_EQ(resident_pages(buffer.data(), bytes), (bytes + 4095) / 4096);
  for (std::size_t i = 0; i < bytes; ++i) {
    ASSERT_EQ(buffer.data()[i], i % 1'000'003 == 0 ? std::byte(i % 251 + 1) : std::byte{0}) << i;
  }
}

TEST(PopulatePages, UnalignedRangeCoversItsPagesOnly) {
  HostBuffer buffer(std::size_t{1} << 20);
  const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  // [page + 10, 3 * page + 1) touches pages 1, 2 and 3 of the buffer.
  populate_pages(buffer.data() + page + 10, 2 * page - 9, 3);
  EXPECT_GE(resident_pages(buffer.data() + page, 3 * page), 3u);
  populate_pages(buffer.data(), 0, 8);  // nothing to do
}

TEST(PopulatePages, MoreThreadsThanPiecesAndOneThread) {
  HostBuffer small(3 * 4096);
  populate_pages(small.data(), small.size(), 64);
  EXPECT_EQ(resident_pages(small.data(), small.size()), 3u);
  HostBuffer other(std::size_t{8} << 20);
  populate_pages(other.data(), other.size(), 1);
  EXPECT_EQ(resident_pages(other.data(), other.size()), other.size() / 4096);
}

}  // namespace
}  // namespace rmgsort
