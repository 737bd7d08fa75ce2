#include "io/chunk_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>
#include <utility>

#include "io/detail/block_queue.hpp"
#include "io/blocking_io.hpp"
#include "io/detail/direct_io.hpp"
#include "core/error.hpp"
#include "io/detail/mapped_output.hpp"

namespace rmgsort {
namespace {

// Reserves [offset, offset + bytes) of FD. ENOSPC and its kind are errors worth reporting now; a file system
// without fallocate (EOPNOTSUPP) simply gets no reservation, and neither does an output beyond the
// file size limit (`ulimit -f`: EFBIG): BYTES is the most the output may take (--unique keeps fewer),
// so its writes say whether it crosses the limit.
void preallocate(int fd, const std::string& path, std::uint64_t offset, std::uint64_t bytes) {
  int ret;
  do {
    ret = fallocate(fd, 0, static_cast<off_t>(offset), static_cast<off_t>(bytes));
  } while (ret != 0 && errno == EINTR);
  if (ret == 0) return;
  const int err = errno;
  if (err == EOPNOTSUPP || err == ENOSYS || err == EINVAL || err == EFBIG) return;
  throw_errno(path, "cannot reserve " + std::to_string(bytes) + " bytes", err);
}

}  // namespace

ChunkWriter::ChunkWriter(int fd, std::string path, const WriteOptions& options, std::uint64_t expected_bytes,
                         bool write_behind)
    : fd_(fd), path_(std::move(path)), options_(options), write_behind_(write_behind), blocks_in_flight_(2, 0) {
  RMGSORT_EXPECTS(options.block_bytes > 0 && is_direct_aligned(options.block_bytes),
                  "WriteOptions::block_bytes must be a positive multiple of 4096");
  struct stat st {};
  if (fstat(fd, &st) != 0) throw_errno(path_, "cannot stat output");
  const int status_flags = fcntl(fd, F_GETFL);
  regular_ = S_ISREG(st.st_mode) && status_flags >= 0 && (status_flags & O_APPEND) == 0;
  if (regular_) {
    const off_t position = lseek(fd, 0, SEEK_CUR);
    if (position < 0) throw_errno(path_, "cannot find the write position");
    base_offset_ = static_cast<std::uint64_t>(position);
    initial_size_ = static_cast<std::uint64_t>(st.st_size);
  }
  if (!regular_) {
    enlarge_pipe_buffer(fd);
    return;
  }
  if (options.map_memory_file_system) {
    mapped_ = MappedOutput::open(fd, path_);
    if (mapped_) return;
  }
  if (options.direct) direct_fd_ = open_direct_twin(fd, O_WRONLY);
  if (options.preallocate && expected_bytes > 0) preallocate(fd, path_, base_offset_, expected_bytes);
  queue_ = std::make_unique<BlockQueue>(TransferKind::write, FileDescriptors{fd, direct_fd_.get()}, path_,
                                        options.queue_depth);
  // Buffered writes copy into the page cache inside the submit call unless punted to kernel workers;
  // write-behind needs them to run while the caller fills the next chunk.
  queue_->set_async_buffered(write_behind);
}

ChunkWriter::~ChunkWriter() {
  if (mapped_write_.valid()) mapped_write_.wait();  // its memory is the caller's: not after we return
}

void ChunkWriter::wait_one() {
  const CompletedBlock done = queue_->wait();
  --blocks_in_flight_[done.block.tag % 2];
  if (!done.block.direct) --buffered_in_flight_;
  stats_.direct_bytes += done.direct_bytes;
  stats_.buffered_bytes += done.block.length - done.direct_bytes;
}

void ChunkWriter::append(std::span<const std::byte> chunk) {
  RMGSORT_EXPECTS(!finished_, "ChunkWriter::append after finish");
  if (!regular_) {
    write_all(fd_, path_, chunk.data(), chunk.size());
    stats_.buffered_bytes += chunk.size();
    bytes_appended_ += chunk.size();
    return;
  }
  if (mapped_) {
    append_mapped(chunk);
    return;
  }
  const std::uint64_t generation = appends_++;
  // The queue writes from this memory; it is never written to, only typed as writable for reads.
  auto* data = const_cast<std::byte*>(chunk.data());
  for (std::uint64_t done = 0; done < chunk.size();) {
    const std::uint64_t offset = base_offset_ + bytes_appended_ + done;
    const bool direct = direct_fd_.valid() && is_direct_aligned(offset) && is_direct_aligned(data + done) &&
                        chunk.size() - done >= kDirectAlignment;
    const std::uint64_t length = std::min<std::uint64_t>(options_.block_bytes, chunk.size() - done);
    push(Block{offset, data + done, length, direct, generation});
    done += length;
  }
  bytes_appended_ += chunk.size();
  queue_->submit();
  // The previous chunk's memory goes back to the caller only once all of it is written.
  while (blocks_in_flight_[(generation + 1) % 2] > 0) wait_one();
}

void ChunkWriter::append_mapped(std::span<const std::byte> chunk) {
  const std::uint64_t offset = base_offset_ + bytes_appended_;
  bytes_appended_ += chunk.size();
  const unsigned threads = mapped_threads();
  if (!write_behind_) {
    mapped_->write(chunk, offset, threads);
    stats_.buffered_bytes += chunk.size();
    return;
  }
  wait_mapped();  // the previous chunk: written before its memory goes back to the caller
  mapped_write_ = std::async(std::launch::async, [this, chunk, offset, threads] {
    mapped_->write(chunk, offset, threads);
  });
  pending_mapped_bytes_ = chunk.size();
}

void ChunkWriter::populate(std::uint64_t begin, std::uint64_t end) {
  if (!mapped_ || begin >= end) return;
  wait_mapped();  // one mapped write at a time
  mapped_->populate(base_offset_ + begin, end - begin, mapped_threads());
}

unsigned ChunkWriter::mapped_threads() const {
  return options_.mapped_threads > 0 ? options_.mapped_threads : std::max(1u, std::thread::hardware_concurrency());
}

void ChunkWriter::wait_mapped() {
  if (!mapped_write_.valid()) return;
  mapped_write_.get();  // rethrows the write's Error
  stats_.buffered_bytes += std::exchange(pending_mapped_bytes_, 0);
}

void ChunkWriter::push(const Block& block) {
  // Buffered writes go in block_bytes pieces, io_tuning::kBufferedWritesInFlight at a time (they
  // serialize on the inode lock anyway). One 1 GiB buffered request took 6.4 s for what 4 MiB pieces
  // write in 1.6 s (dev VM): the kernel restarted it from a worker.
  while (queue_->full() || (!block.direct && buffered_in_flight_ >= io_tuning::kBufferedWritesInFlight)) {
    wait_one();
  }
  queue_->push(block);
  ++blocks_in_flight_[block.tag % 2];
  if (!block.direct) ++buffered_in_flight_;
}

WriteStats ChunkWriter::finish() {
  if (finished_) return stats_;
  finished_ = true;
  if (regular_) {
    if (mapped_) {
      wait_mapped();
    } else {
      while (queue_->in_flight() > 0) wait_one();
      stats_.resubmissions = queue_->resubmissions();
    }
    // The file ends right after the data, or where it ended before: drops a preallocation that was too
    // generous, never bytes that were there before (a standard output opened read-write, `1<>file`,
    // keeps what follows the keys). io_uring writes at explicit offsets, so the position is moved by hand.
    const auto end = static_cast<off_t>(base_offset_ + bytes_appended_);
    if (ftruncate(fd_, std::max(end, static_cast<off_t>(initial_size_))) != 0)
      throw_errno(path_, "cannot set the output size");
    if (lseek(fd_, end, SEEK_SET) < 0) throw_errno(path_, "cannot set the write position");
  }
  stats_.direct = stats_.direct_bytes > 0;
  return stats_;
}

}  // namespace rmgsort
