// How an output waits for its commit: a file with no name (O_TMPFILE) that nothing but the process
// holds, so that even SIGKILL leaves nothing; how commit() names it (a link, and a rename over an
// existing output); and what a failed link or rename leaves (nothing, the old output intact).
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/output_file.hpp"
#include "io/uring_writer.hpp"
#include "output_file_test_support.hpp"

namespace rmgsort {
namespace {

constexpr uid_t kNobody = 65534;

void write_bytes(const OutputFile& output, const std::vector<std::byte>& data) {
  (void)write_file(output.fd(), output.display_name(), data.data(), data.size());
}

// Becomes the unprivileged user nobody (in a child): no capability reaches past permissions then.
bool become_nobody() {
  return setgroups(0, nullptr) == 0 && setresgid(kNobody, kNobody, kNobody) == 0 &&
         setresuid(kNobody, kNobody, kNobody) == 0;
}

// Skips a test of the anonymous staging where DIRECTORY's file system has no O_TMPFILE.
#define REQUIRE_ANONYMOUS_FILES(directory)                                                   \
  if (!test::supports_anonymous_files(directory)) GTEST_SKIP() << (directory) << " does not support O_TMPFILE"

// The point of O_TMPFILE: while the output is written, the directory lists no new entry, on a disk
// and in memory (tmpfs, where the output is written through a mapping).
TEST(OutputFileStaging, NothingIsNamedBeforeCommit) {
  for (const std::string& base : {test::disk_directory(), test::memory_directory()}) {
    SCOPED_TRACE(base);
    if (!test::supports_anonymous_files(base)) continue;
    test::TempDir dir(base);
    const std::string path = dir.file("sorted.bin");
    const std::vector<std::byte> old = test::pattern_bytes(4000, 1);
    const std::vector<std::byte> data = test::pattern_bytes(3 << 20, 2);
    for (const bool exists : {false, true}) {
      if (exists) test::write_plain_file(path, old);
      const std::vector<std::string> before = test::sorted_entries(dir.path());
      OutputFile output = OutputFile::create(path);
      EXPECT_EQ(output.staging(), OutputFile::Staging::anonymous);
      EXPECT_TRUE(output.temp_path().empty());
      write_bytes(output, data);
      output.finish_writing();
      EXPECT_EQ(test::sorted_entries(dir.path()), before);
      if (exists) {
        EXPECT_TRUE(test::read_plain_file(path) == old);
      }
      output.commit();
      EXPECT_EQ(test::sorted_entries(dir.path()), std::vector<std::string>{"sorted.bin"});
      EXPECT_TRUE(test::read_plain_file(path) == data);
    }
  }
}

// SIGKILL cannot be caught: the anonymous file goes with the process's descriptors, and the existing
// output was never touched.
TEST(OutputFileStaging, SigkillLeavesNothing) {
  test::TempDir dir(test::disk_directory());
  REQUIRE_ANONYMOUS_FILES(dir.path());
  const std::string path = dir.file("out");
  const std::vector<std::byte> old = test::pattern_bytes(5000, 1);
  test::write_plain_file(path, old);
  for (const std::string& target : {path, dir.file("new")}) {
    const int status = test::run_in_child([&] {
      OutputFile output = OutputFile::create(target);
      write_bytes(output, test::pattern_bytes(1 << 20, 2));
      output.finish_writing();
      raise(SIGKILL);
      return 0;  // not reached
    });
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(WTERMSIG(status), SIGKILL);
    EXPECT_EQ(test::directory_entries(dir.path()), std::vector<std::string>{"out"});
    EXPECT_TRUE(test::read_plain_file(path) == old);
  }
}

// Another process made the output after create() (it did not exist then): commit() replaces it, by a
// fresh name renamed over it, and leaves no other name.
TEST(OutputFileStaging, OutputMadeMeanwhileIsReplaced) {
  test::TempDir dir(test::disk_directory());
  REQUIRE_ANONYMOUS_FILES(dir.path());
  const std::string path = dir.file("out");
  OutputFile output = OutputFile::create(path);
  write_bytes(output, test::pattern_bytes(300, 2));
  test::write_plain_file(path, test::pattern_bytes(100, 1));
  output.commit();
  EXPECT_TRUE(test::read_plain_file(path) == test::pattern_bytes(300, 2));
  EXPECT_EQ(test::directory_entries(dir.path()), std::vector<std::string>{"out"});
}

// Two runs writing one output: each commit replaces the output whole; the last one stays.
TEST(OutputFileStaging, TwoOutputsOfOnePathEachCommitWhole) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("out");
  for (const bool named : {false, true}) {
    SCOPED_TRACE(named ? "named" : "anonymous");
    OutputFile a = named ? OutputFile::create_named(path) : OutputFile::create(path);
    OutputFile b = named ? OutputFile::create_named(path) : OutputFile::create(path);
    write_bytes(a, test::pattern_bytes(70000, 1));
    write_bytes(b, test::pattern_bytes(50000, 2));
    b.commit();
    EXPECT_TRUE(test::read_plain_file(path) == test::pattern_bytes(50000, 2));
    a.commit();
    EXPECT_TRUE(test::read_plain_file(path) == test::pattern_bytes(70000, 1));
    EXPECT_EQ(test::directory_entries(dir.path()), std::vector<std::string>{"out"});
  }
}

// The rename over the output fails (a directory took its place after create()): the error names the
// output, the link made for the rename is gone, and what is at the path is untouched.
TEST(OutputFileStaging, FailedRenameLeavesNothing) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("out");
  for (const bool named : {false, true}) {
    SCOPED_TRACE(named ? "named" : "anonymous");
    if (!named && !test::supports_anonymous_files(dir.path())) continue;
    test::write_plain_file(path, test::pattern_bytes(100, 1));
    OutputFile output = named ? OutputFile::create_named(path) : OutputFile::create(path);
    write_bytes(output, test::pattern_bytes(200, 2));
    ASSERT_EQ(unlink(path.c_str()), 0);
    ASSERT_EQ(mkdir(path.c_str(), 0755), 0);
    test::write_plain_file(path + "/inside", test::pattern_bytes(10, 3));
    try {
      output.commit();
      ADD_FAILURE() << "commit() renamed over a directory";
    } catch (const Error& error) {
      const std::string expected = named ? path + ": cannot rename the temporary file " + output.temp_path() +
                                               " into place: Is a directory"
                                         : path + ": cannot rename the new output into place: Is a directory";
      EXPECT_EQ(std::string(error.what()), expected);
    }
    EXPECT_FALSE(output.committed());
    output.discard();
    EXPECT_EQ(test::directory_entries(dir.path()), std::vector<std::string>{"out"});
    EXPECT_EQ(test::directory_entries(path), std::vector<std::string>{"inside"});
    ASSERT_EQ(unlink((path + "/inside").c_str()), 0);
    ASSERT_EQ(rmdir(path.c_str()), 0);
  }
}

// The link fails (the directory became read-only after create()): the error names the output, nothing
// is left and the existing output is intact. As an unprivileged user, whom permissions bind.
TEST(OutputFileStaging, FailedLinkLeavesTheOutputIntact) {
  if (geteuid() != 0) GTEST_SKIP() << "running as another user needs root";
  test::TempDir base(test::disk_directory());
  REQUIRE_ANONYMOUS_FILES(base.path());
  ASSERT_EQ(chmod(base.path().c_str(), 0755), 0);
  const std::string dir = base.file("nobodys");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  ASSERT_EQ(chown(dir.c_str(), kNobody, kNobody), 0);
  const std::string path = dir + "/out";
  const std::vector<std::byte> old = test::pattern_bytes(1000, 1);
  for (const bool exists : {false, true}) {
    if (exists) {
      test::write_plain_file(path, old);
      ASSERT_EQ(chown(path.c_str(), kNobody, kNobody), 0);
    }
    const int status = test::run_in_child([&] {
      if (!become_nobody()) return 90;
      OutputFile output = OutputFile::create(path);
      if (output.staging() != OutputFile::Staging::anonymous) return 91;
      write_bytes(output, test::pattern_bytes(2000, 2));
      if (chmod(dir.c_str(), 0555) != 0) return 92;
      try {
        output.commit();
        return 93;
      } catch (const Error& error) {
        return std::string(error.what()) == path + ": cannot link the new output into its directory: Permission denied"
                   ? 0
                   : 94;
      }
    });
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    ASSERT_EQ(chmod(dir.c_str(), 0755), 0);
    EXPECT_EQ(test::directory_entries(dir), exists ? std::vector<std::string>{"out"} : std::vector<std::string>{});
    if (exists) {
      EXPECT_TRUE(test::read_plain_file(path) == old);
    }
  }
}

// A shared, sticky, world-writable directory (/tmp) and an unprivileged user: the file is linked
// without any capability (through /proc/self/fd), a new output and one replacing the user's own.
TEST(OutputFileStaging, UnprivilegedUserInAStickyWorldWritableDirectory) {
  if (geteuid() != 0) GTEST_SKIP() << "running as another user needs root";
  test::TempDir dir(test::disk_directory());
  REQUIRE_ANONYMOUS_FILES(dir.path());
  ASSERT_EQ(chmod(dir.path().c_str(), 01777), 0);
  const std::string path = dir.file("out");
  for (int run = 0; run < 2; ++run) {  // the first creates the output, the second replaces it
    const int status = test::run_in_child([&] {
      if (!become_nobody()) return 90;
      umask(077);
      OutputFile output = OutputFile::create(path);
      if (output.staging() != OutputFile::Staging::anonymous) return 91;
      write_bytes(output, test::pattern_bytes(5000, std::uint64_t(run)));
      output.commit();
      return 0;
    });
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_TRUE(test::read_plain_file(path) == test::pattern_bytes(5000, std::uint64_t(run)));
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, kNobody);
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    EXPECT_EQ(test::directory_entries(dir.path()), std::vector<std::string>{"out"});
  }
}

}  // namespace
}  // namespace rmgsort
