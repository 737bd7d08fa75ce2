// Writing an output front to back in chunks, the write of one chunk running while the caller fills the
// next: how `rmgsort generate` writes as fast as the disk while generating. write_file (in
// io/uring_writer.hpp) is one append() of everything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/io_tuning.hpp"
#include "io/unique_fd.hpp"

namespace rmgsort {

class BlockQueue;
class MappedOutput;
struct Block;

struct WriteOptions {
  std::size_t block_bytes = io_tuning::kBlockBytes;  // bytes per request; a multiple of 4096
  unsigned queue_depth = io_tuning::kQueueDepth;     // requests in flight
  // O_DIRECT for the 4096-aligned body of each chunk when the file system allows it; the unaligned
  // tail (and everything after an unaligned chunk) is written buffered through the plain descriptor.
  bool direct = true;
  // Reserve the expected size with fallocate() first: an early ENOSPC instead of one after gigabytes,
  // and on ext4 direct writes that do not extend the file run in parallel (extending ones serialize
  // on the inode lock).
  bool preallocate = true;
  // A regular file on tmpfs or ramfs is written through a shared mapping from every core
  // (io/detail/mapped_output.hpp says why); it is not preallocated then, as fallocate would allocate its
  // pages from one thread.
  bool map_memory_file_system = true;
  // The threads that copy into that mapping; 0: one a core.
  unsigned mapped_threads = 0;
};

struct WriteStats {
  bool direct = false;  // some bytes were written with O_DIRECT
  std::uint64_t direct_bytes = 0;
  std::uint64_t buffered_bytes = 0;
  std::uint64_t resubmissions = 0;  // short writes, -EAGAIN and -EINTR retried
};

class ChunkWriter {
 public:
  // Writes to FD at its current position, as write() would, and leaves the position after the data. A
  // regular file goes through io_uring (on tmpfs or ramfs: a shared mapping, see WriteOptions);
  // anything else, and a file opened with O_APPEND (whose writes land at the end in completion
  // order), gets plain write() calls in the order of append(). PATH names the output in errors.
  // EXPECTED_BYTES, when known, is preallocated (not on tmpfs or ramfs).
  // WRITE_BEHIND false is for callers that wait for each append anyway (write_file): buffered writes
  // then copy inside the submitting call, which is faster than handing them to kernel workers.
  ChunkWriter(int fd, std::string path, const WriteOptions& options = {}, std::uint64_t expected_bytes = 0,
              bool write_behind = true);
  // Waits for the writes still in flight; does not truncate or report errors (call finish()).
  ~ChunkWriter();
  ChunkWriter(const ChunkWriter&) = delete;
  ChunkWriter& operator=(const ChunkWriter&) = delete;

  // Starts writing CHUNK after everything appended before, then returns once the chunk appended before
  // this one is written: CHUNK must stay unchanged until the next append() or finish() returns, and the
  // previous chunk's memory is free again. (Double buffering: fill A, append(A), fill B, append(B),
  // fill A, ...). Throws rmgsort::Error naming the file for a failed write ("No space left on device").
  void append(std::span<const std::byte> chunk);
  // Waits for every write and ends a regular file right after the data appended, or at its size when
  // the writer was made if that is larger: only what the writer added is cut.
  WriteStats finish();

  [[nodiscard]] std::uint64_t bytes_appended() const { return bytes_appended_; }
  // WriteOptions::mapped_threads from the next append() on: fewer while other work shares the cores.
  void set_mapped_threads(unsigned threads) { options_.mapped_threads = threads; }
  // Whether populate() does anything: the output is written through a memory file system's mapping.
  [[nodiscard]] bool populates() const { return mapped_ != nullptr; }
  // On a memory file system, allocates the file's pages for output bytes [begin, end), counted
  // from the writer's first byte as bytes_appended() is, on WriteOptions::mapped_threads threads,
  // so that appending them later only copies (io/detail/mapped_output.hpp); elsewhere nothing.
  // Throws as append() does ("No space left on device").
  void populate(std::uint64_t begin, std::uint64_t end);

 private:
  void wait_one();
  void push(const Block& block);
  void append_mapped(std::span<const std::byte> chunk);
  void wait_mapped();
  [[nodiscard]] unsigned mapped_threads() const;  // WriteOptions::mapped_threads, 0 made every core

  int fd_;
  std::string path_;
  WriteOptions options_;
  bool regular_ = false;           // io_uring or mapped_, at explicit offsets; else plain write() calls
  std::uint64_t base_offset_ = 0;  // where the first byte goes
  std::uint64_t initial_size_ = 0;  // the file's size when the writer was made: finish() cuts nothing below
  bool finished_ = false;
  UniqueFd direct_fd_;
  std::uint64_t bytes_appended_ = 0;
  std::uint64_t appends_ = 0;
  bool write_behind_ = true;
  std::vector<std::uint64_t> blocks_in_flight_;  // per append % 2: its blocks not yet written
  unsigned buffered_in_flight_ = 0;              // blocks pushed without O_DIRECT, not yet written
  WriteStats stats_;
  std::unique_ptr<BlockQueue> queue_;  // drained before the members above are destroyed
  std::unique_ptr<MappedOutput> mapped_;  // set instead of queue_ on a memory file system
  std::future<void> mapped_write_;        // the chunk being written through mapped_; waited for first
  std::uint64_t pending_mapped_bytes_ = 0;  // its size
};

}  // namespace rmgsort
