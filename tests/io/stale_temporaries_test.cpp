// What a killed run leaves of a staged output, and how the next run writing that output removes it
// (io/stale_temporaries.hpp): the temporary names no live process locks, and nothing else.
#include "io/stale_temporaries.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/output_file.hpp"
#include "io/unique_fd.hpp"
#include "io/uring_writer.hpp"
#include "output_file_test_support.hpp"

namespace rmgsort {
namespace {

constexpr uid_t kNobody = 65534;

void write_bytes(const OutputFile& output, const std::vector<std::byte>& data) {
  (void)write_file(output.fd(), output.display_name(), data.data(), data.size());
}

// The entries of DIRECTORY other than NAME: what a run writing NAME left beside it.
std::vector<std::string> others_than(const std::string& directory, const std::string& name) {
  std::vector<std::string> others;
  for (const std::string& entry : test::sorted_entries(directory))
    if (entry != name) others.push_back(entry);
  return others;
}

// A pipe a child and its parent wait on each other through: one byte each way.
class Handshake {
 public:
  Handshake() {
    if (pipe(to_parent_) != 0 || pipe(to_child_) != 0) throw std::runtime_error("pipe");
  }
  ~Handshake() {
    for (int fd : {to_parent_[0], to_parent_[1], to_child_[0], to_child_[1]}) close(fd);
  }
  Handshake(const Handshake&) = delete;
  Handshake& operator=(const Handshake&) = delete;
  void tell_parent() const { (void)!write(to_parent_[1], "r", 1); }
  [[nodiscard]] bool parent_heard() const { return read_one(to_parent_[0]); }
  void tell_child() const { (void)!write(to_child_[1], "g", 1); }
  [[nodiscard]] bool child_heard() const { return read_one(to_child_[0]); }

 private:
  static bool read_one(int fd) {
    char byte = 0;
    return read(fd, &byte, 1) == 1;
  }
  int to_parent_[2]{-1, -1};
  int to_child_[2]{-1, -1};
};

TEST(StaleTemporaries, NamesDrawnAreThePatternRemoved) {
  const std::string prefix = temporary_prefix("sorted.bin");
  EXPECT_EQ(prefix, ".sorted.bin.rmgsort-");
  for (int i = 0; i < 100; ++i) {
    const std::string name = temporary_name("sorted.bin");
    EXPECT_TRUE(is_temporary_name(name, prefix)) << name;
    EXPECT_NE(name, temporary_name("sorted.bin"));
  }
  const std::string longest(NAME_MAX, 'x');
  const std::string drawn = temporary_name(longest);
  EXPECT_LE(drawn.size(), std::size_t{NAME_MAX});
  EXPECT_TRUE(is_temporary_name(drawn, temporary_prefix(longest)));
  for (const char* other : {".sorted.bin.rmgsort-ABCDE", ".sorted.bin.rmgsort-ABCDEFG", ".sorted.bin.rmgsort-ABC_EF",
                            ".sorted.bin.rmgsort-ABC/EF", "sorted.bin.rmgsort-ABCDEF", ".sorted.bin.rmgsort-",
                            ".sorted.bi.rmgsort-ABCDEF", ".sorted.binx.rmgsort-ABCDE"})
    EXPECT_FALSE(is_temporary_name(other, prefix)) << other;
}

// The named fallback's whole output, which only the signal handlers and the destructor unlink:
// SIGKILL leaves it, and the next run writing that output, either staging, removes it.
TEST(StaleTemporaries, WhatSigkillLeftTheNextRunRemoves) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("out");
  const std::vector<std::byte> old = test::pattern_bytes(5000, 1);
  for (const bool exists : {false, true}) {
    for (const bool next_named : {false, true}) {
      SCOPED_TRACE(std::string(exists ? "replacing" : "new") + (next_named ? ", named" : ", anonymous"));
      if (exists) test::write_plain_file(path, old);
      const int status = test::run_in_child([&] {
        OutputFile output = OutputFile::create_named(path);
        write_bytes(output, test::pattern_bytes(1 << 20, 2));
        output.finish_writing();
        raise(SIGKILL);
        return 0;  // not reached
      });
      ASSERT_TRUE(test::killed_by(status, SIGKILL));
      const std::vector<std::string> left = others_than(dir.path(), "out");
      ASSERT_EQ(left.size(), 1u);
      EXPECT_TRUE(is_temporary_name(left[0], temporary_prefix("out")));

      OutputFile next = next_named ? OutputFile::create_named(path) : OutputFile::create(path);
      const std::vector<std::string> its_own =
          next_named ? std::vector<std::string>{next.temp_path().substr(dir.path().size() + 1)} : std::vector<std::string>{};
      EXPECT_EQ(others_than(dir.path(), "out"), its_own);
      write_bytes(next, test::pattern_bytes(3000, 3));
      next.commit();
      EXPECT_EQ(test::sorted_entries(dir.path()), std::vector<std::string>{"out"});
      EXPECT_TRUE(test::read_plain_file(path) == test::pattern_bytes(3000, 3));
      ASSERT_EQ(unlink(path.c_str()), 0);
    }
  }
}

// An unlocked file by a temporary name is what SIGKILL leaves between the link of an anonymous file
// and its rename over the output: removed the same way, from a relative path too.
TEST(StaleTemporaries, AnUnlockedTemporaryNameIsRemoved) {
  test::TempDir dir(test::disk_directory());
  const std::string stale = temporary_name("out");
  test::write_plain_file(dir.file(stale), test::pattern_bytes(100, 1));
  EXPECT_EQ(remove_stale_temporaries(dir.path() + "/", "other"), 0u);
  EXPECT_EQ(remove_stale_temporaries(dir.path() + "/", "out"), 1u);
  EXPECT_EQ(test::sorted_entries(dir.path()), std::vector<std::string>{});

  test::write_plain_file(dir.file(stale), test::pattern_bytes(100, 1));
  char* previous = getcwd(nullptr, 0);
  ASSERT_EQ(chdir(dir.path().c_str()), 0);
  const std::size_t removed = remove_stale_temporaries("", "out");
  ASSERT_EQ(chdir(previous), 0);
  free(previous);
  EXPECT_EQ(removed, 1u);
  EXPECT_EQ(test::sorted_entries(dir.path()), std::vector<std::string>{});
}

// A live run's staged file is locked as long as it is its own, writing or finished and waiting for
// its commit: another run writing the same output leaves it, and both commit whole.
TEST(StaleTemporaries, ALiveRunsFileIsKept) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("out");
  for (const bool finished : {false, true}) {
    SCOPED_TRACE(finished ? "finished writing" : "writing");
    Handshake handshake;
    const pid_t child = fork();
    if (child == 0) {
      int code = 0;
      try {
        OutputFile output = OutputFile::create_named(path);
        write_bytes(output, test::pattern_bytes(4000, 2));
        if (finished) output.finish_writing();
        handshake.tell_parent();
        if (!handshake.child_heard()) _exit(90);
        if (!finished) write_bytes(output, test::pattern_bytes(4000, 3));
        output.commit();
      } catch (...) {
        code = 91;
      }
      _exit(code);
    }
    ASSERT_TRUE(handshake.parent_heard());
    const std::vector<std::string> live = others_than(dir.path(), "out");
    ASSERT_EQ(live.size(), 1u);
    {
      OutputFile other = OutputFile::create(path);
      EXPECT_EQ(others_than(dir.path(), "out"), live);
      write_bytes(other, test::pattern_bytes(100, 4));
      other.commit();
    }
    EXPECT_EQ(remove_stale_temporaries(dir.path() + "/", "out"), 0u);
    handshake.tell_child();
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_EQ(test::sorted_entries(dir.path()), std::vector<std::string>{"out"});
    std::vector<std::byte> expected = test::pattern_bytes(4000, 2);
    if (!finished) {
      const std::vector<std::byte> more = test::pattern_bytes(4000, 3);
      expected.insert(expected.end(), more.begin(), more.end());
    }
    EXPECT_TRUE(test::read_plain_file(path) == expected);
  }
}

// Whoever locks first owns the file: a second open file description of it cannot take the lock, and
// a file locked so (in this process or another) is not removed.
TEST(StaleTemporaries, TheFirstLockWins) {
  test::TempDir dir(test::disk_directory());
  const std::string name = temporary_name("out");
  test::write_plain_file(dir.file(name), test::pattern_bytes(10, 1));
  const UniqueFd first(open(dir.file(name).c_str(), O_WRONLY | O_CLOEXEC));
  const UniqueFd second(open(dir.file(name).c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(first.valid() && second.valid());
  EXPECT_TRUE(lock_as_live(first.get(), AT_FDCWD, dir.file(name).c_str()));
  EXPECT_FALSE(lock_as_live(second.get(), AT_FDCWD, dir.file(name).c_str()));
  EXPECT_EQ(remove_stale_temporaries(dir.path() + "/", "out"), 0u);
  EXPECT_EQ(test::sorted_entries(dir.path()), std::vector<std::string>{name});
}

// A remover that finds a file between its creation and its lock removes it and lets go of its lock:
// the creator then gets the lock, but learns the name is gone, and does not use the file.
TEST(StaleTemporaries, ALockTakenAfterARemoverIsRefused) {
  test::TempDir dir(test::disk_directory());
  const std::string name = temporary_name("out");
  const UniqueFd created(open(dir.file(name).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
  ASSERT_TRUE(created.valid());
  EXPECT_EQ(remove_stale_temporaries(dir.path() + "/", "out"), 1u);
  EXPECT_FALSE(lock_as_live(created.get(), AT_FDCWD, dir.file(name).c_str()));
  // A file put under the name meanwhile is not the one locked either.
  test::write_plain_file(dir.file(name), test::pattern_bytes(10, 1));
  EXPECT_FALSE(lock_as_live(created.get(), AT_FDCWD, dir.file(name).c_str()));
}

// A file the run reads is never removed, whatever its name: a user may sort what a killed run left.
TEST(StaleTemporaries, TheRunsInputsAreKept) {
  test::TempDir dir(test::disk_directory());
  const std::string name = temporary_name("kept");
  test::write_plain_file(dir.file(name), test::pattern_bytes(800, 1));
  keep_inputs({dir.file("missing"), dir.file(name)});
  EXPECT_EQ(remove_stale_temporaries(dir.path() + "/", "kept"), 0u);
  OutputFile output = OutputFile::create(dir.file("kept"));
  EXPECT_EQ(test::sorted_entries(dir.path()), std::vector<std::string>{name});
  EXPECT_TRUE(test::read_plain_file(dir.file(name)) == test::pattern_bytes(800, 1));
}

// Only regular files of the effective user by exactly the pattern go: not other names, a link by
// the pattern (nor what it points to), a directory, a FIFO, or another user's file.
TEST(StaleTemporaries, OnlyTheOutputsOwnStaleFilesAreRemoved) {
  test::TempDir dir(test::disk_directory());
  const std::vector<std::string> plain = {".out.rmgsort-ABCDE", ".out.rmgsort-ABCDEFG", ".out.rmgsort-ABC_EF",
                                          ".other.rmgsort-ABCDEF", "out.rmgsort-ABCDEF", "target"};
  for (const std::string& name : plain) test::write_plain_file(dir.file(name), test::pattern_bytes(10, 1));
  ASSERT_EQ(symlink("target", dir.file(".out.rmgsort-LINKED").c_str()), 0);
  ASSERT_EQ(mkdir(dir.file(".out.rmgsort-DIRECT").c_str(), 0755), 0);
  ASSERT_EQ(mkfifo(dir.file(".out.rmgsort-FIFO00").c_str(), 0644), 0);
  if (geteuid() == 0) {
    test::write_plain_file(dir.file(".out.rmgsort-NOBODY"), test::pattern_bytes(10, 1));
    ASSERT_EQ(chown(dir.file(".out.rmgsort-NOBODY").c_str(), kNobody, kNobody), 0);
  }
  const std::vector<std::string> before = test::sorted_entries(dir.path());
  EXPECT_EQ(remove_stale_temporaries(dir.path() + "/", "out"), 0u);
  OutputFile output = OutputFile::create(dir.file("out"));
  EXPECT_EQ(test::sorted_entries(dir.path()), before);
  EXPECT_TRUE(test::read_plain_file(dir.file("target")) == test::pattern_bytes(10, 1));
}

// A directory that cannot be listed removes nothing and says nothing: creating the output says what
// is wrong with it.
TEST(StaleTemporaries, AMissingDirectoryRemovesNothing) {
  test::TempDir dir(test::disk_directory());
  EXPECT_EQ(remove_stale_temporaries(dir.file("missing") + "/", "out"), 0u);
  EXPECT_THROW((void)OutputFile::create(dir.file("missing/out")), Error);
}

}  // namespace
}  // namespace rmgsort
