// --progress: a one-line display of the current phase on standard error, redrawn a few times a
// second by a background thread, shown only when wanted (auto: when stderr is a terminal).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace rmgsort {

enum class ProgressMode { automatic, always, never };

class Progress {
 public:
  explicit Progress(ProgressMode mode);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  [[nodiscard]] bool enabled() const { return enabled_; }
  // Starts a phase of `total` bytes (0: unknown); `done` counts from zero again.
  void phase(std::string name, std::uint64_t total);
  // Adds bytes to the current phase; callable from any thread.
  void advance(std::uint64_t bytes) { done_.fetch_add(bytes, std::memory_order_relaxed); }
  // Clears the line (also done by the destructor).
  void finish();

 private:
  void draw_loop();
  void draw();

  bool enabled_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::string phase_;
  std::uint64_t total_ = 0;
  std::atomic<std::uint64_t> done_{0};
  std::chrono::steady_clock::time_point phase_start_;
  std::thread drawer_;
};

}  // namespace rmgsort
