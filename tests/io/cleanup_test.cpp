#include "io/cleanup.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <thread>

#include <string>
#include <vector>

#include "io/blocking_io.hpp"
#include "core/error.hpp"
#include "io/unique_fd.hpp"
#include "io_test_support.hpp"

namespace rmgsort {
namespace {

void touch(const std::string& path) { test::write_plain_file(path, test::pattern_bytes(10)); }

// In a child that starts with SIGNAL at DISPOSITION (the default: whatever ran the tests may have left
// SIGINT ignored): registers REGISTERED, leaves KEPT unregistered, then raises SIGNAL.
int status_after_signal(int signal_number, const std::vector<std::string>& registered, const std::string& kept,
                        sighandler_t disposition = SIG_DFL) {
  return test::run_in_child([&] {
    signal(signal_number, disposition);
    install_cleanup_signal_handlers();
    for (const std::string& path : registered) {
      touch(path);
      (void)register_cleanup_path(path);
    }
    touch(kept);
    const int unregistered_slot = register_cleanup_path(kept);
    unregister_cleanup_path(unregistered_slot);
    raise(signal_number);
    return 0;  // reached only when SIGNAL is ignored
  });
}

TEST(Cleanup, SigtermUnlinksRegisteredPathsAndEndsTheProcess) {
  test::TempDir dir(test::disk_directory());
  const std::vector<std::string> registered = {dir.file("a.tmp"), dir.file("b.tmp")};
  const int status = status_after_signal(SIGTERM, registered, dir.file("kept"));
  EXPECT_TRUE(test::killed_by(status, SIGTERM));
  EXPECT_FALSE(test::file_exists(registered[0]));
  EXPECT_FALSE(test::file_exists(registered[1]));
  EXPECT_TRUE(test::file_exists(dir.file("kept")));
}

// Ended by the signal itself (a shell shows 130 and 129), so that a script a Ctrl-C interrupts stops.
TEST(Cleanup, SigintAndSighupEndTheProcessAsTheSignalDoes) {
  for (const int signal_number : {SIGINT, SIGHUP}) {
    test::TempDir dir(test::disk_directory());
    const int status = status_after_signal(signal_number, {dir.file("x.tmp")}, dir.file("kept"));
    EXPECT_TRUE(test::killed_by(status, signal_number));
    EXPECT_FALSE(test::file_exists(dir.file("x.tmp")));
  }
}

// nohup, or `cmd &` in a script: the caller asked that SIGHUP or SIGINT not stop the run.
TEST(Cleanup, InheritedIgnoreOfSighupAndSigintIsKept) {
  for (int signal_number : {SIGHUP, SIGINT}) {
    test::TempDir dir(test::disk_directory());
    const int status = status_after_signal(signal_number, {dir.file("x.tmp")}, dir.file("kept"), SIG_IGN);
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 0) << strsignal(signal_number);  // raise() returned: ignored
    EXPECT_TRUE(test::file_exists(dir.file("x.tmp"))) << strsignal(signal_number);
  }
}

TEST(Cleanup, SigtermIsHandledEvenWhenInheritedIgnored) {
  test::TempDir dir(test::disk_directory());
  const int status = status_after_signal(SIGTERM, {dir.file("x.tmp")}, dir.file("kept"), SIG_IGN);
  EXPECT_TRUE(test::killed_by(status, SIGTERM));
  EXPECT_FALSE(test::file_exists(dir.file("x.tmp")));
}

// Ctrl-\, `timeout -s ALRM`, `ulimit -t` and the like terminate as surely as SIGTERM: each is
// handled, nothing registered left, and ends the process itself (a shell: status 128 + signal).
TEST(Cleanup, EveryTerminatingSignalUnlinksRegisteredPathsAndEndsTheProcess) {
  for (int signal_number : {SIGQUIT, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF, SIGUSR1, SIGUSR2, SIGIO}) {
    test::TempDir dir(test::disk_directory());
    const int status = status_after_signal(signal_number, {dir.file("x.tmp")}, dir.file("kept"));
    EXPECT_TRUE(test::killed_by(status, signal_number));
    EXPECT_FALSE(test::file_exists(dir.file("x.tmp"))) << strsignal(signal_number);
    EXPECT_TRUE(test::file_exists(dir.file("kept"))) << strsignal(signal_number);
  }
}

TEST(Cleanup, InheritedIgnoreOfSigquitAndSigusr1IsKept) {
  for (int signal_number : {SIGQUIT, SIGUSR1}) {
    test::TempDir dir(test::disk_directory());
    const int status = status_after_signal(signal_number, {dir.file("x.tmp")}, dir.file("kept"), SIG_IGN);
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 0) << strsignal(signal_number);
    EXPECT_TRUE(test::file_exists(dir.file("x.tmp"))) << strsignal(signal_number);
  }
}

// A child whose standard output is PATH (3 bytes, opened for appending), with the size to restore
// set to 3 and then to RESTORE, grown to GROWN bytes (the preallocation of the whole output) and then
// sent SIGTERM; its wait status.
int status_after_growing_stdout(const std::string& path, std::int64_t restore, off_t grown) {
  test::write_plain_file(path, test::pattern_bytes(3));
  return test::run_in_child([&] {
    install_cleanup_signal_handlers();
    UniqueFd fd(open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
    if (!fd.valid() || dup2(fd.get(), STDOUT_FILENO) != STDOUT_FILENO) return 10;
    set_stdout_restore_size(3);
    set_stdout_restore_size(restore);
    if (ftruncate(STDOUT_FILENO, grown) != 0) return 11;
    raise(SIGTERM);
    return 12;
  });
}

// A regular standard output written in place: a signal cuts it back to its size before the run.
TEST(Cleanup, SignalCutsRememberedStandardOutputBack) {
  test::TempDir dir(test::disk_directory());
  const int status = status_after_growing_stdout(dir.file("stdout"), 3, 1 << 20);
  EXPECT_TRUE(test::killed_by(status, SIGTERM));
  EXPECT_EQ(test::read_plain_file(dir.file("stdout")), test::pattern_bytes(3));
}

// Threads still growing standard output's file when the signal comes (a chunk written, a mapped
// writer's ftruncate before its next piece) do not grow it again after the cut-back: the handler
// lowers the file size limit first. Before it did, one run in a few left the file grown.
TEST(Cleanup, WritersStillGrowingStandardOutputDoNotUndoTheCutBack) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("stdout");
  for (int attempt = 0; attempt < 20; ++attempt) {
    test::write_plain_file(path, test::pattern_bytes(3));
    const int status = test::run_in_child([&] {
      install_cleanup_signal_handlers();
      UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
      if (!fd.valid() || dup2(fd.get(), STDOUT_FILENO) != STDOUT_FILENO) return 10;
      set_stdout_restore_size(3);
      std::atomic<int> started{0};
      auto grow_by_truncation = [&] {
        started.fetch_add(1);
        for (off_t size = 4096;; size += 4096) (void)ftruncate(STDOUT_FILENO, size);
      };
      auto grow_by_writes = [&] {
        started.fetch_add(1);
        const std::vector<std::byte> block = test::pattern_bytes(4096);
        for (off_t at = 4096;; at += 4096) (void)pwrite(STDOUT_FILENO, block.data(), block.size(), at);
      };
      std::thread(grow_by_truncation).detach();
      std::thread(grow_by_writes).detach();
      while (started.load() < 2) std::this_thread::yield();
      usleep(2000);
      kill(getpid(), SIGTERM);  // to any thread: the process's
      for (;;) pause();
    });
    ASSERT_TRUE(test::killed_by(status, SIGTERM)) << "attempt " << attempt << ", status " << status;
    ASSERT_EQ(test::read_plain_file(path), test::pattern_bytes(3)) << "attempt " << attempt;
  }
}

// Once committed (the size forgotten: -1), a signal leaves standard output as it is.
TEST(Cleanup, ForgottenStandardOutputIsLeftAlone) {
  test::TempDir dir(test::disk_directory());
  const int status = status_after_growing_stdout(dir.file("stdout"), -1, 100);
  EXPECT_TRUE(test::killed_by(status, SIGTERM));
  EXPECT_EQ(test::read_plain_file(dir.file("stdout")).size(), 100u);
}

// Past RLIMIT_FSIZE the kernel raises SIGXFSZ, whose default kills the process and leaves its
// temporary files; ignored, the write fails with EFBIG and the writer reports it.
TEST(Cleanup, WritingPastTheFileSizeLimitFailsWithEfbig) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("limited");
  const int status = test::run_in_child([&] {
    install_cleanup_signal_handlers();
    const rlimit limit{4096, 4096};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 10;
    UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    const std::vector<std::byte> data = test::pattern_bytes(3 * 4096);
    try {
      write_all(fd.get(), path, data.data(), data.size());
    } catch (const Error& error) {
      const bool names_file = std::string(error.what()) == path + ": write failed: File too large";
      return error.error_number() == EFBIG && names_file ? 7 : 11;
    }
    return 12;
  });
  ASSERT_TRUE(WIFEXITED(status)) << "killed by " << (WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "?");
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

TEST(Cleanup, SigpipeIsIgnored) {
  const int status = test::run_in_child([] {
    install_cleanup_signal_handlers();
    raise(SIGPIPE);
    return 5;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 5);
}

TEST(Cleanup, SigpipeInheritedIgnoredIsRemembered) {
  const auto inherited_ignore_seen = [](bool ignored) {
    return test::run_in_child([ignored] {
      signal(SIGPIPE, ignored ? SIG_IGN : SIG_DFL);
      install_cleanup_signal_handlers();
      return sigpipe_inherited_ignored() ? 1 : 0;
    });
  };
  const int ignored = inherited_ignore_seen(true);
  ASSERT_TRUE(WIFEXITED(ignored));
  EXPECT_EQ(WEXITSTATUS(ignored), 1);
  const int handled = inherited_ignore_seen(false);
  ASSERT_TRUE(WIFEXITED(handled));
  EXPECT_EQ(WEXITSTATUS(handled), 0);
}

// After install_cleanup_signal_handlers() ignored it, and even blocked: the process dies of SIGPIPE.
TEST(Cleanup, DieOfSigpipeKillsBySigpipe) {
  const int status = test::run_in_child([]() -> int {
    install_cleanup_signal_handlers();
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, nullptr);
    die_of_sigpipe();
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << "exited with " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  EXPECT_EQ(WTERMSIG(status), SIGPIPE);
}

TEST(Cleanup, RegistrationRaiiAndReuse) {
  test::TempDir dir(test::disk_directory());
  // Many registrations over time reuse slots; the registry never fills up.
  for (int i = 0; i < 3 * static_cast<int>(kMaxCleanupPaths); ++i) {
    CleanupRegistration registration(dir.file(std::to_string(i).append(".tmp")));
  }
  touch(dir.file("released"));
  {
    CleanupRegistration registration(dir.file("released"));
    registration.release();
    unlink_registered_paths();
  }
  EXPECT_TRUE(test::file_exists(dir.file("released")));
}

TEST(Cleanup, FullRegistryAndLongPathAreErrors) {
  std::vector<CleanupRegistration> registrations;
  for (std::size_t i = 0; i < kMaxCleanupPaths; ++i) registrations.emplace_back("/nonexistent/" + std::to_string(i));
  EXPECT_THROW(CleanupRegistration("/nonexistent/one-too-many"), Error);
  registrations.clear();
  EXPECT_THROW(CleanupRegistration(std::string(kMaxCleanupPathBytes, 'x')), Error);
  CleanupRegistration fits(std::string(kMaxCleanupPathBytes - 1, 'x'));
}

}  // namespace
}  // namespace rmgsort
