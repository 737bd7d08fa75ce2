#include "io/output_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/error.hpp"
#include "io/input_file.hpp"
#include "io/uring_reader.hpp"
#include "io/uring_writer.hpp"
#include "output_file_test_support.hpp"

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

// The behaviour both stagings share, on each: the anonymous file (O_TMPFILE) where the file system
// has it, and the named temporary file that is the fallback elsewhere (forced by create_named()).
class StagedOutput : public ::testing::TestWithParam<OutputFile::Staging> {
 protected:
  void SetUp() override {
    if (GetParam() == OutputFile::Staging::anonymous && !test::supports_anonymous_files(dir_.path()))
      GTEST_SKIP() << dir_.path() << " does not support O_TMPFILE";
  }

  [[nodiscard]] OutputFile create(const std::string& path) const {
    OutputFile output = GetParam() == OutputFile::Staging::named ? OutputFile::create_named(path) : OutputFile::create(path);
    EXPECT_EQ(output.staging(), GetParam());
    return output;
  }

  // What the directory shows of a staged OUTPUT besides the files that were there: the named
  // temporary file, or nothing at all.
  [[nodiscard]] static std::vector<std::string> staged_entries(const OutputFile& output) {
    if (output.staging() != OutputFile::Staging::named) {
      EXPECT_TRUE(output.temp_path().empty());
      return {};
    }
    return {output.temp_path().substr(output.temp_path().rfind('/') + 1)};
  }

  test::TempDir dir_{test::disk_directory()};
};

INSTANTIATE_TEST_SUITE_P(OutputFile, StagedOutput,
                         ::testing::Values(OutputFile::Staging::anonymous, OutputFile::Staging::named),
                         [](const auto& info) {
                           return std::string(info.param == OutputFile::Staging::named ? "Named" : "Anonymous");
                         });

TEST_P(StagedOutput, CommitCreatesTheFileWithUmaskMode) {
  const std::string path = dir_.file("sorted.bin");
  const std::vector<std::byte> data = test::pattern_bytes(100000);
  const mode_t old_umask = umask(022);
  {
    OutputFile output = create(path);
    EXPECT_FALSE(output.is_stdout());
    EXPECT_EQ(output.path(), path);
    if (GetParam() == OutputFile::Staging::named) {
      EXPECT_EQ(output.temp_path().rfind(dir_.path() + "/.sorted.bin.rmgsort-", 0), 0u) << output.temp_path();
    }
    write_bytes(output, data);
    EXPECT_EQ(test::directory_entries(dir_.path()), staged_entries(output));  // nothing named "sorted.bin" yet
    output.commit();
    EXPECT_TRUE(output.committed());
    EXPECT_TRUE(output.temp_path().empty());
    EXPECT_EQ(output.fd(), -1);
  }
  umask(old_umask);
  EXPECT_TRUE(test::read_plain_file(path) == data);
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(st.st_nlink, 1u);
  EXPECT_EQ(test::directory_entries(dir_.path()), std::vector<std::string>{"sorted.bin"});
}

TEST_P(StagedOutput, CommitReplacesAnExistingFile) {
  const std::string path = dir_.file("out");
  test::write_plain_file(path, test::pattern_bytes(5000, 1));
  const std::vector<std::byte> data = test::pattern_bytes(3000, 2);
  OutputFile output = create(path);
  write_bytes(output, data);
  EXPECT_TRUE(test::read_plain_file(path) == test::pattern_bytes(5000, 1));  // untouched until commit
  std::vector<std::string> expected = staged_entries(output);
  expected.push_back("out");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(test::sorted_entries(dir_.path()), expected);
  output.commit();
  EXPECT_TRUE(test::read_plain_file(path) == data);
  EXPECT_EQ(test::directory_entries(dir_.path()), std::vector<std::string>{"out"});
}

// Regression: sorting a private file in place made it world-readable (0600 became 0644).
TEST_P(StagedOutput, ReplacingAFileKeepsItsPermissionBits) {
  const std::string path = dir_.file("private.bin");
  test::write_plain_file(path, test::pattern_bytes(100, 1));
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  OutputFile output = create(path);
  output.commit();
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_P(StagedOutput, ReplacingAnotherUsersFileKeepsItsOwnerGroupAndSetIdBits) {
  if (geteuid() != 0) GTEST_SKIP() << "giving a file to another user needs root";
  const std::string path = dir_.file("theirs.bin");
  test::write_plain_file(path, test::pattern_bytes(100, 1));
  ASSERT_EQ(chown(path.c_str(), 65534, 65534), 0);
  ASSERT_EQ(chmod(path.c_str(), 04600), 0);
  OutputFile output = create(path);
  output.commit();
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65534u);
  EXPECT_EQ(st.st_mode & 07777, 04600u);
}

TEST_P(StagedOutput, SetIdBitsAreDroppedWhenTheOwnerCannotBeKept) {
  if (geteuid() != 0) GTEST_SKIP() << "running as another user needs root";
  ASSERT_EQ(chmod(dir_.path().c_str(), 0777), 0);
  const std::string path = dir_.file("roots.bin");
  test::write_plain_file(path, test::pattern_bytes(100, 1));
  ASSERT_EQ(chmod(path.c_str(), 06666), 0);
  const int status = test::run_in_child([&] {
    if (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0)
      return 90;
    OutputFile output = create(path);
    if (output.staging() != GetParam()) return 91;
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

// A file the caller may not write is not replaced, though the directory would let a rename do it
// (as `sort -o FILE` refuses a file it cannot open for writing): a read-only file of the caller's,
// and, run as root, another user's file (the child runs as nobody in a directory anyone may write).
TEST_P(StagedOutput, AnExistingOutputTheCallerMayNotWriteIsRefusedAndKept) {
  ASSERT_EQ(chmod(dir_.path().c_str(), 0777), 0);
  const bool as_root = geteuid() == 0;
  std::vector<std::string> refused{dir_.file("read-only.bin")};
  if (as_root) refused.push_back(dir_.file("roots.bin"));
  for (const std::string& path : refused) test::write_plain_file(path, test::pattern_bytes(100, 1));
  ASSERT_EQ(chmod(refused[0].c_str(), 0444), 0);
  if (as_root) {
    ASSERT_EQ(chown(refused[0].c_str(), 65534, 65534), 0);
    ASSERT_EQ(chmod(refused[1].c_str(), 0644), 0);
  }
  for (const std::string& path : refused) {
    SCOPED_TRACE(path);
    const int status = test::run_in_child([&] {
      if (as_root &&
          (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0))
        return 90;
      try {
        (void)create(path);
        return 91;
      } catch (const Error& e) {
        const std::string message = e.what();
        return message.find(path) != std::string::npos && message.find("Permission denied") != std::string::npos ? 0 : 92;
      }
    });
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_TRUE(test::read_plain_file(path) == test::pattern_bytes(100, 1));
  }
  std::vector<std::string> names;
  for (const std::string& path : refused) names.push_back(path.substr(path.rfind('/') + 1));
  std::vector<std::string> entries = test::directory_entries(dir_.path());
  std::sort(names.begin(), names.end());
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, names);
}

// In a sticky directory (as /tmp) another user's file that anyone may write cannot be renamed over:
// it is refused when the output is created, not after the run at the rename, and kept; the
// caller's own file there is replaced as ever. (The child runs as nobody; the directory is root's.)
TEST_P(StagedOutput, AnotherUsersFileInAStickyDirectoryIsRefusedAtCreation) {
  if (geteuid() != 0) GTEST_SKIP() << "running as another user needs root";
  ASSERT_EQ(chmod(dir_.path().c_str(), 01777), 0);
  const std::string roots = dir_.file("roots.bin"), nobodys = dir_.file("nobodys.bin");
  for (const std::string& path : {roots, nobodys}) test::write_plain_file(path, test::pattern_bytes(100, 1));
  ASSERT_EQ(chmod(roots.c_str(), 0666), 0);
  ASSERT_EQ(chown(nobodys.c_str(), 65534, 65534), 0);
  const int status = test::run_in_child([&] {
    if (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0)
      return 90;
    try {
      (void)create(roots);
      return 91;
    } catch (const Error& e) {
      const std::string message = e.what();
      if (message.find(roots) == std::string::npos || message.find("sticky directory") == std::string::npos) return 92;
    }
    try {
      OutputFile own = create(nobodys);
      write_bytes(own, test::pattern_bytes(10, 2));
      own.commit();
    } catch (const Error&) {
      return 93;
    }
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(test::read_plain_file(roots) == test::pattern_bytes(100, 1));
  EXPECT_TRUE(test::read_plain_file(nobodys) == test::pattern_bytes(10, 2));
  std::vector<std::string> entries = test::directory_entries(dir_.path());
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, (std::vector<std::string>{"nobodys.bin", "roots.bin"}));
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

TEST_P(StagedOutput, UncommittedLeavesTheExistingOutputAndNoTemporary) {
  const std::string path = dir_.file("out");
  const std::vector<std::byte> old = test::pattern_bytes(5000, 1);
  test::write_plain_file(path, old);
  for (const bool finished : {false, true}) {
    {
      OutputFile output = create(path);
      write_bytes(output, test::pattern_bytes(8000, 2));
      if (finished) output.finish_writing();  // closed, only the commit left
    }  // a failed run: destroyed without commit
    EXPECT_TRUE(test::read_plain_file(path) == old);
    EXPECT_EQ(test::directory_entries(dir_.path()), std::vector<std::string>{"out"});
  }
}

TEST_P(StagedOutput, DiscardLeavesTheExistingOutputAndNoTemporary) {
  const std::string path = dir_.file("out");
  const std::vector<std::byte> old = test::pattern_bytes(5000, 1);
  test::write_plain_file(path, old);
  OutputFile output = create(path);
  write_bytes(output, test::pattern_bytes(8000, 2));
  output.discard();
  EXPECT_FALSE(output.committed());
  EXPECT_TRUE(test::read_plain_file(path) == old);
  EXPECT_EQ(test::directory_entries(dir_.path()), std::vector<std::string>{"out"});
}

TEST_P(StagedOutput, UncommittedNewOutputLeavesNothing) {
  { OutputFile output = create(dir_.file("new")); }
  EXPECT_TRUE(test::directory_entries(dir_.path()).empty());
}

TEST_P(StagedOutput, MoveKeepsOneOwner) {
  OutputFile a = create(dir_.file("out"));
  const std::vector<std::string> staged = staged_entries(a);
  OutputFile b(std::move(a));
  EXPECT_EQ(b.staging(), GetParam());
  write_bytes(b, test::pattern_bytes(100, 3));
  EXPECT_EQ(test::directory_entries(dir_.path()), staged);
  OutputFile c = create(dir_.file("other"));
  c = std::move(b);  // discards what c had
  EXPECT_EQ(test::directory_entries(dir_.path()), staged);
  c.commit();
  EXPECT_EQ(test::directory_entries(dir_.path()), std::vector<std::string>{"out"});
  EXPECT_TRUE(test::read_plain_file(dir_.file("out")) == test::pattern_bytes(100, 3));
}

TEST_P(StagedOutput, MissingDirectoryNamesThePathAndTheDirectoryAndCreatesNothing) {
  const std::string path = dir_.file("no/such/dir/out.bin");
  try {
    OutputFile output = create(path);
    FAIL() << "created " << path;
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), path + ": cannot create output file in " + dir_.file("no/such/dir/") +
                                             ": No such file or directory");
  }
  EXPECT_TRUE(test::directory_entries(dir_.path()).empty());
}

// -o DIR/ names no file: said so, rather than "Is a directory" for a directory that does not exist
// (an existing one is "is a directory", DirectoryIsRefused).
TEST(OutputFile, APathEndingInASlashIsRefusedAsNamingADirectory) {
  for (const std::string& path : {std::string("/var/tmp/no-such-dir-of-rmgsort/"), std::string("no-such-dir/")}) {
    try {
      (void)OutputFile::create(path);
      ADD_FAILURE() << path << ": created";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), path + ": names a directory (it ends in '/'), not an output file");
    }
  }
}

// A name longer than a directory entry may be is refused when the output is created, not when the
// finished run would link it into place.
TEST_P(StagedOutput, ANameTooLongIsRefusedAtCreation) {
  const std::string path = dir_.file(std::string(NAME_MAX + 1, 'n'));
  try {
    (void)create(path);
    FAIL() << "created";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("File name too long"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(test::directory_entries(dir_.path()).empty());
  const OutputFile longest = create(dir_.file(std::string(NAME_MAX, 'n')));  // the longest is fine
  EXPECT_TRUE(longest.fd() >= 0);
}

TEST(OutputFile, DirectoryIsRefused) {
  test::TempDir dir(test::disk_directory());
  try {
    OutputFile output = OutputFile::create(dir.path());
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), dir.path() + ": is a directory, not a file to write");
  }
}

TEST_P(StagedOutput, OutputMayBeTheInput) {
  const std::string path = dir_.file("keys");
  const std::vector<std::byte> before = test::pattern_bytes(3 << 20, 1);
  const std::vector<std::byte> after = test::pattern_bytes(3 << 20, 2);
  test::write_plain_file(path, before);
  const InputFile input = open_input(path);
  OutputFile output = create(path);
  write_bytes(output, after);
  HostBuffer buffer(input.size);
  (void)read_file(input, buffer.data(), input.size);
  EXPECT_TRUE(std::equal(before.begin(), before.end(), buffer.data()));
  output.commit();
  EXPECT_TRUE(test::read_plain_file(path) == after);
}

TEST_P(StagedOutput, SymbolicLinkReplacesItsTarget) {
  test::write_plain_file(dir_.file("target"), test::pattern_bytes(10, 1));
  ASSERT_EQ(symlink("target", dir_.file("link").c_str()), 0);
  OutputFile output = create(dir_.file("link"));
  write_bytes(output, test::pattern_bytes(20, 2));
  output.commit();
  struct stat st {};
  ASSERT_EQ(lstat(dir_.file("link").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_TRUE(test::read_plain_file(dir_.file("target")) == test::pattern_bytes(20, 2));
  EXPECT_EQ(test::directory_entries(dir_.path()).size(), 2u);
}

// A dangling link (or chain of links) creates the missing file it names, as GNU sort -o does; the
// links stay links.
TEST_P(StagedOutput, DanglingSymbolicLinkCreatesItsTarget) {
  ASSERT_EQ(mkdir(dir_.file("sub").c_str(), 0755), 0);
  ASSERT_EQ(symlink("sub/second", dir_.file("first").c_str()), 0);
  ASSERT_EQ(symlink("../made", dir_.file("sub/second").c_str()), 0);
  for (const char* name : {"first", "sub/second"}) {
    OutputFile output = create(dir_.file(name));
    write_bytes(output, test::pattern_bytes(20, 3));
    output.commit();
    struct stat st {};
    for (const char* link : {"first", "sub/second"}) {
      ASSERT_EQ(lstat(dir_.file(link).c_str(), &st), 0);
      EXPECT_TRUE(S_ISLNK(st.st_mode)) << link << " after -o " << name;
    }
    EXPECT_TRUE(test::read_plain_file(dir_.file("made")) == test::pattern_bytes(20, 3)) << name;
    ASSERT_EQ(unlink(dir_.file("made").c_str()), 0);
  }
}

TEST_P(StagedOutput, DanglingLinkIntoAMissingDirectoryOrALoopIsAnErrorNamingTheOutput) {
  ASSERT_EQ(symlink("nodir/out", dir_.file("lost").c_str()), 0);
  ASSERT_EQ(symlink("loop", dir_.file("loop").c_str()), 0);
  for (const char* name : {"lost", "loop"}) {
    try {
      OutputFile output = create(dir_.file(name));
      ADD_FAILURE() << name << ": no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(dir_.file(name)), std::string::npos) << e.what();
      // The dangling link's target, and its missing directory, are named too.
      if (std::string(name) == "lost") {
        EXPECT_NE(std::string(e.what()).find("(a link to " + dir_.file("nodir/out") + ")"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("in " + dir_.file("nodir/")), std::string::npos) << e.what();
      }
    }
  }
  EXPECT_EQ(test::directory_entries(dir_.path()).size(), 2u) << "nothing created, the links kept";
}

TEST_P(StagedOutput, RelativePathInTheWorkingDirectory) {
  const std::string saved = std::filesystem::current_path();
  ASSERT_EQ(chdir(dir_.path().c_str()), 0);
  {
    test::write_plain_file("out", test::pattern_bytes(10, 1));
    OutputFile output = create("out");
    write_bytes(output, test::pattern_bytes(30, 2));
    output.commit();
  }
  ASSERT_EQ(chdir(saved.c_str()), 0);
  EXPECT_TRUE(test::read_plain_file(dir_.file("out")) == test::pattern_bytes(30, 2));
  EXPECT_EQ(test::directory_entries(dir_.path()), std::vector<std::string>{"out"});
}

TEST(OutputFile, DevNullIsWrittenInPlace) {
  OutputFile output = OutputFile::create("/dev/null");
  EXPECT_EQ(output.staging(), OutputFile::Staging::in_place);
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
    EXPECT_EQ(output.staging(), OutputFile::Staging::in_place);
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

TEST_P(StagedOutput, TerminationSignalLeavesNothing) {
  const std::string path = dir_.file("out");
  const std::vector<std::byte> old = test::pattern_bytes(100, 1);
  test::write_plain_file(path, old);
  const int status = test::run_in_child([&] {
    install_cleanup_signal_handlers();
    OutputFile output = create(path);
    write_bytes(output, test::pattern_bytes(1 << 20, 2));
    raise(SIGTERM);
    return 0;  // not reached
  });
  EXPECT_TRUE(test::killed_by(status, SIGTERM));
  EXPECT_EQ(test::directory_entries(dir_.path()), std::vector<std::string>{"out"});
  EXPECT_TRUE(test::read_plain_file(path) == old);
}

}  // namespace
}  // namespace rmgsort
