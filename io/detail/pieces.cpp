#include "io/detail/pieces.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace rmgsort {

void for_each_piece(std::uint64_t pieces, unsigned threads, const std::function<void(std::uint64_t piece)>& work) {
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto run = [&] {
    for (std::uint64_t i = next++; i < pieces && !failed.load(std::memory_order_relaxed); i = next++) {
      try {
        work(i);
      } catch (...) {
        const std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        failed = true;
        return;
      }
    }
  };
  {
    std::vector<std::jthread> helpers;  // joined on leaving the scope
    const std::uint64_t helper_count = pieces == 0 ? 0 : std::min<std::uint64_t>(std::max(threads, 1u), pieces) - 1;
    try {
      for (std::uint64_t t = 0; t < helper_count; ++t) helpers.emplace_back(run);
    } catch (const std::system_error&) {
      // No more threads to be had (a process or cgroup limit): the ones started do the work.
    }
    run();
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace rmgsort
