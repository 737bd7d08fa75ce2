#include "report/progress.hpp"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/size_parse.hpp"

namespace rmgsort {
namespace {

// The widest line drawn: wide enough for a phase name and every number, narrow enough for the
// common terminal. A narrower terminal narrows it (a wrapped line could not be erased by "\r\033[K").
constexpr std::size_t kMaxColumns = 100;
constexpr std::size_t kMinColumns = 40;
constexpr const char* kLinePrefix = "rmgsort: ";

bool utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// TEXT in at most WIDTH bytes, its middle replaced by "..." when it does not fit. The cuts never
// split a UTF-8 sequence (the path in a phase name may hold any).
std::string elide_middle(const std::string& text, std::size_t width) {
  if (text.size() <= width) return text;
  if (width < 5) return std::string(std::min<std::size_t>(width, 3), '.');
  const std::size_t keep = width - 3;
  std::size_t front = keep / 2;
  std::size_t back = text.size() - (keep - front);
  while (front > 0 && utf8_continuation(text[front])) --front;
  while (back < text.size() && utf8_continuation(text[back])) ++back;
  return text.substr(0, front) + "..." + text.substr(back);
}

// The width to draw in: the terminal's less one (the cursor must not wrap), at most kMaxColumns.
std::size_t line_columns() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return std::clamp<std::size_t>(std::size_t(size.ws_col) - 1, kMinColumns, kMaxColumns);
  return kMaxColumns;
}

}  // namespace

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const long long s = std::llround(seconds);
  char text[48];
  if (s < 60) {
    std::snprintf(text, sizeof text, "%llds", s);
  } else if (s < 3600) {
    std::snprintf(text, sizeof text, "%lldm%02llds", s / 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%lldh%02lldm", s / 3600, s / 60 % 60);
  }
  return text;
}

std::string progress_line(const ProgressSnapshot& snapshot, std::size_t columns) {
  // Everything after the phase name; the name takes what room is left.
  std::string tail;
  if (snapshot.rounds_total > 0) {
    tail.append(" [").append(std::to_string(std::min(snapshot.rounds_done, snapshot.rounds_total)));
    tail.append("/").append(std::to_string(snapshot.rounds_total)).append(" rounds]");
  }
  const double rate = snapshot.seconds > 0 ? double(snapshot.done) / snapshot.seconds : 0;
  if (snapshot.total > 0) {
    const std::uint64_t done = std::min(snapshot.done, snapshot.total);
    // Truncated, so 100 % means done; no input comes near the 2^64 / 100 bytes that would overflow.
    const std::uint64_t percent = done * 100 / snapshot.total;
    tail.append(" ").append(format_bytes(done)).append("/").append(format_bytes(snapshot.total));
    tail.append(" (").append(std::to_string(percent)).append("%)");
  } else if (snapshot.done > 0) {
    tail.append(" ").append(format_bytes(snapshot.done));
  }
  if (rate >= 1) tail.append(" ").append(format_bytes(std::uint64_t(rate))).append("/s");
  if (snapshot.total > 0 && rate >= 1 && snapshot.done < snapshot.total)
    tail.append(" ETA ").append(format_duration(double(snapshot.total - snapshot.done) / rate));

  const std::string prefix = kLinePrefix;
  const std::size_t fixed = prefix.size() + tail.size();
  std::string line = prefix;
  line.append(elide_middle(snapshot.phase, columns > fixed ? columns - fixed : 0)).append(tail);
  if (line.size() > columns) line.resize(columns);  // a terminal too narrow for the numbers
  return line;
}

ProgressMode progress_mode_beside_keys(ProgressMode mode, bool keys_on_stdout) {
  struct stat out {}, err {};
  if (keys_on_stdout && fstat(STDOUT_FILENO, &out) == 0 && fstat(STDERR_FILENO, &err) == 0 &&
      out.st_dev == err.st_dev && out.st_ino == err.st_ino)
    return ProgressMode::never;
  return mode;
}

Progress::Progress(ProgressMode mode)
    : enabled_(mode == ProgressMode::always || (mode == ProgressMode::automatic && isatty(STDERR_FILENO))) {
  if (enabled_) drawer_ = std::thread([this] { draw_loop(); });
}

Progress::~Progress() { finish(); }

void Progress::phase(std::string name, std::uint64_t total) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  phase_ = std::move(name);
  total_ = total;
  done_.store(0, std::memory_order_relaxed);
  rounds(0, 0);
  phase_start_ = std::chrono::steady_clock::now();
}

void Progress::finish() {
  if (!drawer_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  drawer_.join();
  std::fputs("\r\033[K", stderr);  // erase the progress line
  std::fflush(stderr);
}

void Progress::draw_loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    // 5 redraws a second: smooth enough to read, cheap enough to ignore.
    wake_.wait_for(lock, std::chrono::milliseconds(200));
    if (!stopping_ && !phase_.empty()) draw();
  }
}

// Called with mutex_ held.
void Progress::draw() {
  ProgressSnapshot snapshot;
  snapshot.phase = phase_;
  snapshot.total = total_;
  snapshot.done = done_.load(std::memory_order_relaxed);
  snapshot.rounds_total = rounds_total_.load(std::memory_order_relaxed);
  snapshot.rounds_done = rounds_done_.load(std::memory_order_relaxed);
  snapshot.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - phase_start_).count();
  const std::string line = "\r\033[K" + progress_line(snapshot, line_columns());
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace rmgsort
