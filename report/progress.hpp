// --progress: a one-line display on standard error, redrawn a few times a second by a background
// thread, shown only when wanted (auto: when stderr is a terminal). The line names the current
// phase, the rounds done out of the rounds planned when the sort runs in rounds, the bytes done (of
// the phase's total, when known), the rate since the phase began and, with a known total, the ETA:
//
//   rmgsort: sorting rounds on 2 GPUs [3/7 rounds] 1.20 GiB/2.81 GiB (42%) 512.00 MiB/s ETA 3m05s
//
// Disabled, every call returns at once and nothing is ever written.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace rmgsort {

enum class ProgressMode { automatic, always, never };

// What one redraw shows.
struct ProgressSnapshot {
  std::string phase;
  std::uint64_t done = 0;   // bytes
  std::uint64_t total = 0;  // bytes; 0: unknown
  std::uint64_t rounds_done = 0;
  std::uint64_t rounds_total = 0;  // 0: not in rounds
  double seconds = 0;              // since the phase began
};

// The line for `snapshot`, at most `columns` characters wide (the phase name loses its middle first;
// "..." marks the cut). No terminal control characters.
[[nodiscard]] std::string progress_line(const ProgressSnapshot& snapshot, std::size_t columns);

// "42s", "3m05s", "1h02m".
[[nodiscard]] std::string format_duration(double seconds);

// MODE for a run whose keys go to standard output when KEYS_ON_STDOUT: never when standard error is
// the very file or pipe standard output is (`> out 2>&1`, `2>&1 | consumer`), whatever MODE says,
// as the lines would land among the keys (in a file, at the offset the keys' writes share).
[[nodiscard]] ProgressMode progress_mode_beside_keys(ProgressMode mode, bool keys_on_stdout);

class Progress {
 public:
  explicit Progress(ProgressMode mode);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  [[nodiscard]] bool enabled() const { return enabled_; }
  // Starts a phase of `total` bytes (0: unknown): the bytes and the rounds count from zero again,
  // and the rate and the ETA are measured from now.
  void phase(std::string name, std::uint64_t total);
  // Adds bytes to the current phase; callable from any thread (one relaxed atomic add).
  void advance(std::uint64_t bytes) { done_.fetch_add(bytes, std::memory_order_relaxed); }
  // The current phase runs in `total` rounds, `done` of them finished. `total` may grow (a spilled
  // round partitioned again is replaced by its own rounds). Callable from any thread; a redraw
  // racing a call may pair an old count with a new one, which only ever shows for 0.2 s.
  void rounds(std::uint64_t done, std::uint64_t total) {
    rounds_total_.store(total, std::memory_order_relaxed);
    rounds_done_.store(done, std::memory_order_relaxed);
  }
  // Clears the line and stops redrawing (also done by the destructor).
  void finish();

 private:
  void draw_loop();
  void draw();

  bool enabled_;
  std::mutex mutex_;  // guards phase_, total_, phase_start_ and stopping_
  std::condition_variable wake_;
  bool stopping_ = false;
  std::string phase_;
  std::uint64_t total_ = 0;
  std::atomic<std::uint64_t> done_{0};
  std::atomic<std::uint64_t> rounds_done_{0};
  std::atomic<std::uint64_t> rounds_total_{0};
  std::chrono::steady_clock::time_point phase_start_;
  std::thread drawer_;
};

}  // namespace rmgsort
