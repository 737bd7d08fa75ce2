// One io_uring instance, owned: set-up and tear-down, and the submit and wait calls with their
// interrupted-system-call retries, so that the transfer code above handles only completions.
#pragma once

#include <liburing.h>

#include <string>
#include <string_view>

namespace rmgsort {

class UringRing {
 public:
  // ENTRIES submission-queue entries (the completion queue is twice that). PATH names the file in
  // error messages. Throws rmgsort::Error when io_uring is unavailable (ENOSYS, or EPERM where
  // /proc/sys/kernel/io_uring_disabled forbids it).
  UringRing(unsigned entries, std::string_view path);
  ~UringRing();
  UringRing(const UringRing&) = delete;
  UringRing& operator=(const UringRing&) = delete;

  // A free submission entry; submits what is prepared when the submission queue is full.
  [[nodiscard]] io_uring_sqe* next_sqe();
  // Hands every prepared entry to the kernel.
  void submit();
  // Submits what is prepared, then waits for one completion (never nullptr). Release it with seen().
  [[nodiscard]] io_uring_cqe* wait();
  void seen(io_uring_cqe* cqe) { io_uring_cqe_seen(&ring_, cqe); }

  // For destructors: submits and waits without throwing; returns nullptr when the ring is broken.
  [[nodiscard]] io_uring_cqe* wait_noexcept() noexcept;

 private:
  io_uring ring_{};
  std::string path_;
};

}  // namespace rmgsort
