// What an exception that ends a command becomes: its message and exit status, a reader that closed
// the pipe early (EPIPE) ending quietly by SIGPIPE (status 141) unless SIGPIPE was inherited ignored.
#include "app/error_message.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <new>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "app/commands.hpp"
#include "core/error.hpp"
#include "io/cleanup.hpp"

namespace rmgsort {
namespace {

const Error kClosedPipe("standard output: write failed: Broken pipe", EPIPE);

TEST(ErrorMessage, ClosedPipeEndsBySigpipeWithStatus141) {
  // This test program never installed the handlers: SIGPIPE counts as not inherited ignored.
  ASSERT_FALSE(sigpipe_inherited_ignored());
  EXPECT_TRUE(ends_by_sigpipe(kClosedPipe));
  EXPECT_EQ(exit_status_of(kClosedPipe), 141);
  EXPECT_EQ(exit_status_of(kClosedPipe), kExitClosedPipe);
  EXPECT_EQ(error_message(kClosedPipe, "sort"),
            "standard output: write failed: Broken pipe (the reader closed the pipe early)");
}

TEST(ErrorMessage, ClosedPipeIsAnErrorWhenSigpipeWasInheritedIgnored) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGPIPE, SIG_IGN);
    install_cleanup_signal_handlers();
    _exit(!ends_by_sigpipe(kClosedPipe) && exit_status_of(kClosedPipe) == kExitError ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// Out of memory under a shell limit: the hint names the limits that are set (`ulimit -d` alone,
// or both), as a user would raise them; `ulimit -v` when none is.
TEST(ErrorMessage, MemoryHintNamesTheLimitsSet) {
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit limit{};
    ASSERT_EQ(getrlimit(resource, &limit), 0);
    if (limit.rlim_max != RLIM_INFINITY) GTEST_SKIP() << "a hard memory limit is set: cannot lift it";
  }
  std::fflush(nullptr);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const Error no_memory("keys: cannot allocate", ENOMEM);
    const auto hint_has = [&](std::string_view words) {
      return error_message(no_memory, "sort").find(words) != std::string::npos;
    };
    rlimit unlimited{RLIM_INFINITY, RLIM_INFINITY};
    rlimit large{rlim_t{1} << 44, RLIM_INFINITY};
    if (setrlimit(RLIMIT_AS, &unlimited) != 0 || setrlimit(RLIMIT_DATA, &unlimited) != 0) _exit(3);
    if (!hint_has("memory limit, `ulimit -v`, or free memory")) _exit(4);
    if (setrlimit(RLIMIT_DATA, &large) != 0) _exit(3);
    if (!hint_has("memory limit, `ulimit -d`, or free memory")) _exit(5);
    if (setrlimit(RLIMIT_AS, &large) != 0) _exit(3);
    if (!hint_has("memory limit, `ulimit -v` and `ulimit -d`, or free memory")) _exit(6);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: setrlimit failed; 4: none set; 5: ulimit -d; 6: both";
}

TEST(ErrorMessage, OtherErrorsExitWith2) {
  const Error no_space("out.bin: write failed: No space left on device", ENOSPC);
  EXPECT_FALSE(ends_by_sigpipe(no_space));
  EXPECT_EQ(exit_status_of(no_space), kExitError);
  EXPECT_EQ(error_message(no_space, "sort"), "out.bin: write failed: No space left on device");
  const Error no_memory("keys: cannot allocate", ENOMEM);
  EXPECT_EQ(exit_status_of(no_memory), kExitError);
  EXPECT_NE(error_message(no_memory, "sort").find("--host-memory"), std::string::npos);
  // merge has --host-memory too; generate and check do not.
  EXPECT_NE(error_message(std::bad_alloc(), "merge").find("lower --host-memory"), std::string::npos);
  EXPECT_EQ(error_message(std::bad_alloc(), "check").find("--host-memory"), std::string::npos);
  // Out of descriptors, whichever file it was: the message names the limit.
  const Error no_descriptors("--temp-dir T: cannot create a spill file: Too many open files", EMFILE);
  EXPECT_EQ(exit_status_of(no_descriptors), kExitError);
  EXPECT_NE(error_message(no_descriptors, "merge").find("Too many open files (the process's open-file limit, `ulimit -n`"),
            std::string::npos)
      << error_message(no_descriptors, "merge");
  EXPECT_EQ(exit_status_of(std::bad_alloc()), kExitError);
  // A thread the kernel would not start (std::thread's EAGAIN): the message names the limits.
  const std::system_error no_thread(std::make_error_code(std::errc::resource_unavailable_try_again));
  EXPECT_EQ(error_message(no_thread, "sort"),
            "cannot start a thread: Resource temporarily unavailable (the process's limits leave no room for "
            "another: `ulimit -u`, `ulimit -v`; or give fewer --threads)");
  EXPECT_EQ(exit_status_of(no_thread), kExitError);
  // oneTBB says it in a runtime_error of its own words.
  EXPECT_EQ(error_message(std::runtime_error("pthread_create has failed: Resource temporarily unavailable"), "check"),
            error_message(no_thread, "sort"));
  const std::system_error other(std::make_error_code(std::errc::io_error));
  EXPECT_EQ(error_message(other, "sort").rfind("unexpected error: ", 0), 0u);
  EXPECT_EQ(error_message(std::runtime_error("odd"), "check"), "unexpected error: odd");
  EXPECT_EQ(exit_status_of(std::runtime_error("odd")), kExitError);
}

}  // namespace
}  // namespace rmgsort
