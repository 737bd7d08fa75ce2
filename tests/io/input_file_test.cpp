#include "io/input_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.hpp"
#include "io_test_support.hpp"

namespace rmgsort {
namespace {

std::string error_of(const std::string& path) {
  try {
    InputFile input = open_input(path);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(InputFile, RegularFileHasItsSize) {
  test::TempDir dir(test::disk_directory());
  test::write_plain_file(dir.file("keys"), test::pattern_bytes(12345));
  const InputFile input = open_input(dir.file("keys"));
  EXPECT_TRUE(input.regular);
  EXPECT_FALSE(input.character_device);
  EXPECT_EQ(input.size, 12345u);
  EXPECT_GE(input.fd, 0);
  EXPECT_EQ(input.display_name(), dir.file("keys"));
}

TEST(InputFile, ClosesItsDescriptor) {
  test::TempDir dir(test::disk_directory());
  test::write_plain_file(dir.file("keys"), test::pattern_bytes(10));
  int fd = -1;
  {
    const InputFile input = open_input(dir.file("keys"));
    fd = input.fd;
    EXPECT_NE(fcntl(fd, F_GETFD), -1);
  }
  EXPECT_EQ(fcntl(fd, F_GETFD), -1);
}

TEST(InputFile, DashIsStandardInputAndStaysOpen) {
  {
    const InputFile input = open_input("-");
    EXPECT_EQ(input.fd, STDIN_FILENO);
    EXPECT_EQ(input.display_name(), "stdin");
  }
  EXPECT_NE(fcntl(STDIN_FILENO, F_GETFD), -1);
}

TEST(InputFile, PartlyConsumedStandardInputIsAStream) {
  test::TempDir dir(test::disk_directory());
  test::write_plain_file(dir.file("keys"), test::pattern_bytes(100));
  const int status = test::run_in_child([&] {
    const int fd = open(dir.file("keys").c_str(), O_RDONLY);
    if (fd < 0 || dup2(fd, STDIN_FILENO) < 0) return 3;
    if (!open_input("-").regular) return 4;  // at offset 0: a regular file
    if (lseek(STDIN_FILENO, 8, SEEK_SET) != 8) return 5;
    return open_input("-").regular ? 6 : 0;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(InputFile, PipeIsAStream) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const InputFile input = open_input("/proc/self/fd/" + std::to_string(fds[0]));
  EXPECT_FALSE(input.regular);
  EXPECT_FALSE(input.character_device);
  EXPECT_EQ(input.size, 0u);
  close(fds[0]);
  close(fds[1]);
}

TEST(InputFile, EmptyRegularFileIsAnEmptyStream) {
  // Its size of 0 is no different from procfs's, so it is read to its end like theirs: nothing.
  test::TempDir dir(test::disk_directory());
  test::write_plain_file(dir.file("empty"), {});
  const InputFile input = open_input(dir.file("empty"));
  EXPECT_FALSE(input.regular);
  EXPECT_FALSE(input.character_device);
  EXPECT_EQ(input.size, 0u);
}

TEST(InputFile, ProcFileOfSizeZeroIsAStream) {
  struct stat st {};
  if (stat("/proc/version", &st) != 0) GTEST_SKIP() << "no /proc/version";
  const InputFile input = open_input("/proc/version");
  EXPECT_FALSE(input.regular) << "st_size " << st.st_size;
  EXPECT_EQ(input.size, 0u);
}

TEST(InputFile, KernelFileWithASizeIsStillAStream) {
  // sysfs reports one page for every attribute, and newer kernels give /proc/cmdline a size too:
  // either is a guess, not the length of what a read returns.
  int checked = 0;
  for (const char* path : {"/sys/kernel/address_bits", "/sys/devices/system/cpu/online", "/proc/cmdline"}) {
    struct stat st {};
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0 || access(path, R_OK) != 0) continue;
    const InputFile input = open_input(path);
    EXPECT_FALSE(input.regular) << path << " has st_size " << st.st_size;
    EXPECT_EQ(input.size, 0u) << path;
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no kernel file here reports a size";
}

TEST(InputFile, CharacterDeviceIsAStreamMarkedAsSuch) {
  const InputFile input = open_input("/dev/null");
  EXPECT_TRUE(input.character_device);
  EXPECT_FALSE(input.regular);
}

TEST(InputFile, MissingFileNamesPathAndCause) {
  test::TempDir dir(test::disk_directory());
  const std::string message = error_of(dir.file("missing.bin"));
  EXPECT_EQ(message, dir.file("missing.bin") + ": cannot open: No such file or directory");
}

TEST(InputFile, DirectoryIsRefused) {
  test::TempDir dir(test::disk_directory());
  EXPECT_EQ(error_of(dir.path()), dir.path() + ": is a directory, not a file to read");
}

TEST(InputFile, UnreadableFileNamesPathAndCause) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("secret");
  test::write_plain_file(path, test::pattern_bytes(10));
  ASSERT_EQ(chmod(path.c_str(), 0), 0);
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  // root reads anything: check as nobody in a child process.
  const int status = test::run_in_child([&] {
    if (geteuid() == 0 && setuid(65534) != 0) return 3;
    return error_of(path) == path + ": cannot open: Permission denied" ? 0 : 1;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace rmgsort
