// The output's own pages (io/output_pages.hpp): only an empty regular file on a memory file system
// takes them; the input's parts (raw, .npy, closed until read, larger than a piece, from a disk or
// from tmpfs) are read in order after any offset into the mapping, and cut back by finish(), which
// leaves the descriptor after them; a part that shrank names the input, a full file system the output.
#include "io/output_pages.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io_test_support.hpp"

namespace rmgsort {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
const RecordLayout kU32 = RecordLayout::bare_key(KeyType::u32);

bool memory_directory_usable() { return test::is_memory_file_system(test::memory_directory()); }

int create_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  return fd;
}

// Files of PARTS in DIR, opened in order as one sequence of u32 keys; those named in NPY_PARTS are
// .npy files (a header before their data).
InputSequence file_sequence(const test::TempDir& dir, const std::vector<std::vector<std::byte>>& parts,
                            bool close_parts = false, const std::vector<std::size_t>& npy_parts = {}) {
  std::vector<InputPart> opened;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string path = dir.file("part" + std::to_string(i));
    std::vector<std::byte> file;
    if (std::find(npy_parts.begin(), npy_parts.end(), i) != npy_parts.end())
      file = npy_header_for_generate(kU32, parts[i].size() / 4);
    file.insert(file.end(), parts[i].begin(), parts[i].end());
    test::write_plain_file(path, file);
    opened.push_back(open_input_part(path, "keys"));
    if (close_parts) close_until_read(opened.back());
  }
  return InputSequence(std::move(opened), kU32);
}

std::vector<std::byte> concatenation(const std::vector<std::vector<std::byte>>& parts) {
  std::vector<std::byte> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

std::string fill_error(OutputPages& pages, const InputSequence& input) {
  try {
    pages.fill(input, 2);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Only an empty regular file in memory, opened for writing, at position 0, not appended to.
TEST(OutputPages, OnlyAnEmptyRegularFileInMemory) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  EXPECT_EQ(OutputPages::open(fds[1], "pipe", 0, 4096), nullptr);
  close(fds[0]);
  close(fds[1]);
  test::TempDir disk(test::disk_directory());
  if (!test::is_memory_file_system(disk.path())) {
    const int fd = create_file(disk.file("out"));
    EXPECT_EQ(OutputPages::open(fd, "out", 0, 4096), nullptr) << "a disk file is written as usual";
    close(fd);
  }
  if (!memory_directory_usable()) GTEST_SKIP() << "no tmpfs at " << test::memory_directory();
  test::TempDir memory(test::memory_directory());
  const int fd = create_file(memory.file("out"));
  EXPECT_EQ(OutputPages::open(fd, "out", 0, 0), nullptr) << "nothing to hold: no mapping";
  {
    const auto pages = OutputPages::open(fd, "out", 100, 4096);
    ASSERT_NE(pages, nullptr);
    EXPECT_EQ(test::read_plain_file(memory.file("out")).size(), 4196u) << "grown to hold them";
    EXPECT_EQ(pages->data(), pages->mapped().data() + 100);
  }
  EXPECT_EQ(OutputPages::open(fd, "out", 0, 4096), nullptr) << "a file with bytes of its own";
  close(fd);
  const int moved = create_file(memory.file("moved"));
  ASSERT_EQ(::lseek(moved, 10, SEEK_SET), 10);
  EXPECT_EQ(OutputPages::open(moved, "moved", 0, 4096), nullptr) << "a descriptor whose writes would go past 0";
  close(moved);
  const int read_only = ::open(memory.file("moved").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(read_only, 0);
  EXPECT_EQ(OutputPages::open(read_only, "moved", 0, 4096), nullptr) << "a descriptor not opened for writing";
  close(read_only);
  const int appending = ::open(memory.file("appended").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  ASSERT_GE(appending, 0);
  EXPECT_EQ(OutputPages::open(appending, "appended", 64, 4096), nullptr) << "a header appended after the records";
  close(appending);
}

// Parts of odd sizes, one larger than a thread's piece (64 MiB), two of them .npy files (their data
// after their headers), land in order after an offset inside a page (a .npy header's 128 bytes); what
// precedes them is left for the header, and finish() cuts the file after the records kept.
TEST(OutputPages, ReadsEveryPartInOrderAfterTheOffsetAndKeepsAPrefix) {
  if (!memory_directory_usable()) GTEST_SKIP() << "no tmpfs at " << test::memory_directory();
  for (const std::string& input_directory : {test::memory_directory(), test::disk_directory()}) {
    for (bool closed : {false, true}) {
      SCOPED_TRACE(input_directory + (closed ? ", parts closed until read" : ""));
      test::TempDir in(input_directory);
      test::TempDir out(test::memory_directory());
      const std::vector<std::vector<std::byte>> data = {test::pattern_bytes(4 * 1001, 1), {},
                                                        test::pattern_bytes(70 * kMiB + 4 * 3, 2),
                                                        test::pattern_bytes(4 * 7, 3), test::pattern_bytes(4 * 5, 4)};
      const InputSequence input = file_sequence(in, data, closed, {3, 4});
      const std::vector<std::byte> all = concatenation(data);
      const std::string path = out.file("out");
      const int fd = create_file(path);
      auto pages = OutputPages::open(fd, path, 128, all.size());
      ASSERT_NE(pages, nullptr);
      std::atomic<std::uint64_t> told{0};
      pages->fill(input, 3, [&told](std::uint64_t bytes) { told += bytes; });
      EXPECT_EQ(told.load(), all.size());
      ASSERT_NE(pages->data(), nullptr);
      EXPECT_EQ(std::memcmp(pages->data(), all.data(), all.size()), 0);
      pages->data()[0] = std::byte{0x5a};  // a store through the mapping is the file's
      std::vector<std::byte> expected(128);
      expected.insert(expected.end(), all.begin(), all.end());
      expected[128] = std::byte{0x5a};
      EXPECT_EQ(test::read_plain_file(path), expected);
      pages->finish(4 * 1000);
      EXPECT_EQ(pages->data(), nullptr);
      EXPECT_EQ(::lseek(fd, 0, SEEK_CUR), 128 + 4 * 1000) << "the descriptor stands after the records kept";
      expected.resize(128 + 4 * 1000);
      EXPECT_EQ(test::read_plain_file(path), expected);
      close(fd);
    }
  }
}

TEST(OutputPages, AnInputThatShrankIsNamed) {
  if (!memory_directory_usable()) GTEST_SKIP() << "no tmpfs at " << test::memory_directory();
  test::TempDir dir(test::memory_directory());
  const InputSequence input = file_sequence(dir, {test::pattern_bytes(4 * 100, 1), test::pattern_bytes(4 * 1000, 2)});
  ASSERT_EQ(::truncate(dir.file("part1").c_str(), 4 * 10), 0);
  const int fd = create_file(dir.file("out"));
  auto pages = OutputPages::open(fd, "out", 0, input.size());
  ASSERT_NE(pages, nullptr);
  EXPECT_EQ(fill_error(*pages, input),
            dir.file("part1") + ": the file shrank while being read: it ended at byte 40, expected 4000");
  close(fd);
}

TEST(OutputPages, AFullFileSystemNamesTheOutput) {
  test::SmallTmpfs small("1m");
  if (!small.mounted()) GTEST_SKIP() << small.why_not();
  test::TempDir in(test::disk_directory());
  const InputSequence input = file_sequence(in, {test::pattern_bytes(4 * kMiB, 1)});
  const std::string path = small.file("out");
  const int fd = create_file(path);
  auto pages = OutputPages::open(fd, path, 0, input.size());
  ASSERT_NE(pages, nullptr);
  EXPECT_EQ(fill_error(*pages, input), path + ": write failed: No space left on device");
  close(fd);
}

// reserve_while() runs its work and allocates every page of the records beside it (the file's
// blocks cover them: pieces by fallocate, the rest populated once the work is done), contents zero;
// the bytes before them (a header's) are the file's, untouched. What the work throws is thrown.
TEST(OutputPages, ReserveWhileAllocatesEveryPageOfTheRecordsBesideTheWork) {
  if (!memory_directory_usable()) GTEST_SKIP() << "no tmpfs at " << test::memory_directory();
  test::TempDir out(test::memory_directory());
  for (const std::uint64_t bytes : {3 * kMiB + 12, 150 * kMiB + 4}) {  // one piece, three
    SCOPED_TRACE(std::to_string(bytes) + " bytes");
    const std::string path = out.file("out");
    const int fd = create_file(path);
    auto pages = OutputPages::open(fd, path, 128, bytes);
    ASSERT_NE(pages, nullptr);
    struct stat before {};
    ASSERT_EQ(::fstat(fd, &before), 0);
    EXPECT_EQ(before.st_blocks, 0) << "sparse until reserved";
    bool worked = false;
    const double waited = pages->reserve_while([&worked] { worked = true; }, 3);
    EXPECT_TRUE(worked);
    EXPECT_GE(waited, 0.0);
    struct stat after {};
    ASSERT_EQ(::fstat(fd, &after), 0);
    EXPECT_GE(std::uint64_t(after.st_blocks) * 512, bytes);
    EXPECT_TRUE(std::all_of(pages->data(), pages->data() + bytes, [](std::byte b) { return b == std::byte{0}; }));
    std::memset(pages->data(), 0x7f, bytes);  // stores into reserved pages are the file's
    pages->finish(bytes);
    std::vector<std::byte> expected(128);
    expected.resize(128 + bytes, std::byte{0x7f});
    EXPECT_EQ(test::read_plain_file(path), expected);
    close(fd);
    ASSERT_EQ(::unlink(path.c_str()), 0);
  }
  const int fd = create_file(out.file("failed"));
  auto pages = OutputPages::open(fd, out.file("failed"), 0, 4 * kMiB);
  ASSERT_NE(pages, nullptr);
  EXPECT_THROW((void)pages->reserve_while([] { throw Error("the read failed"); }, 2), Error);
  close(fd);
}

// On ramfs, which has no fallocate, the pages are populated instead, and hold what is stored.
TEST(OutputPages, ReserveWhileOnAFileSystemWithoutFallocatePopulates) {
  const test::Ramfs ramfs;
  if (!ramfs.mounted()) GTEST_SKIP() << ramfs.why_not();
  {
    const std::string path = ramfs.file("out");
    const int fd = create_file(path);
    EXPECT_NE(::fallocate(fd, 0, 0, 4096), 0) << "ramfs has fallocate now: this test no longer covers the fallback";
    const std::uint64_t bytes = 70 * kMiB;
    auto pages = OutputPages::open(fd, path, 0, bytes);
    ASSERT_NE(pages, nullptr);
    (void)pages->reserve_while({}, 3);
    struct stat after {};
    ASSERT_EQ(::fstat(fd, &after), 0);
    EXPECT_GE(std::uint64_t(after.st_blocks) * 512, bytes);
    std::memset(pages->data(), 0x3c, bytes);
    pages->finish(bytes);
    EXPECT_EQ(test::read_plain_file(path), std::vector<std::byte>(bytes, std::byte{0x3c}));
    close(fd);
  }
}

// A reservation the file system cannot hold names the output, before anything stores into it
// (a store would have raised SIGBUS).
TEST(OutputPages, AReservationTooLargeForTheFileSystemNamesTheOutput) {
  test::SmallTmpfs small("1m");
  if (!small.mounted()) GTEST_SKIP() << small.why_not();
  const std::string path = small.file("out");
  const int fd = create_file(path);
  auto pages = OutputPages::open(fd, path, 0, 4 * kMiB);
  ASSERT_NE(pages, nullptr);
  std::string error;
  try {
    (void)pages->reserve_while({}, 2);
  } catch (const Error& e) {
    error = e.what();
  }
  EXPECT_EQ(error, path + ": write failed: No space left on device");
  close(fd);
}

}  // namespace
}  // namespace rmgsort
