// --progress: what a run is doing, on standard error, in one of three styles
// (report/progress_format.hpp shows each):
//   auto, always  one line on a terminal, redrawn five times a second ("\r\033[K" before each);
//                 auto draws it only when standard error is a terminal, else nothing;
//   lines         lines for a log file: one when each phase ends, with its figures, and one every
//                 kProgressLogInterval while a phase runs; no carriage returns, no escapes;
//   json          the same lines as JSON objects, one a line.
// Shown at all, progress ends with one summary line (summary()): the bytes, the time, the rate and
// what sorted them; in json, an object whose "phase" is "done". Disabled (never, or auto off a
// terminal), every call returns at once and nothing is ever written.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "report/progress_format.hpp"

namespace rmgsort {

enum class ProgressMode { automatic, always, never, lines, json };

// MODE for a run whose keys go to standard output when KEYS_ON_STDOUT: never when standard error is
// the very file or pipe standard output is (`> out 2>&1`, `2>&1 | consumer`), whatever MODE says,
// as the lines would land among the keys (in a file, at the offset the keys' writes share).
[[nodiscard]] ProgressMode progress_mode_beside_keys(ProgressMode mode, bool keys_on_stdout);

// At most one line (one JSON object) per phase in this time, besides the one that ends the phase:
// 720 lines in an hour's phase, a few pages of a log for a sort of terabytes. A rate for a person
// reading the log; a program reading JSON interpolates between them.
inline constexpr std::chrono::seconds kProgressLogInterval{5};

using ProgressClock = std::function<std::chrono::steady_clock::time_point()>;

// When a log's lines are due: at most one per interval, counted from the last line written, whether
// it was due or written out of turn (the end of a phase).
class ProgressThrottle {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  ProgressThrottle(TimePoint start, std::chrono::steady_clock::duration interval)
      : last_(start), interval_(interval) {}
  // Whether a line written at NOW keeps to the rate; if so, it counts as written.
  bool take(TimePoint now) {
    if (now - last_ < interval_) return false;
    last_ = now;
    return true;
  }
  // A line written at NOW out of turn: the next is due an interval later.
  void wrote(TimePoint now) { last_ = now; }

 private:
  TimePoint last_;
  std::chrono::steady_clock::duration interval_;
};

// A failed run under --progress json ends its objects with failure_json_line() before the error's
// line, so that a program reading them learns how the run ended (a run that succeeds ends with its
// summary's). The command line announces the mode in effect (progress_mode_beside_keys) as soon as
// the options are parsed, so that errors found before any Progress end so too. The run's time counts
// from the announcement.
void announce_json_progress(bool on);
// The failure's object for MESSAGE with EXIT_STATUS when JSON progress was announced, else "".
[[nodiscard]] std::string json_progress_failure(const std::string& message, int exit_status);

class Progress {
 public:
  // On standard error, by the steady clock, updated by a thread of its own.
  explicit Progress(ProgressMode mode);
  // On FILE, by CLOCK, updated only when update() is called (tests; automatic: when FILE is a
  // terminal).
  Progress(ProgressMode mode, std::FILE* file, ProgressClock clock);
  // Stops as finish() does, but writes no line for the phase left running: a run that throws did
  // not finish it.
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  [[nodiscard]] bool enabled() const { return style_ != Style::none; }
  // Starts a phase of `total` bytes (0: unknown): the bytes and the rounds count from zero again,
  // and the rate and the ETA are measured from now. Lines and JSON: the phase it ends gets its
  // last line, with its figures.
  void phase(std::string name, std::uint64_t total);
  // Adds bytes to the current phase; callable from any thread (one relaxed atomic add).
  void advance(std::uint64_t bytes) { done_.fetch_add(bytes, std::memory_order_relaxed); }
  // The current phase runs in `total` rounds, `done` of them finished. `total` may grow (a spilled
  // round partitioned again is replaced by its own rounds). Callable from any thread; a redraw
  // racing a call may pair an old count with a new one, which only ever shows until the next.
  void rounds(std::uint64_t done, std::uint64_t total) {
    rounds_total_.store(total, std::memory_order_relaxed);
    rounds_done_.store(done, std::memory_order_relaxed);
  }
  // Redraws the terminal's line, or writes a log's line when one is due. The thread calls it five
  // times a second.
  void update();
  // Stops updating: the terminal's line is erased; a log gets the last phase's last line. Once.
  void finish();
  // Finishes, then writes SUMMARY (its line, or its JSON object).
  void summary(const ProgressSummary& summary);

 private:
  enum class Style { none, terminal, lines, json };
  using TimePoint = std::chrono::steady_clock::time_point;

  void stop_thread();
  void draw_loop();
  void update_locked();
  void write_phase_line(bool finished);  // a log's line of the current phase
  void write(const std::string& text);
  [[nodiscard]] ProgressSnapshot snapshot(TimePoint now, bool finished) const;

  Style style_ = Style::none;
  std::FILE* file_;
  ProgressClock clock_;
  TimePoint start_;
  ProgressThrottle throttle_;
  std::mutex mutex_;  // guards everything below but the atomics, and the writes to file_
  std::condition_variable wake_;
  bool stopping_ = false;
  bool finished_ = false;
  std::string phase_;
  std::uint64_t total_ = 0;
  std::atomic<std::uint64_t> done_{0};
  std::atomic<std::uint64_t> rounds_done_{0};
  std::atomic<std::uint64_t> rounds_total_{0};
  TimePoint phase_start_;
  std::thread drawer_;
};

}  // namespace rmgsort
