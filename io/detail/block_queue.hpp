// Blocks of one file in flight on one io_uring: each pushed block is carried to completion through
// short transfers, -EAGAIN/-EINTR retries and the O_DIRECT-to-buffered fallback, and only then handed
// back by wait(). The readers and writers above it choose blocks and order; this file owns the
// kernel's answers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/detail/uring_ring.hpp"

namespace rmgsort {

enum class TransferKind { read, write };

// Two descriptors of the same open file.
struct FileDescriptors {
  int buffered = -1;
  int direct = -1;  // with O_DIRECT; -1 where it is unavailable
};

struct Block {
  std::uint64_t offset = 0;   // file offset of the block's first byte
  std::byte* data = nullptr;  // memory of the block's first byte (const for writes)
  std::uint64_t length = 0;   // bytes to transfer, > 0
  bool direct = false;        // try O_DIRECT (see BlockQueue::push for what else it needs)
  std::uint64_t tag = 0;      // the caller's, handed back unchanged
};

struct CompletedBlock {
  Block block;
  std::uint64_t direct_bytes = 0;  // of block.length, the bytes that went through O_DIRECT
};

class BlockQueue {
 public:
  // DEPTH blocks in flight at most. PATH names the file in errors.
  BlockQueue(TransferKind kind, FileDescriptors fds, std::string path, unsigned depth);
  // Waits for every block still in flight (the kernel may be writing into the caller's memory).
  ~BlockQueue();
  BlockQueue(const BlockQueue&) = delete;
  BlockQueue& operator=(const BlockQueue&) = delete;

  [[nodiscard]] unsigned depth() const { return static_cast<unsigned>(slots_.size()); }
  [[nodiscard]] unsigned in_flight() const { return in_flight_; }
  [[nodiscard]] bool full() const { return in_flight_ == slots_.size(); }

  // Buffered requests of cached data complete inside the submitting system call, on this thread.
  // With async set they are handed to the kernel's io-wq workers instead, so that the copy overlaps
  // whatever this thread does next (read-ahead and write-behind need that; whole-file reads do not).
  void set_async_buffered(bool async) { async_buffered_ = async; }

  // For reads: the file's size when it was opened, which the error for a file that ends early
  // names next to where it ended.
  void set_size_at_open(std::uint64_t bytes) { size_at_open_ = bytes; }

  // Queues BLOCK (precondition: !full()); it is submitted by the next submit() or wait().
  // A block goes through O_DIRECT while block.direct is set, a direct descriptor exists and the
  // current offset and address are aligned. A direct read asks for its length rounded up to
  // kDirectAlignment, so the memory behind a read block must extend to that rounding; a direct write
  // needs an aligned length too, otherwise the block is written buffered.
  void push(const Block& block);
  void submit() { ring_.submit(); }
  // Waits until some block is complete and returns it (precondition: in_flight() > 0). Throws
  // rmgsort::Error naming the file for a failed transfer, and for a read that meets the end of the
  // file before the block's end ("PATH: the file shrank while being read: it ended at byte N,
  // expected M").
  [[nodiscard]] CompletedBlock wait();

  // O_DIRECT answered EINVAL once; every later request goes buffered.
  [[nodiscard]] bool direct_rejected() const { return direct_rejected_; }
  // Requests resubmitted after a short transfer, -EAGAIN or -EINTR.
  [[nodiscard]] std::uint64_t resubmissions() const { return resubmissions_; }

 private:
  struct Slot {
    Block block;
    std::uint64_t done = 0;          // bytes transferred so far
    std::uint64_t direct_bytes = 0;  // of done, through O_DIRECT
    std::uint64_t requested = 0;     // bytes asked for by the request in flight
    bool request_direct = false;     // the request in flight uses the O_DIRECT descriptor
    bool busy = false;
  };

  void prepare(std::size_t slot_index, bool force_async);
  [[noreturn]] void fail(std::size_t slot_index, int err);
  [[nodiscard]] std::string shrank_message(std::uint64_t end_seen) const;

  TransferKind kind_;
  FileDescriptors fds_;
  std::string path_;
  UringRing ring_;
  std::vector<Slot> slots_;
  std::vector<std::size_t> free_slots_;
  unsigned in_flight_ = 0;
  bool async_buffered_ = false;
  std::optional<std::uint64_t> size_at_open_;
  bool direct_rejected_ = false;
  std::uint64_t resubmissions_ = 0;
};

}  // namespace rmgsort
