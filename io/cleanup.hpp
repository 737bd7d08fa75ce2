// Temporary files that must not outlive the process: a fixed-capacity registry that a signal handler
// can walk without allocating or locking, so that Ctrl-C or a kill leaves no temporary output or spill
// file behind.
#pragma once

#include <signal.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rmgsort {

// Paths the registry holds at once, and the longest path it stores (PATH_MAX with its NUL).
inline constexpr std::size_t kMaxCleanupPaths = 256;
inline constexpr std::size_t kMaxCleanupPathBytes = 4096;

// Registers PATH for unlinking when a handled signal arrives; returns a slot for unregister. Throws
// rmgsort::Error naming the path when the registry is full or the path too long. Thread-safe.
[[nodiscard]] int register_cleanup_path(std::string_view path);
// Forgets a slot from register_cleanup_path (after the file was renamed or unlinked). Negative slots
// are ignored. Thread-safe.
void unregister_cleanup_path(int slot) noexcept;

// The terminating signals whose handler cleans up and exits (GNU sort's list, less SIGPIPE and SIGXFSZ,
// which are ignored instead). The output's creation blocks exactly these, so one list serves both.
inline constexpr int kCleanupSignals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGALRM, SIGXCPU,
                                          SIGVTALRM, SIGPROF, SIGUSR1, SIGUSR2, SIGIO};

// Unlinks every registered path. Async-signal-safe: what the handlers call.
void unlink_registered_paths() noexcept;

// A regular standard output that a run writes in place: SIZE is its size before the run, to which a
// handled signal cuts it back (what the run added goes, what was there stays). -1 forgets it (after
// commit, or when the output was given back). Async-signal-safe to read: one lock-free atomic.
void set_stdout_restore_size(std::int64_t size) noexcept;
// Cuts a remembered regular standard output back to its starting size, after lowering the process's
// file size limit to it so that no thread still writing grows it again. Async-signal-safe on Linux.
void restore_stdout_size() noexcept;

// Waits forever when a handled signal is ending the process (its handler runs on another thread):
// for the code that reports an error, which may be one the dying handler caused (a write refused
// once the file size limit came down), so that the run ends by the signal without another word.
void park_if_dying() noexcept;

// Installs handlers for kCleanupSignals that leave the run's last words (io/last_words.hpp: its
// statistics), cut a remembered standard output back, unlink every registered path and then end the
// process by the signal itself, its default action restored (as GNU sort does): a shell shows 130
// for SIGINT, 143 for SIGTERM, 131 for SIGQUIT, 142 for SIGALRM, ..., and a caller that asks how
// the process ended learns which signal ended it. A handled signal other than SIGTERM that the
// process inherited ignored (nohup, `cmd &` in a script) stays ignored. SIGPIPE and SIGXFSZ are
// ignored instead, so that writing to a closed pipe fails with EPIPE and writing past `ulimit -f`
// with EFBIG, which the writers report as an Error naming the output, and the normal unwinding
// removes temporary files (a closed pipe then ends the process through die_of_sigpipe()). A thread
// that stores into standard output's file after such a handler cut it back (a mapped output) gets
// SIGBUS, and waits for the handler to end the process; any other SIGBUS ends it as it would have.
// Call once, early in main().
void install_cleanup_signal_handlers();

// Whether the process was started with SIGPIPE ignored (as install_cleanup_signal_handlers() found
// it): whoever started it then asked for EPIPE errors instead of SIGPIPE, and a reader that closed
// the pipe is reported as the error it is (GNU sort: a message and exit status 2). False before
// install_cleanup_signal_handlers().
[[nodiscard]] bool sigpipe_inherited_ignored() noexcept;

// Ends the process as a write to a pipe whose reader has gone ends one that does not ignore SIGPIPE:
// SIGPIPE's default disposition restored, the signal unblocked and raised, so that the parent sees a
// process killed by SIGPIPE (a shell: status 141) and prints nothing. For a reader that closed the
// pipe early, which is normal (`rmgsort sort ... | head`): call it once everything is cleaned up (no
// temporary left, nothing committed), with nothing left to say. Async-signal-safe.
[[noreturn]] void die_of_sigpipe() noexcept;

// Blocks kCleanupSignals on this thread for its lifetime, restoring the mask it found: a handled
// signal that arrives meanwhile waits, and its handler runs at the end of the scope. For what must
// happen as one step for the handlers (a file created and registered; the statistics' file created
// and their words armed). Other threads, if any, still take signals sent to the process: use it
// where the calling thread is the only one, or where they find nothing half done.
class CleanupSignalsBlocked {
 public:
  CleanupSignalsBlocked() noexcept;
  ~CleanupSignalsBlocked();
  CleanupSignalsBlocked(const CleanupSignalsBlocked&) = delete;
  CleanupSignalsBlocked& operator=(const CleanupSignalsBlocked&) = delete;

 private:
  sigset_t saved_;
};

// Owns one registration: registers in the constructor, unregisters in the destructor.
class CleanupRegistration {
 public:
  CleanupRegistration() noexcept = default;
  explicit CleanupRegistration(std::string_view path) : slot_(register_cleanup_path(path)) {}
  ~CleanupRegistration() { unregister_cleanup_path(slot_); }
  CleanupRegistration(CleanupRegistration&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
  CleanupRegistration& operator=(CleanupRegistration&& other) noexcept {
    if (this != &other) {
      unregister_cleanup_path(slot_);
      slot_ = other.slot_;
      other.slot_ = -1;
    }
    return *this;
  }
  CleanupRegistration(const CleanupRegistration&) = delete;
  CleanupRegistration& operator=(const CleanupRegistration&) = delete;

  // Unregisters now (the file is gone or renamed).
  void release() noexcept {
    unregister_cleanup_path(slot_);
    slot_ = -1;
  }

 private:
  int slot_ = -1;
};

}  // namespace rmgsort
