#include "io/last_words.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <iterator>

#include "core/error.hpp"

namespace rmgsort {
namespace {

// idle -> armed (by the caller) -> idle (disarmed) or -> saying (by one handler, for good).
enum State : int { kIdle, kArmed, kSaying };

struct Words {
  std::atomic<int> state{kIdle};
  int descriptor = -1;  // -1: into `file`
  OutputFile::SignalCommit file;
  const std::string* lines = nullptr;  // kCleanupSignals' lines, in its order
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");

Words g_words;

// Fills the words and arms them. Only the caller arms (the handlers act on armed words alone), so
// the words may be filled while the state is idle.
void arm(int descriptor, const OutputFile::SignalCommit* file, const std::vector<std::string>& lines) {
  RMGSORT_EXPECTS(lines.size() == std::size(kCleanupSignals), "arm_last_words: a line for every handled signal");
  RMGSORT_EXPECTS(g_words.state.load(std::memory_order_relaxed) == kIdle, "arm_last_words: one set of words at a time");
  g_words.descriptor = descriptor;
  if (file != nullptr) g_words.file = *file;
  g_words.lines = lines.data();
  g_words.state.store(kArmed, std::memory_order_release);  // a handler that sees `armed` sees the words
}

bool write_whole(int fd, const char* data, std::size_t size, off_t at, bool positioned) noexcept {
  while (size > 0) {
    const ssize_t n = positioned ? pwrite(fd, data, size, at) : write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= std::size_t(n);
    at += n;
  }
  return true;
}

}  // namespace

bool arm_last_words(const OutputFile& file, const std::vector<std::string>& lines) {
  const std::optional<OutputFile::SignalCommit> recipe = file.signal_commit();
  if (!recipe) return false;
  arm(-1, &*recipe, lines);
  return true;
}

void arm_last_words(int descriptor, const std::vector<std::string>& lines) { arm(descriptor, nullptr, lines); }

void disarm_last_words() noexcept {
  int armed = kArmed;
  if (g_words.state.compare_exchange_strong(armed, kIdle, std::memory_order_acq_rel) || armed == kIdle) return;
  // A handler is saying them, and then ends the process.
  for (;;) pause();
}

void say_last_words(int signal_number) noexcept {
  int armed = kArmed;
  if (!g_words.state.compare_exchange_strong(armed, kSaying, std::memory_order_acquire)) return;
  const int saved_errno = errno;
  std::size_t index = 0;
  while (index < std::size(kCleanupSignals) && kCleanupSignals[index] != signal_number) ++index;
  if (index < std::size(kCleanupSignals)) {
    const std::string& line = g_words.lines[index];
    if (g_words.descriptor >= 0) {
      (void)write_whole(g_words.descriptor, line.data(), line.size(), 0, false);
    } else if (ftruncate(g_words.file.fd, 0) == 0 && write_whole(g_words.file.fd, line.data(), line.size(), 0, true)) {
      (void)OutputFile::commit_in_signal_handler(g_words.file);
    }
  }
  errno = saved_errno;
}

}  // namespace rmgsort
