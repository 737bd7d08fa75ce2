#include "io/output_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "io/input_file.hpp"
#include "io/uring_reader.hpp"
#include "io/uring_writer.hpp"
#include "io_test_support.hpp"

namespace rmgsort {
namespace {

void write_bytes(const OutputFile& output, const std::vector<std::byte>& data) {
  (void)write_file(output.fd(), output.display_name(), data.data(), data.size());
}

// Redirects standard output to FD for the lifetime of the object.
class StdoutRedirect {
 public:
  explicit StdoutRedirect(int fd) : saved_(dup(STDOUT_FILENO)) {
    std::fflush(stdout);
    dup2(fd, STDOUT_FILENO);
  }
  ~StdoutRedirect() {
    std::fflush(stdout);
    dup2(saved_, STDOUT_FILENO);
    close(saved_);
  }
  StdoutRedirect(const StdoutRedirect&) = delete;
  StdoutRedirect& operator=(const StdoutRedirect&) = delete;

 private:
  int saved_;
};

TEST(OutputFile, CommitCreatesTheFileWithUmaskMode) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("sorted.bin");
  const std::vector<std::byte> data = test::pattern_bytes(100000);
  const mode_t old_umask = umask(022);
  {
    OutputFile output = OutputFile::create(path);
    EXPECT_FALSE(output.is_stdout());
    EXPECT_EQ(output.path(), path);
    EXPECT_EQ(output.temp_path().rfind(dir.path() + "/.sorted.bin.rmgsort-", 0), 0u) << output.temp_path();
    EXPECT_TRUE(test::file_exists(output.temp_path()));
    EXPECT_FALSE(test::file_exists(path));
    write_bytes(output, data);
    output.commit();
    EXPECT_TRUE(output.committed());
  }
  umask(old_umask);
  EXPECT_TRUE(test::read_plain_file(path) == data);
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(test::directory_entries(dir.path()), std::vector<std::string>{"sorted.bin"});
}

TEST(OutputFile, CommitReplacesAnExistingFile) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("out");
  test::write_plain_file(path, test::pattern_bytes(5000, 1));
  const std::vector<std::byte> data = test::pattern_bytes(3000, 2);
  OutputFile output = OutputFile::create(path);
  write_bytes(output, data);
  EXPECT_TRUE(test::read_plain_file(path) == test::pattern_bytes(5000, 1));  // untouched until commit
  output.commit();
  EXPECT_TRUE(test::read_plain_file(path) == data);
  EXPECT_EQ(test::directory_entries(dir.path()).size(), 1u);
}

// Regression: sorting a private file in place made it world-readable (0600 became 0644).
TEST(OutputFile, ReplacingAFileKeepsItsPermissionBits) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("private.bin");
  test::write_plain_file(path, test::pattern_bytes(100, 1));
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  OutputFile output = OutputFile::create(path);
  output.commit();
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST(OutputFile, ReplacingAnotherUsersFileKeepsItsOwnerGroupAndSetIdBits) {
  if (geteuid() != 0) GTEST_SKIP() << "giving a file to another user needs root";
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("theirs.bin");
  test::write_plain_file(path, test::pattern_bytes(100, 1));
  ASSERT_EQ(chown(path.c_str(), 65534, 65534), 0);
  ASSERT_EQ(chmod(path.c_str(), 04600), 0);
  OutputFile output = OutputFile::create(path);
  output.commit();
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65534u);
  EXPECT_EQ(st.st_mode & 07777, 04600u);
}

TEST(OutputFile, SetIdBitsAreDroppedWhenTheOwnerCannotBeKept) {
  if (geteuid() != 0) GTEST_SKIP() << "running as another user needs root";
  test::TempDir dir(test::disk_directory());
  ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
  const std::string path = dir.file("roots.bin");
  test::write_plain_file(path, test::pattern_bytes(100, 1));
  ASSERT_EQ(chmod(path.c_str(), 06666), 0);
  const int status = test::run_in_child([&] {
    if (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0)
      return 90;
    OutputFile output = OutputFile::create(path);
    output.commit();
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_mode & 07777, 0666u);  // a set-user-ID file of nobody's, made from root's: never
}

TEST(OutputFile, UncommittedRegularStdoutIsCutBackToWhereItStarted) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("stdout");
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "header", 6), 6);
  off_t position_after = -1;
  {
    StdoutRedirect redirect(fd);
    {
      OutputFile output = OutputFile::create("-");
      write_bytes(output, test::pattern_bytes(3 << 20));  // preallocated, then written
    }  // a failed run: destroyed without commit
    position_after = lseek(STDOUT_FILENO, 0, SEEK_CUR);
  }
  EXPECT_EQ(position_after, 6);
  std::vector<std::byte> header(6);
  std::memcpy(header.data(), "header", 6);
  EXPECT_TRUE(test::read_plain_file(path) == header);
  {
    StdoutRedirect redirect(fd);
    OutputFile output = OutputFile::create("-");
    write_bytes(output, test::pattern_bytes(1000));
    output.commit();
  }
  close(fd);
  EXPECT_EQ(test::read_plain_file(path).size(), 1006u);
}

TEST(OutputFile, UncommittedLeavesTheExistingOutputAndNoTemporary) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("out");
  const std::vector<std::byte> old = test::pattern_bytes(5000, 1);
  test::write_plain_file(path, old);
  std::string temp;
  {
    OutputFile output = OutputFile::create(path);
    temp = output.temp_path();
    write_bytes(output, test::pattern_bytes(8000, 2));
  }  // a failed run: destroyed without commit
  EXPECT_FALSE(test::file_exists(temp));
  EXPECT_TRUE(test::read_plain_file(path) == old);
  EXPECT_EQ(test::directory_entries(dir.path()), std::vector<std::string>{"out"});
}

TEST(OutputFile, UncommittedNewOutputLeavesNothing) {
  test::TempDir dir(test::disk_directory());
  { OutputFile output = OutputFile::create(dir.file("new")); }
  EXPECT_TRUE(test::directory_entries(dir.path()).empty());
}

TEST(OutputFile, MoveKeepsOneOwner) {
  test::TempDir dir(test::disk_directory());
  OutputFile a = OutputFile::create(dir.file("out"));
  const std::string temp = a.temp_path();
  OutputFile b(std::move(a));
  EXPECT_TRUE(test::file_exists(temp));
  b.commit();
  EXPECT_TRUE(test::file_exists(dir.file("out")));
  EXPECT_FALSE(test::file_exists(temp));
}

TEST(OutputFile, MissingDirectoryNamesThePathAndCreatesNothing) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("no/such/dir/out.bin");
  try {
    OutputFile output = OutputFile::create(path);
    FAIL() << "created " << output.temp_path();
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), path + ": cannot create output file: No such file or directory");
  }
  EXPECT_TRUE(test::directory_entries(dir.path()).empty());
}

TEST(OutputFile, DirectoryIsRefused) {
  test::TempDir dir(test::disk_directory());
  try {
    OutputFile output = OutputFile::create(dir.path());
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), dir.path() + ": is a directory");
  }
}

TEST(OutputFile, OutputMayBeTheInput) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("keys");
  const std::vector<std::byte> before = test::pattern_bytes(3 << 20, 1);
  const std::vector<std::byte> after = test::pattern_bytes(3 << 20, 2);
  test::write_plain_file(path, before);
  const InputFile input = open_input(path);
  OutputFile output = OutputFile::create(path);
  write_bytes(output, after);
  HostBuffer buffer(input.size);
  (void)read_file(input, buffer.data(), input.size);
  EXPECT_TRUE(std::equal(before.begin(), before.end(), buffer.data()));
  output.commit();
  EXPECT_TRUE(test::read_plain_file(path) == after);
}

TEST(OutputFile, SymbolicLinkReplacesItsTarget) {
  test::TempDir dir(test::disk_directory());
  test::write_plain_file(dir.file("target"), test::pattern_bytes(10, 1));
  ASSERT_EQ(symlink("target", dir.file("link").c_str()), 0);
  OutputFile output = OutputFile::create(dir.file("link"));
  write_bytes(output, test::pattern_bytes(20, 2));
  output.commit();
  struct stat st {};
  ASSERT_EQ(lstat(dir.file("link").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_TRUE(test::read_plain_file(dir.file("target")) == test::pattern_bytes(20, 2));
}

TEST(OutputFile, DevNullIsWrittenInPlace) {
  OutputFile output = OutputFile::create("/dev/null");
  EXPECT_TRUE(output.temp_path().empty());
  write_bytes(output, test::pattern_bytes(10000));
  output.commit();
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(OutputFile, StdoutToAPipe) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  {
    StdoutRedirect redirect(fds[1]);
    OutputFile output = OutputFile::create("-");
    EXPECT_TRUE(output.is_stdout());
    EXPECT_EQ(output.fd(), STDOUT_FILENO);
    EXPECT_EQ(output.display_name(), "stdout");
    write_bytes(output, test::pattern_bytes(1000));
    output.commit();
  }
  close(fds[1]);
  std::vector<std::byte> received(2000);
  EXPECT_EQ(read(fds[0], received.data(), received.size()), 1000);
  close(fds[0]);
}

TEST(OutputFile, StdoutTerminalIsRefused) {
  int master = -1;
  int slave = -1;
  if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
    GTEST_SKIP() << "no pseudo-terminal: " << std::strerror(errno);
  }
  std::string message;
  {
    StdoutRedirect redirect(slave);
    try {
      OutputFile output = OutputFile::create("-");
    } catch (const Error& error) {
      message = error.what();
    }
  }
  close(slave);
  close(master);
  EXPECT_EQ(message, "refusing to write binary keys to a terminal: use -o FILE or redirect standard output");
}

TEST(OutputFile, TerminationSignalRemovesTheTemporaryFile) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("out");
  const std::vector<std::byte> old = test::pattern_bytes(100, 1);
  test::write_plain_file(path, old);
  const int status = test::run_in_child([&] {
    install_cleanup_signal_handlers();
    OutputFile output = OutputFile::create(path);
    write_bytes(output, test::pattern_bytes(1 << 20, 2));
    raise(SIGTERM);
    return 0;  // not reached
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 143);
  EXPECT_EQ(test::directory_entries(dir.path()), std::vector<std::string>{"out"});
  EXPECT_TRUE(test::read_plain_file(path) == old);
}

}  // namespace
}  // namespace rmgsort
