#include "io/detail/uring_ring.hpp"

#include <cerrno>

#include "core/error.hpp"

namespace rmgsort {

UringRing::UringRing(unsigned entries, std::string_view path) : path_(path) {
  // COOP_TASKRUN (5.19) runs completion work when this thread next enters the kernel instead of
  // interrupting it, which is all this single-threaded use needs. Older kernels reject the flag.
  int ret = io_uring_queue_init(entries, &ring_, IORING_SETUP_COOP_TASKRUN);
  if (ret == -EINVAL) ret = io_uring_queue_init(entries, &ring_, 0);
  if (ret < 0) {
    std::string what = "cannot set up io_uring";
    if (ret == -EPERM) what += " (see /proc/sys/kernel/io_uring_disabled)";
    throw_errno(path_, what, -ret);
  }
}

UringRing::~UringRing() { io_uring_queue_exit(&ring_); }

io_uring_sqe* UringRing::next_sqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  while (sqe == nullptr) {
    submit();
    sqe = io_uring_get_sqe(&ring_);
  }
  return sqe;
}

void UringRing::submit() {
  for (;;) {
    const int ret = io_uring_submit(&ring_);
    if (ret >= 0) return;
    // EBUSY/EAGAIN: the completion queue is full or the kernel is short of memory; reaping one
    // completion is the documented way out, but the caller owns the completions, so it can only be
    // told to wait. Our callers never have more requests in flight than the queue holds.
    if (ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) throw_errno(path_, "io_uring submit failed", -ret);
  }
}

io_uring_cqe* UringRing::wait() {
  io_uring_cqe* cqe = nullptr;
  // A completion already posted costs no system call, unless there is something to submit anyway.
  if (io_uring_sq_ready(&ring_) == 0 && io_uring_peek_cqe(&ring_, &cqe) == 0 && cqe != nullptr) return cqe;
  for (;;) {
    const int ret = io_uring_submit_and_wait(&ring_, 1);
    if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) {
      throw_errno(path_, "io_uring submit failed", -ret);
    }
    const int peek = io_uring_peek_cqe(&ring_, &cqe);
    if (peek == 0 && cqe != nullptr) return cqe;
    if (peek < 0 && peek != -EAGAIN && peek != -EINTR) throw_errno(path_, "io_uring wait failed", -peek);
  }
}

io_uring_cqe* UringRing::wait_noexcept() noexcept {
  for (;;) {
    io_uring_cqe* cqe = nullptr;
    (void)io_uring_submit(&ring_);
    const int ret = io_uring_wait_cqe(&ring_, &cqe);
    if (ret == 0 && cqe != nullptr) return cqe;
    if (ret != -EINTR && ret != -EAGAIN) return nullptr;
  }
}

}  // namespace rmgsort
