#include "io/detail/block_queue.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "io/detail/direct_io.hpp"
#include "io/input_file.hpp"
#include "core/error.hpp"

namespace rmgsort {
namespace {

// The kernel transfers at most MAX_RW_COUNT (2 GiB - 4 KiB) per request and an SQE length is 32 bits;
// longer blocks simply take several requests, handled like short transfers.
constexpr std::uint64_t kMaxRequestBytes = std::uint64_t{1} << 30;

}  // namespace

BlockQueue::BlockQueue(TransferKind kind, FileDescriptors fds, std::string path, unsigned depth)
    : kind_(kind), fds_(fds), path_(std::move(path)), ring_(std::max(depth, 1u), path_), slots_(std::max(depth, 1u)) {
  free_slots_.reserve(slots_.size());
  for (std::size_t i = slots_.size(); i > 0; --i) free_slots_.push_back(i - 1);
}

BlockQueue::~BlockQueue() {
  while (in_flight_ > 0) {
    io_uring_cqe* cqe = ring_.wait_noexcept();
    if (cqe == nullptr) break;  // the ring is broken; io_uring_queue_exit cancels what is left
    ring_.seen(cqe);
    --in_flight_;
  }
}

void BlockQueue::push(const Block& block) {
  RMGSORT_EXPECTS(!full(), "BlockQueue::push on a full queue");
  RMGSORT_EXPECTS(block.length > 0, "BlockQueue::push of an empty block");
  const std::size_t index = free_slots_.back();
  free_slots_.pop_back();
  slots_[index] = Slot{block, 0, 0, 0, false, true};
  ++in_flight_;
  prepare(index, false);
}

void BlockQueue::prepare(std::size_t index, bool force_async) {
  Slot& slot = slots_[index];
  const std::uint64_t remaining = slot.block.length - slot.done;
  const std::uint64_t offset = slot.block.offset + slot.done;
  std::byte* const address = slot.block.data + slot.done;

  bool direct = slot.block.direct && fds_.direct >= 0 && !direct_rejected_ && is_direct_aligned(offset) &&
                is_direct_aligned(address);
  std::uint64_t length = remaining;
  if (direct && kind_ == TransferKind::read) {
    // Past the end of the file a direct read returns short; the caller's memory covers the rounding.
    length = round_up_to_direct(remaining);
  } else if (direct && kind_ == TransferKind::write) {
    // The aligned body goes direct; the unaligned tail follows buffered, as a "short write".
    length = round_down_to_direct(remaining);
    direct = length > 0;
    if (!direct) length = remaining;
  }
  length = std::min(length, kMaxRequestBytes);

  io_uring_sqe* sqe = ring_.next_sqe();
  const int fd = direct ? fds_.direct : fds_.buffered;
  const auto bytes = static_cast<unsigned>(length);
  if (kind_ == TransferKind::read) {
    io_uring_prep_read(sqe, fd, address, bytes, offset);
  } else {
    io_uring_prep_write(sqe, fd, address, bytes, offset);
  }
  io_uring_sqe_set_data64(sqe, index);
  if (force_async || (!direct && async_buffered_)) io_uring_sqe_set_flags(sqe, IOSQE_ASYNC);
  slot.requested = length;
  slot.request_direct = direct;
}

void BlockQueue::fail(std::size_t index, int err) {
  Slot& slot = slots_[index];
  const std::uint64_t position = slot.block.offset + slot.done;
  slot.busy = false;
  free_slots_.push_back(index);
  --in_flight_;
  if (err == 0 && kind_ == TransferKind::read) throw Error(shrank_message(position));
  if (err == 0) err = EIO;  // a write that transfers nothing and reports no error
  throw_errno(path_, kind_ == TransferKind::read ? "read failed" : "write failed", err);
}

std::string BlockQueue::shrank_message(std::uint64_t end_seen) const {
  // This read met the end at END_SEEN, but the end may lie further back, inside a block before this
  // one (still in flight, or another thread's): the file's size now says where its data ends.
  std::uint64_t end = end_seen;
  struct stat st {};
  if (fstat(fds_.buffered, &st) == 0) end = std::min(end, static_cast<std::uint64_t>(st.st_size));
  return rmgsort::shrank_message(path_, end, size_at_open_);
}

CompletedBlock BlockQueue::wait() {
  RMGSORT_EXPECTS(in_flight_ > 0, "BlockQueue::wait with nothing in flight");
  for (;;) {
    io_uring_cqe* cqe = ring_.wait();
    const auto index = static_cast<std::size_t>(io_uring_cqe_get_data64(cqe));
    const int res = cqe->res;
    ring_.seen(cqe);
    Slot& slot = slots_[index];

    if (res == -EAGAIN || res == -EINTR) {
      // Retried from a kernel worker, where the request may block instead of bouncing back again.
      ++resubmissions_;
      prepare(index, true);
      continue;
    }
    if (res == -EINVAL && slot.request_direct) {
      // The file system accepted O_DIRECT at open but not this request (alignment stricter than
      // ours, or a file system without direct I/O for this file): go buffered from now on.
      direct_rejected_ = true;
      ++resubmissions_;
      prepare(index, false);
      continue;
    }
    if (res < 0) fail(index, -res);
    if (res == 0) fail(index, 0);

    const std::uint64_t got = std::min<std::uint64_t>(static_cast<std::uint64_t>(res), slot.block.length - slot.done);
    slot.done += got;
    if (slot.request_direct) slot.direct_bytes += got;
    if (slot.done < slot.block.length) {
      ++resubmissions_;
      prepare(index, false);
      continue;
    }
    CompletedBlock completed{slot.block, slot.direct_bytes};
    slot.busy = false;
    free_slots_.push_back(index);
    --in_flight_;
    return completed;
  }
}

}  // namespace rmgsort
