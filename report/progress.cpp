#include "report/progress.hpp"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>

namespace rmgsort {
namespace {

// The widest line drawn: wide enough for a phase name and every number, narrow enough for the
// common terminal. A narrower terminal narrows it (a wrapped line could not be erased by "\r\033[K").
constexpr std::size_t kMaxColumns = 100;
constexpr std::size_t kMinColumns = 40;

// 5 redraws a second: smooth enough to read, cheap enough to ignore.
constexpr std::chrono::milliseconds kRedrawPeriod{200};

// The width to draw in on the terminal FD: its width less one (the cursor must not wrap), at most
// kMaxColumns.
std::size_t line_columns(int fd) {
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return std::clamp<std::size_t>(std::size_t(size.ws_col) - 1, kMinColumns, kMaxColumns);
  return kMaxColumns;
}

// announce_json_progress(): whether, and since when (steady clock ticks).
std::atomic<bool> g_json_progress{false};
std::atomic<std::chrono::steady_clock::rep> g_json_progress_since{0};

}  // namespace

void announce_json_progress(bool on) {
  g_json_progress_since.store(std::chrono::steady_clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  g_json_progress.store(on, std::memory_order_release);
}

std::string json_progress_failure(const std::string& message, int exit_status) {
  if (!g_json_progress.load(std::memory_order_acquire)) return {};
  const std::chrono::steady_clock::duration since{g_json_progress_since.load(std::memory_order_relaxed)};
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now().time_since_epoch() - since;
  return failure_json_line(message, exit_status, elapsed.count());
}

ProgressMode progress_mode_beside_keys(ProgressMode mode, bool keys_on_stdout) {
  struct stat out {}, err {};
  if (keys_on_stdout && fstat(STDOUT_FILENO, &out) == 0 && fstat(STDERR_FILENO, &err) == 0 &&
      out.st_dev == err.st_dev && out.st_ino == err.st_ino)
    return ProgressMode::never;
  return mode;
}

Progress::Progress(ProgressMode mode) : Progress(mode, stderr, std::chrono::steady_clock::now) {
  if (enabled()) drawer_ = std::thread([this] { draw_loop(); });
}

Progress::Progress(ProgressMode mode, std::FILE* file, ProgressClock clock)
    : file_(file), clock_(std::move(clock)), start_(clock_()), throttle_(start_, kProgressLogInterval) {
  switch (mode) {
    case ProgressMode::automatic: style_ = isatty(fileno(file)) ? Style::terminal : Style::none; break;
    case ProgressMode::always: style_ = Style::terminal; break;
    case ProgressMode::never: style_ = Style::none; break;
    case ProgressMode::lines: style_ = Style::lines; break;
    case ProgressMode::json: style_ = Style::json; break;
  }
  phase_start_ = start_;
}

Progress::~Progress() {
  stop_thread();
  std::lock_guard lock(mutex_);
  if (style_ == Style::terminal && !finished_) write("\r\033[K");  // erase the progress line
  finished_ = true;
}

void Progress::phase(std::string name, std::uint64_t total) {
  if (!enabled()) return;
  std::lock_guard lock(mutex_);
  if (finished_) return;
  if (style_ != Style::terminal && !phase_.empty()) write_phase_line(/*finished=*/true);
  phase_ = std::move(name);
  total_ = total;
  done_.store(0, std::memory_order_relaxed);
  rounds(0, 0);
  phase_start_ = clock_();
}

void Progress::update() {
  if (!enabled()) return;
  std::lock_guard lock(mutex_);
  update_locked();
}

void Progress::finish() {
  if (!enabled()) return;
  stop_thread();
  std::lock_guard lock(mutex_);
  if (finished_) return;
  finished_ = true;
  if (style_ == Style::terminal) {
    write("\r\033[K");  // erase the progress line
  } else if (!phase_.empty()) {
    write_phase_line(/*finished=*/true);
  }
}

void Progress::summary(const ProgressSummary& summary) {
  if (!enabled()) return;
  finish();
  std::lock_guard lock(mutex_);
  write((style_ == Style::json ? summary_json_line(summary) : summary_line(summary)) + "\n");
}

void Progress::stop_thread() {
  if (!drawer_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  drawer_.join();
}

void Progress::draw_loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, kRedrawPeriod);
    if (!stopping_) update_locked();
  }
}

// Called with mutex_ held.
void Progress::update_locked() {
  if (finished_ || phase_.empty()) return;
  const TimePoint now = clock_();
  if (style_ == Style::terminal) {
    write("\r\033[K" + progress_line(snapshot(now, false), line_columns(fileno(file_))));
  } else if (throttle_.take(now)) {
    write_phase_line(/*finished=*/false);
  }
}

// Called with mutex_ held.
void Progress::write_phase_line(bool finished) {
  const TimePoint now = clock_();
  const ProgressSnapshot now_snapshot = snapshot(now, finished);
  write((style_ == Style::json ? progress_json_line(now_snapshot) : progress_log_line(now_snapshot)) + "\n");
  throttle_.wrote(now);
}

// Called with mutex_ held.
void Progress::write(const std::string& text) {
  std::fputs(text.c_str(), file_);
  std::fflush(file_);
}

// Called with mutex_ held.
ProgressSnapshot Progress::snapshot(TimePoint now, bool finished) const {
  ProgressSnapshot s;
  s.phase = phase_;
  s.total = total_;
  s.done = done_.load(std::memory_order_relaxed);
  s.rounds_total = rounds_total_.load(std::memory_order_relaxed);
  s.rounds_done = rounds_done_.load(std::memory_order_relaxed);
  s.seconds = std::chrono::duration<double>(now - phase_start_).count();
  s.elapsed = std::chrono::duration<double>(now - start_).count();
  s.finished = finished;
  return s;
}

}  // namespace rmgsort
