// The output's pages reserved ahead of its writes (io/output_reservation.hpp): only a regular file on
// tmpfs gets a reservation; it allocates the pages without changing the file's size,
// writes beside it land as written, and release_unwritten() frees what was reserved past the end the
// writes left. A reservation the file system cannot hold (full, or past `ulimit -f`) stops by
// itself; ramfs, which has no fallocate, gets none.
#include "io/output_reservation.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "io_test_support.hpp"

namespace rmgsort {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

int create_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  return fd;
}

struct stat stat_of(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw std::runtime_error(std::string("fstat: ") + std::strerror(errno));
  return st;
}

std::uint64_t allocated_bytes(int fd) { return std::uint64_t(stat_of(fd).st_blocks) * 512; }

// Waits (at most a minute: not a timing) until the reservation has ended by itself.
void wait_ended(const OutputReservation& reservation) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!reservation.ended() && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// Waits (at most a minute: not a timing) until the reservation has reserved BYTES.
void wait_reserved(const OutputReservation& reservation, std::uint64_t bytes) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (reservation.reserved() < bytes && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(OutputReservation, OnlyARegularFileOnTmpfs) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  EXPECT_EQ(OutputReservation::start(fds[1], "pipe", 0, 4096), nullptr);
  close(fds[0]);
  close(fds[1]);
  test::TempDir disk(test::disk_directory());
  if (!test::is_memory_file_system(disk.path())) {
    const int fd = create_file(disk.file("out"));
    EXPECT_EQ(OutputReservation::start(fd, "out", 0, 4096), nullptr) << "a disk file is written as usual";
    close(fd);
  }
  if (!test::is_memory_file_system(test::memory_directory()))
    GTEST_SKIP() << "no tmpfs at " << test::memory_directory();
  test::TempDir memory(test::memory_directory());
  const int fd = create_file(memory.file("out"));
  EXPECT_EQ(OutputReservation::start(fd, "out", 0, 0), nullptr) << "nothing to reserve";
  EXPECT_NE(OutputReservation::start(fd, "out", 0, 4096), nullptr);
  close(fd);
}

// The pages of [offset, offset + bytes) are allocated, the size stays what the writes make it, and
// what they write is the file's; the pages past the written end are freed by release_unwritten()
// (as --unique leaves them), and only those.
TEST(OutputReservation, ReservesWithoutGrowingTheFileAndReleasesWhatWasNotWritten) {
  if (!test::is_memory_file_system(test::memory_directory()))
    GTEST_SKIP() << "no tmpfs at " << test::memory_directory();
  test::TempDir dir(test::memory_directory());
  for (const std::uint64_t written : {150 * kMiB, 70 * kMiB + 8, std::uint64_t{0}}) {
    SCOPED_TRACE(std::to_string(written) + " bytes written");
    const std::string path = dir.file("out");
    const int fd = create_file(path);
    const std::uint64_t offset = 128, bytes = 150 * kMiB;  // three pieces
    const std::vector<std::byte> header(offset, std::byte{0x93});
    ASSERT_EQ(::pwrite(fd, header.data(), header.size(), 0), ssize_t(header.size()));
    auto reservation = OutputReservation::start(fd, path, offset, bytes);
    ASSERT_NE(reservation, nullptr);
    wait_reserved(*reservation, bytes);
    ASSERT_EQ(reservation->reserved(), bytes);
    EXPECT_EQ(stat_of(fd).st_size, off_t(offset)) << "the size is the writes'";
    EXPECT_GE(allocated_bytes(fd), offset + bytes);
    const std::vector<std::byte> records(written, std::byte{0x5a});
    if (written > 0) {
      ASSERT_EQ(::pwrite(fd, records.data(), records.size(), off_t(offset)), ssize_t(written));
    }
    reservation->release_unwritten();
    EXPECT_EQ(stat_of(fd).st_size, off_t(offset + written));
    EXPECT_GE(allocated_bytes(fd), offset + written);
    // (A tmpfs of huge pages allocates 2 MiB at a time.)
    EXPECT_LT(allocated_bytes(fd), offset + written + (2 << 20) + 2 * 4096)
        << "what was reserved past the end is freed";
    std::vector<std::byte> expected(offset + written, std::byte{0x5a});
    std::fill(expected.begin(), expected.begin() + std::ptrdiff_t(offset), std::byte{0x93});
    EXPECT_EQ(test::read_plain_file(path), expected);
    close(fd);
    ASSERT_EQ(::unlink(path.c_str()), 0);
  }
}

// Writes while it reserves land as written; a reservation dropped before it ends (an error path)
// leaves the file as the writes left it.
TEST(OutputReservation, WritesBesideTheReservationAreTheFiles) {
  if (!test::is_memory_file_system(test::memory_directory()))
    GTEST_SKIP() << "no tmpfs at " << test::memory_directory();
  test::TempDir dir(test::memory_directory());
  const std::string path = dir.file("out");
  const int fd = create_file(path);
  const std::uint64_t bytes = 256 * kMiB;
  const std::vector<std::byte> records = test::pattern_bytes(bytes, 3);
  {
    auto reservation = OutputReservation::start(fd, path, 0, bytes);
    ASSERT_NE(reservation, nullptr);
    for (std::uint64_t done = 0; done < bytes; done += 4 * kMiB)
      ASSERT_EQ(::pwrite(fd, records.data() + done, 4 * kMiB, off_t(done)), ssize_t(4 * kMiB));
  }
  EXPECT_EQ(stat_of(fd).st_size, off_t(bytes));
  EXPECT_EQ(test::read_plain_file(path), records);
  close(fd);
}

// A file system too small for it: the reservation stops, says nothing, and releases what it got.
TEST(OutputReservation, AFullFileSystemOnlyStopsIt) {
  test::SmallTmpfs small("1m");
  if (!small.mounted()) GTEST_SKIP() << small.why_not();
  const std::string path = small.file("out");
  const int fd = create_file(path);
  auto reservation = OutputReservation::start(fd, path, 0, 4 * 64 * kMiB);
  ASSERT_NE(reservation, nullptr);
  wait_ended(*reservation);
  ASSERT_TRUE(reservation->ended()) << "it stops by itself";
  EXPECT_NO_THROW(reservation->release_unwritten());
  EXPECT_EQ(reservation->reserved(), 0U) << "not one piece fits";
  EXPECT_FALSE(reservation->seconds_to_reserve_all().has_value());
  EXPECT_EQ(allocated_bytes(fd), 0U);
  close(fd);
}

// Under `ulimit -f` below the output's end: fallocate refuses (EFBIG), the reservation stops by
// itself; SIGXFSZ, which the run ignores, is ignored here too.
TEST(OutputReservation, AFileSizeLimitOnlyStopsIt) {
  if (!test::is_memory_file_system(test::memory_directory()))
    GTEST_SKIP() << "no tmpfs at " << test::memory_directory();
  test::TempDir dir(test::memory_directory());
  const int fd = create_file(dir.file("out"));
  std::fflush(nullptr);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{kMiB, kMiB};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(3);
    auto reservation = OutputReservation::start(fd, "out", 0, 4 * kMiB);
    if (!reservation) _exit(4);
    wait_ended(*reservation);
    if (!reservation->ended()) _exit(5);
    reservation->release_unwritten();
    _exit(reservation->reserved() == 0 ? 0 : 6);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(allocated_bytes(fd), 0U);
  close(fd);
}

// ramfs, the other memory file system, has no fallocate: no reservation, the writes allocate.
TEST(OutputReservation, NoneOnRamfs) {
  const test::Ramfs ramfs;
  if (!ramfs.mounted()) GTEST_SKIP() << ramfs.why_not();
  const std::string path = ramfs.file("out");
  const int fd = create_file(path);
  EXPECT_EQ(OutputReservation::start(fd, path, 0, 8 * kMiB), nullptr);
  close(fd);
}

}  // namespace
}  // namespace rmgsort
