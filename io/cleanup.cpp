#include "io/cleanup.hpp"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "io/last_words.hpp"

namespace rmgsort {
namespace {

// A slot's word is (generation << 2) | state, and a slot goes free -> filling -> ready -> free. The
// handler reads only `ready` slots; the release store that makes a slot ready publishes its path. A
// path could be reused while a handler on another thread reads it (unregister, then register again), so
// the handler reads seqlock-style: it copies the path and unlinks the copy only if the word is unchanged
// (the generation advances on every registration).
enum SlotState : std::uint64_t { kFree = 0, kFilling = 1, kReady = 2, kStateMask = 3 };

struct Slot {
  std::atomic<std::uint64_t> word{kFree};
  char path[kMaxCleanupPathBytes];
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "the signal handler needs lock-free atomics");

// Static storage: no allocation, zero-initialized before main(), 1 MiB of mostly untouched pages.
std::array<Slot, kMaxCleanupPaths> g_slots;

// A regular standard output's size before the run, or -1: what the handler cuts it back to.
std::atomic<std::int64_t> g_stdout_restore_size{-1};
static_assert(std::atomic<std::int64_t>::is_always_lock_free, "the signal handler needs lock-free atomics");

// SIGPIPE was ignored when the process started (set once, by install_cleanup_signal_handlers()).
bool g_sigpipe_inherited_ignored = false;

// Ends the process by `signal_number` itself, its default action restored: the parent sees a
// process the signal killed (a shell: status 128 + n; a shell script interrupted by SIGINT then
// stops too, as it does for any command a Ctrl-C ends). Async-signal-safe.
[[noreturn]] void die_of(int signal_number) noexcept {
  struct sigaction fatal {};
  fatal.sa_handler = SIG_DFL;
  sigemptyset(&fatal.sa_mask);
  (void)sigaction(signal_number, &fatal, nullptr);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal_number);
  // Unblocked in this thread, which receives what raise() sends: the default action ends the process.
  (void)pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  (void)raise(signal_number);
  _exit(128 + signal_number);  // reached only by a signal whose default is not to end the process
}

// The handled signal the process is dying of (0: none yet), set before the handler cuts anything back.
std::atomic<int> g_dying_of{0};
static_assert(std::atomic<int>::is_always_lock_free, "read in a signal handler");

extern "C" void unlink_and_exit(int signal_number) {
  // One handler ends the process: a second handled signal delivered to another thread meanwhile
  // (SIGINT after SIGTERM) waits for it, rather than end the process before the first is done.
  int none = 0;
  if (!g_dying_of.compare_exchange_strong(none, signal_number)) park_if_dying();
  // First the run's last words (its statistics), whose staged file may have a name to unlink.
  say_last_words(signal_number);
  restore_stdout_size();
  unlink_registered_paths();
  die_of(signal_number);
}

// Whoever started us with a handled signal other than SIGTERM ignored (nohup, a background job of a non-interactive
// shell) asked that they not stop the run: that SIG_IGN is kept, as GNU sort keeps it. SIGTERM is how
// a run is stopped on purpose and is always handled.
bool keeps_inherited_ignore(int signal_number) {
  if (signal_number == SIGTERM) return false;
  struct sigaction current {};
  return sigaction(signal_number, nullptr, &current) == 0 && current.sa_handler == SIG_IGN;
}

void ignore_signal(int signal_number) {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  if (sigaction(signal_number, &ignore, nullptr) != 0) {
    throw_errno("signal handler", "cannot ignore " + std::string(strsignal(signal_number)));
  }
}

}  // namespace

int register_cleanup_path(std::string_view path) {
  if (path.size() >= kMaxCleanupPathBytes) {
    throw Error(std::string(path) + ": path too long to register for cleanup (" + std::to_string(path.size()) +
                " bytes, at most " + std::to_string(kMaxCleanupPathBytes - 1) + ")");
  }
  for (std::size_t i = 0; i < g_slots.size(); ++i) {
    Slot& slot = g_slots[i];
    std::uint64_t word = slot.word.load(std::memory_order_relaxed);
    if ((word & kStateMask) != kFree) continue;
    const std::uint64_t generation = (word >> 2) + 1;
    if (!slot.word.compare_exchange_strong(word, (generation << 2) | kFilling, std::memory_order_acquire)) continue;
    std::memcpy(slot.path, path.data(), path.size());
    slot.path[path.size()] = '\0';
    slot.word.store((generation << 2) | kReady, std::memory_order_release);
    return static_cast<int>(i);
  }
  throw Error(std::string(path) + ": cannot register temporary file for cleanup: more than " +
              std::to_string(kMaxCleanupPaths) + " temporary files at once");
}

void unregister_cleanup_path(int slot) noexcept {
  if (slot < 0 || static_cast<std::size_t>(slot) >= g_slots.size()) return;
  std::atomic<std::uint64_t>& word = g_slots[static_cast<std::size_t>(slot)].word;
  word.store(word.load(std::memory_order_relaxed) & ~std::uint64_t{kStateMask}, std::memory_order_release);
}

void unlink_registered_paths() noexcept {
  const int saved_errno = errno;  // a handler must not change errno under the interrupted code
  char copy[kMaxCleanupPathBytes];
  for (Slot& slot : g_slots) {
    const std::uint64_t word = slot.word.load(std::memory_order_acquire);
    if ((word & kStateMask) != kReady) continue;
    std::memcpy(copy, slot.path, sizeof copy);
    copy[sizeof copy - 1] = '\0';
    std::atomic_thread_fence(std::memory_order_acquire);
    if (slot.word.load(std::memory_order_relaxed) == word) (void)unlink(copy);
  }
  errno = saved_errno;
}

void set_stdout_restore_size(std::int64_t size) noexcept {
  g_stdout_restore_size.store(size, std::memory_order_release);
}

void restore_stdout_size() noexcept {
  const std::int64_t size = g_stdout_restore_size.load(std::memory_order_acquire);
  if (size < 0) return;
  const int saved_errno = errno;
  // Other threads may still be writing the file (a chunk, a mapped writer's growth, an io_uring write
  // queued in the kernel): cut back first, any of them would grow it again. The limit on file sizes
  // goes first: from then on, a write or ftruncate or fallocate that would take any file past SIZE
  // fails with EFBIG (SIGXFSZ is ignored; io_uring's workers share the limit since Linux 5.12). A
  // write already in the kernel holds the file's lock, which the ftruncate below waits for. Only a
  // dying process sets it: no file of ours needs to grow again, but a core dump (SIGQUIT, SIGXCPU,
  // where core dumps are enabled) of a run writing standard output in place is cut to SIZE too.
  // getrlimit and setrlimit are plain system calls on Linux: safe in a handler.
  struct rlimit file_size {};
  if (getrlimit(RLIMIT_FSIZE, &file_size) == 0 &&
      (file_size.rlim_cur == RLIM_INFINITY || file_size.rlim_cur > rlim_t(size))) {
    file_size.rlim_cur = rlim_t(size);
    (void)setrlimit(RLIMIT_FSIZE, &file_size);
  }
  struct stat st {};
  if (fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > size)
    (void)ftruncate(STDOUT_FILENO, static_cast<off_t>(size));
  errno = saved_errno;
}

void park_if_dying() noexcept {
  if (g_dying_of.load() == 0) return;
  for (;;) pause();
}

// SIGBUS. Standard output's file, cut back by the handler of a terminating signal, may be mapped
// (io/detail/mapped_output.hpp): another thread's next store into it raises SIGBUS. That thread waits here
// for the handler to end the process by its own signal. Any other SIGBUS is what it always was: the
// default action restored, the faulting store runs again and ends the process.
extern "C" void wait_if_dying(int /*signal_number*/) {
  park_if_dying();
  struct sigaction fatal {};
  fatal.sa_handler = SIG_DFL;
  sigemptyset(&fatal.sa_mask);
  (void)sigaction(SIGBUS, &fatal, nullptr);
}

void install_cleanup_signal_handlers() {
  struct sigaction bus {};
  bus.sa_handler = wait_if_dying;
  sigemptyset(&bus.sa_mask);
  if (sigaction(SIGBUS, &bus, nullptr) != 0) throw_errno("signal handler", "cannot install for SIGBUS");
  struct sigaction action {};
  action.sa_handler = unlink_and_exit;
  sigemptyset(&action.sa_mask);
  // Block the other handled signals while one runs on its thread (another thread's waits for it:
  // unlink_and_exit), so that the exit status does not depend on timing.
  for (int signal_number : kCleanupSignals) sigaddset(&action.sa_mask, signal_number);
  for (int signal_number : kCleanupSignals) {
    if (keeps_inherited_ignore(signal_number)) continue;
    if (sigaction(signal_number, &action, nullptr) != 0) {
      throw_errno("signal handler", "cannot install for " + std::string(strsignal(signal_number)));
    }
  }
  // Writing to a closed pipe then fails with EPIPE, and writing past `ulimit -f` with EFBIG: both
  // reach the writers as errors naming the output, and the unwinding removes the temporary files.
  g_sigpipe_inherited_ignored = keeps_inherited_ignore(SIGPIPE);
  ignore_signal(SIGPIPE);
  ignore_signal(SIGXFSZ);
}

bool sigpipe_inherited_ignored() noexcept { return g_sigpipe_inherited_ignored; }

void die_of_sigpipe() noexcept { die_of(SIGPIPE); }

CleanupSignalsBlocked::CleanupSignalsBlocked() noexcept {
  sigset_t block;
  sigemptyset(&block);
  for (int signal_number : kCleanupSignals) sigaddset(&block, signal_number);
  // Cannot fail: the set is valid and SIG_BLOCK a valid action.
  (void)pthread_sigmask(SIG_BLOCK, &block, &saved_);
}

CleanupSignalsBlocked::~CleanupSignalsBlocked() { (void)pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }

}  // namespace rmgsort
