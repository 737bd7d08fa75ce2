#include "io/detail/mapped_output.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "io/chunk_writer.hpp"
#include "core/error.hpp"
#include "io_test_support.hpp"

namespace rmgsort {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

int create_file(const std::string& path, int access = O_WRONLY) {
  const int fd = open(path.c_str(), access | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  return fd;
}

bool memory_directory_usable() { return test::is_memory_file_system(test::memory_directory()); }

TEST(MappedOutput, OnlyForRegularFilesInMemory) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  EXPECT_EQ(MappedOutput::open(fds[1], "pipe"), nullptr);
  close(fds[0]);
  close(fds[1]);
  test::TempDir disk(test::disk_directory());
  if (!test::is_memory_file_system(disk.path())) {
    const int fd = create_file(disk.file("out"));
    EXPECT_EQ(MappedOutput::open(fd, "out"), nullptr);
    close(fd);
  }
  if (!memory_directory_usable()) return;
  // Reopened through /proc, a read-only descriptor (standard output under `1< FILE`) would get write
  // access from the file's permissions: refused, so that writing to it fails as it should.
  test::TempDir memory(test::memory_directory());
  close(create_file(memory.file("out")));
  const int read_only = open(memory.file("out").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(read_only, 0);
  EXPECT_EQ(MappedOutput::open(read_only, "out"), nullptr);
  close(read_only);
}

// Pieces beyond the first (64 MiB each) go to other threads; the first write starts inside a page,
// and the bytes of that page before it are the file's and stay.
TEST(MappedOutput, WritesAtAnyOffsetFromManyThreadsAndKeepsWhatIsAround) {
  if (!memory_directory_usable()) GTEST_SKIP() << "no tmpfs at " << test::memory_directory();
  test::TempDir dir(test::memory_directory());
  const std::string path = dir.file("out");
  const std::vector<std::byte> old = test::pattern_bytes(100, 9);
  test::write_plain_file(path, old);
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  auto output = MappedOutput::open(fd, path);
  ASSERT_NE(output, nullptr);

  const std::vector<std::byte> first = test::pattern_bytes(150 * kMiB + 3, 1);
  output->write(first, 37, 4);  // over the file's bytes 37..99 and beyond its end
  const std::vector<std::byte> second = test::pattern_bytes(5 * kMiB + 11, 2);
  output->write(second, 37 + first.size(), 3);  // right after, starting mid-page
  std::vector<std::byte> expected(old.begin(), old.begin() + 37);
  expected.reserve(37 + first.size() + second.size());
  expected.insert(expected.end(), first.begin(), first.end());
  expected.insert(expected.end(), second.begin(), second.end());
  output->write({}, 0, 2);  // nothing
  close(fd);
  EXPECT_TRUE(test::read_plain_file(path) == expected);
}

TEST(MappedOutput, ChunkWriterOnTmpfsWritesFromItsPositionAndMovesIt) {
  if (!memory_directory_usable()) GTEST_SKIP() << "no tmpfs at " << test::memory_directory();
  test::TempDir dir(test::memory_directory());
  const std::string path = dir.file("out");
  const int fd = create_file(path);
  const std::vector<std::byte> head = test::pattern_bytes(777, 3);
  ASSERT_EQ(write(fd, head.data(), head.size()), ssize_t(head.size()));
  const std::vector<std::byte> data = test::pattern_bytes(70 * kMiB + 5, 4);
  {
    ChunkWriter writer(fd, path, WriteOptions{}, data.size());
    writer.append({data.data(), 66 * kMiB + 1});
    writer.append({data.data() + 66 * kMiB + 1, data.size() - 66 * kMiB - 1});
    const WriteStats stats = writer.finish();
    EXPECT_FALSE(stats.direct);
    EXPECT_EQ(stats.buffered_bytes, data.size());
  }
  EXPECT_EQ(lseek(fd, 0, SEEK_CUR), off_t(head.size() + data.size()));
  close(fd);
  std::vector<std::byte> expected = head;
  expected.insert(expected.end(), data.begin(), data.end());
  EXPECT_TRUE(test::read_plain_file(path) == expected);
}

// A full tmpfs: the pages are allocated before they are stored to, so this is an error naming the
// file, not a SIGBUS that would end the process.
TEST(MappedOutput, FullFileSystemSaysNoSpaceLeftOnDevice) {
  const test::SmallTmpfs tmpfs("2m");
  if (!tmpfs.mounted()) GTEST_SKIP() << tmpfs.why_not();
  const std::string path = tmpfs.file("out");
  const int fd = create_file(path);
  auto output = MappedOutput::open(fd, path);
  ASSERT_NE(output, nullptr);
  const std::vector<std::byte> data = test::pattern_bytes(130 * kMiB, 5);  // three pieces
  try {
    output->write(data, 0, 3);
    FAIL() << "130 MiB fit in a 2 MiB file system";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(path + ": "), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("No space left on device"), std::string::npos) << error.what();
  }
  close(fd);
}

}  // namespace
}  // namespace rmgsort
