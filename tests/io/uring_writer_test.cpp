#include "io/uring_writer.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "io/host_buffer.hpp"
#include "io/uring_reader.hpp"
#include "io_test_support.hpp"

namespace rmgsort {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
const std::uint64_t kSizes[] = {0, 1, 4095, 4096, 4097, 12345, 4 * kMiB, 3 * 4 * kMiB + 123, 9 * kMiB + 4096 + 1};

HostBuffer buffer_with(const std::vector<std::byte>& data) {
  HostBuffer buffer(data.size());
  std::copy(data.begin(), data.end(), buffer.data());
  return buffer;
}

int create_file(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + path);
  return fd;
}

TEST(WriteFile, RoundTripsEverySizeOnDiskAndTmpfs) {
  for (const std::string& base : {test::disk_directory(), test::memory_directory()}) {
    test::TempDir dir(base);
    const bool direct_possible = test::supports_direct_io(dir.path()) && !test::is_memory_file_system(dir.path());
    for (std::uint64_t bytes : kSizes) {
      SCOPED_TRACE(base + ": bytes " + std::to_string(bytes));
      const std::vector<std::byte> data = test::pattern_bytes(bytes, bytes + 2);
      const HostBuffer source = buffer_with(data);
      const std::string path = dir.file("out-" + std::to_string(bytes));
      const int fd = create_file(path);
      WriteOptions options;
      options.block_bytes = kMiB;
      options.queue_depth = 4;
      const WriteStats stats = write_file(fd, path, source.data(), bytes, options);
      close(fd);
      EXPECT_EQ(stats.direct_bytes + stats.buffered_bytes, bytes);
      // The aligned body goes direct where the file system allows it; a tail under 4096 bytes cannot.
      EXPECT_EQ(stats.direct, direct_possible && bytes >= 4096);
      EXPECT_EQ(stats.direct_bytes, direct_possible ? bytes / 4096 * 4096 : 0);

      // Back through read_file (both paths of the layer) and through the C++ library.
      EXPECT_TRUE(test::read_plain_file(path) == data);
      const InputFile input = open_input(path);
      ASSERT_EQ(input.size, bytes);
      HostBuffer back(bytes);
      ReadOptions read_options;
      read_options.direct = DirectIo::prefer;
      (void)read_file(input, back.data(), bytes, read_options);
      EXPECT_TRUE(std::equal(data.begin(), data.end(), back.data()));
    }
  }
}

TEST(WriteFile, KeepsWhatFollowsInALongerFile) {
  // Standard output opened read-write (`1<>file`): the keys overwrite its start, the rest stays.
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("out");
  const std::vector<std::byte> old = test::pattern_bytes(5 * kMiB, 9);
  test::write_plain_file(path, old);
  const std::vector<std::byte> data = test::pattern_bytes(kMiB + 3, 10);
  const HostBuffer source = buffer_with(data);
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);  // no O_TRUNC
  (void)write_file(fd, path, source.data(), data.size());
  EXPECT_EQ(lseek(fd, 0, SEEK_CUR), off_t(data.size()));
  close(fd);
  std::vector<std::byte> expected = data;
  expected.insert(expected.end(), old.begin() + std::ptrdiff_t(data.size()), old.end());
  EXPECT_TRUE(test::read_plain_file(path) == expected);
}

TEST(WriteFile, WritesAtTheCurrentPositionAndMovesIt) {
  // Standard output redirected to a file someone already wrote to: `{ echo header; rmgsort ...; } > f`.
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("out");
  const int fd = create_file(path);
  ASSERT_EQ(write(fd, "header", 6), 6);
  const std::vector<std::byte> first = test::pattern_bytes(kMiB + 5, 1);
  const std::vector<std::byte> second = test::pattern_bytes(2 * kMiB, 2);
  const HostBuffer a = buffer_with(first);
  const HostBuffer b = buffer_with(second);
  (void)write_file(fd, path, a.data(), first.size());
  (void)write_file(fd, path, b.data(), second.size());
  ASSERT_EQ(write(fd, "trailer", 7), 7);
  close(fd);
  std::vector<std::byte> expected(6);
  std::memcpy(expected.data(), "header", 6);
  expected.insert(expected.end(), first.begin(), first.end());
  expected.insert(expected.end(), second.begin(), second.end());
  expected.resize(expected.size() + 7);
  std::memcpy(expected.data() + expected.size() - 7, "trailer", 7);
  EXPECT_TRUE(test::read_plain_file(path) == expected);
}

TEST(WriteFile, AppendModeFileIsWrittenInOrder) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("out");
  const std::vector<std::byte> old = test::pattern_bytes(1000, 1);
  test::write_plain_file(path, old);
  const std::vector<std::byte> data = test::pattern_bytes(9 * kMiB + 3, 2);
  const HostBuffer source = buffer_with(data);
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  WriteOptions options;
  options.block_bytes = kMiB;
  (void)write_file(fd, path, source.data(), data.size(), options);
  close(fd);
  std::vector<std::byte> expected = old;
  expected.insert(expected.end(), data.begin(), data.end());
  EXPECT_TRUE(test::read_plain_file(path) == expected);
}

TEST(WriteFile, UnalignedSourceWritesBuffered) {
  test::TempDir dir(test::disk_directory());
  const std::vector<std::byte> data = test::pattern_bytes(3 * kMiB + 5);
  HostBuffer source(data.size() + 16);
  std::copy(data.begin(), data.end(), source.data() + 16);
  const std::string path = dir.file("out");
  const int fd = create_file(path);
  const WriteStats stats = write_file(fd, path, source.data() + 16, data.size());
  close(fd);
  EXPECT_FALSE(stats.direct);
  EXPECT_TRUE(test::read_plain_file(path) == data);
}

TEST(WriteFile, ToAPipe) {
  const std::vector<std::byte> data = test::pattern_bytes(5 * kMiB + 77);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::vector<std::byte> received;
  std::thread reader([&] {
    std::vector<std::byte> piece(65536);
    for (;;) {
      const ssize_t got = read(fds[0], piece.data(), piece.size());
      if (got <= 0) break;
      received.insert(received.end(), piece.begin(), piece.begin() + got);
    }
  });
  const WriteStats stats = write_file(fds[1], "stdout", data.data(), data.size());
  close(fds[1]);
  reader.join();
  close(fds[0]);
  EXPECT_FALSE(stats.direct);
  EXPECT_TRUE(received == data);
}

TEST(WriteFile, ClosedPipeIsAnErrorNamingTheOutput) {
  signal(SIGPIPE, SIG_IGN);  // as install_cleanup_signal_handlers() leaves it
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);
  const std::vector<std::byte> data = test::pattern_bytes(100000);
  try {
    (void)write_file(fds[1], "stdout", data.data(), data.size());
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "stdout: write failed: Broken pipe");
  }
  close(fds[1]);
}

TEST(WriteFile, FullFileSystemSaysNoSpaceLeftOnDevice) {
  const test::SmallTmpfs tmpfs("1m");
  if (!tmpfs.mounted()) GTEST_SKIP() << tmpfs.why_not();

  const std::string path = tmpfs.file("out");
  const HostBuffer source = buffer_with(test::pattern_bytes(4 * kMiB));
  const int fd = create_file(path);
  try {
    (void)write_file(fd, path, source.data(), source.size());
    FAIL() << "4 MiB fit in a 1 MiB file system";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(path + ": "), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("No space left on device"), std::string::npos) << error.what();
  }
  close(fd);
}

// A 16 MiB ext4 image on a loop device: a full disk file system where writes go O_DIRECT.
TEST(WriteFile, FullDiskSaysNoSpaceLeftOnDeviceWithDirectWrites) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a loop device needs root";
  test::TempDir dir(test::disk_directory());
  const std::string image = dir.file("fs.img");
  const std::string mount_point = dir.file("mnt");
  ASSERT_EQ(mkdir(mount_point.c_str(), 0755), 0);
  const std::string make = "truncate -s 16M " + image + " && mkfs.ext4 -q -F " + image + " >/dev/null 2>&1";
  if (std::system(make.c_str()) != 0) GTEST_SKIP() << "mkfs.ext4 failed";
  if (std::system(("mount -o loop " + image + " " + mount_point + " 2>/dev/null").c_str()) != 0) {
    GTEST_SKIP() << "cannot mount a loop device here";
  }
  struct Unmount {
    std::string path;
    ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
  } unmount{mount_point};
  if (!test::supports_direct_io(mount_point)) GTEST_SKIP() << "no O_DIRECT on the loop file system";

  const HostBuffer source = buffer_with(test::pattern_bytes(32 * kMiB));
  for (bool preallocate : {true, false}) {
    SCOPED_TRACE(preallocate ? "preallocated" : "not preallocated");
    const std::string path = mount_point + "/out";
    const int fd = create_file(path);
    WriteOptions options;
    options.preallocate = preallocate;
    try {
      (void)write_file(fd, path, source.data(), source.size(), options);
      FAIL() << "32 MiB fit in a 16 MiB file system";
    } catch (const Error& error) {
      const std::string message = error.what();
      // Preallocation fails up front; without it, a direct write fails part way.
      const std::string expected = preallocate ? path + ": cannot reserve 33554432 bytes: No space left on device"
                                               : path + ": write failed: No space left on device";
      EXPECT_EQ(message, expected);
    }
    close(fd);
    unlink(path.c_str());
  }
}

TEST(ChunkWriter, DoubleBufferedAppendsInOrder) {
  for (const std::string& base : {test::disk_directory(), test::memory_directory()}) {
    test::TempDir dir(base);
    const bool direct_possible = test::supports_direct_io(dir.path()) && !test::is_memory_file_system(dir.path());
    const std::vector<std::byte> data = test::pattern_bytes(30 * kMiB + 1234, 4);
    // Chunk sizes: aligned ones first (direct), then an unaligned one, after which all is buffered.
    const std::vector<std::size_t> chunk_sizes = {4 * kMiB,     4 * kMiB, 8 * kMiB + 4096,           1 * kMiB,
                                                  3 * kMiB + 7, 5 * kMiB, 5 * kMiB - 4096 + 1234 - 7};
    HostBuffer buffers[2] = {HostBuffer(8 * kMiB + 4096), HostBuffer(8 * kMiB + 4096)};
    const std::string path = dir.file("out");
    const int fd = create_file(path);
    WriteOptions options;
    options.block_bytes = kMiB;
    ChunkWriter writer(fd, path, options, data.size());
    std::size_t at = 0;
    for (std::size_t i = 0; i < chunk_sizes.size(); ++i) {
      HostBuffer& buffer = buffers[i % 2];  // free again: the append before last has completed
      std::copy(data.begin() + static_cast<std::ptrdiff_t>(at),
                data.begin() + static_cast<std::ptrdiff_t>(at + chunk_sizes[i]), buffer.data());
      writer.append({buffer.data(), chunk_sizes[i]});
      at += chunk_sizes[i];
    }
    ASSERT_EQ(at, data.size());
    const WriteStats stats = writer.finish();
    close(fd);
    EXPECT_EQ(writer.bytes_appended(), data.size());
    EXPECT_EQ(stats.direct, direct_possible);
    EXPECT_TRUE(test::read_plain_file(path) == data);
  }
}

TEST(ChunkWriter, GenerousExpectedSizeIsTrimmed) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("out");
  const int fd = create_file(path);
  const HostBuffer source = buffer_with(test::pattern_bytes(kMiB));
  ChunkWriter writer(fd, path, {}, 10 * kMiB);
  writer.append({source.data(), 1000});
  (void)writer.finish();
  close(fd);
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 1000);
}

TEST(ChunkWriter, TrimsOnlyWhatItAddedToAFileThatWasThere) {
  // A longer file written from its start (`1<>file`): the preallocation goes, the old tail stays.
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("out");
  const std::vector<std::byte> old = test::pattern_bytes(5000, 3);
  test::write_plain_file(path, old);
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  const HostBuffer source = buffer_with(test::pattern_bytes(kMiB, 4));
  ChunkWriter writer(fd, path, {}, 10 * kMiB);
  writer.append({source.data(), 1000});
  (void)writer.finish();
  close(fd);
  std::vector<std::byte> expected(source.data(), source.data() + 1000);
  expected.insert(expected.end(), old.begin() + 1000, old.end());
  EXPECT_TRUE(test::read_plain_file(path) == expected);
}

TEST(ChunkWriter, ToAPipe) {
  const std::vector<std::byte> data = test::pattern_bytes(3 * kMiB + 1);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::vector<std::byte> received;
  std::thread reader([&] {
    std::vector<std::byte> piece(65536);
    for (;;) {
      const ssize_t got = read(fds[0], piece.data(), piece.size());
      if (got <= 0) break;
      received.insert(received.end(), piece.begin(), piece.begin() + got);
    }
  });
  {
    ChunkWriter writer(fds[1], "stdout");
    writer.append({data.data(), kMiB});
    writer.append({data.data() + kMiB, data.size() - kMiB});
    (void)writer.finish();
  }
  close(fds[1]);
  reader.join();
  close(fds[0]);
  EXPECT_TRUE(received == data);
}

}  // namespace
}  // namespace rmgsort
