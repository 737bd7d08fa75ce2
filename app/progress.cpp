#include "app/progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "app/size_parse.hpp"

namespace rmgsort {

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

void Progress::draw() {
  const std::uint64_t done = done_.load(std::memory_order_relaxed);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - phase_start_).count();
  const double rate = seconds > 0 ? double(done) / seconds : 0;
  std::string line = "\r\033[Krmgsort: " + phase_;
  if (total_ > 0) {
    char percent[64];
    std::snprintf(percent, sizeof percent, " %3.0f%%", 100.0 * double(done) / double(total_));
    line += percent;
    line.append(" (").append(format_bytes(done)).append(" of ").append(format_bytes(total_)).append(")");
    if (rate > 0 && done < total_) {
      char eta[48];
      std::snprintf(eta, sizeof eta, ", ETA %.0f s", double(total_ - done) / rate);
      line.append(", ").append(format_bytes(std::uint64_t(rate))).append("/s").append(eta);
    }
  } else if (done > 0) {
    line.append(" ").append(format_bytes(done)).append(", ").append(format_bytes(std::uint64_t(rate))).append("/s");
  }
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace rmgsort
