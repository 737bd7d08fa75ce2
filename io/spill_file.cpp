#include "io/spill_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>
#include <system_error>
#include <thread>

#include "io/detail/block_queue.hpp"
#include "io/blocking_io.hpp"
#include "io/cleanup.hpp"
#include "core/error.hpp"

namespace rmgsort {
namespace {

// Reads of a round in flight at once, and the most bytes one of them asks for: a long segment is
// split so that several kernel workers copy it.
constexpr unsigned kReadDepth = 32;
constexpr std::uint64_t kMaxReadBytes = std::uint64_t{1} << 20;

// The fallback where the file system refuses O_TMPFILE: a fresh name, created exclusively and
// unlinked at once. The name is registered for removal on signals before the file exists, so a signal
// in between leaves nothing behind.
UniqueFd create_and_unlink(const TempDir& dir) {
  static std::atomic<std::uint64_t> files{0};
  for (int attempt = 0;; ++attempt) {
    const std::string path = dir.path + "/.rmgsort-spill-" + std::to_string(::getpid()) + "-" + std::to_string(files++);
    CleanupRegistration registration(path);
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      ::unlink(path.c_str());
      return UniqueFd(fd);
    }
    if (errno != EEXIST || attempt > 100) throw_errno(dir.name, "cannot create a spill file");
  }
}

// How errors name a spill file in memory.
constexpr const char* kMemoryName = "spill memory";

UniqueFd create_anonymous(const TempDir& dir) {
  RMGSORT_EXPECTS(!dir.path.empty(), "a spill file in a directory");
  const int fd = ::open(dir.path.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return UniqueFd(fd);
  // EOPNOTSUPP: the file system has no O_TMPFILE; EISDIR: the kernel has none (before Linux 3.11).
  if (errno == EOPNOTSUPP || errno == EISDIR) return create_and_unlink(dir);
  throw_errno(dir.name, "cannot create a spill file");
}

void pread_exact(int fd, const std::string& name, std::byte* dst, std::size_t bytes, std::uint64_t offset) {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t got = ::pread(fd, dst + done, bytes - done, off_t(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw_errno(name, "read failed");
    if (got == 0) throw_errno(name, "read failed", EIO);  // shorter than what was written: never expected
    done += std::size_t(got);
  }
}

// One copy of a chunk into spill memory, or of a round out of it.
struct Copy {
  std::byte* dst;
  const std::byte* src;
  std::size_t bytes;
};

// Copies of fewer bytes than this a thread are made by fewer threads: starting one costs tens of
// microseconds, and 8 MiB keeps each busy for about a millisecond (memcpy into backed memory: 8.4
// GB/s a thread on a 2-core host). Pieces of 2 MiB (a huge page) are handed out one at a time, so
// that a slow thread holds up little. (Not tuned further: a 64 MiB chunk takes 8 threads.)
constexpr std::size_t kBytesPerCopyThread = std::size_t{8} << 20;
constexpr std::size_t kCopyPieceBytes = std::size_t{2} << 20;

// Makes COPIES (TOTAL bytes in all) from at most THREADS threads.
void copy_all(const std::vector<Copy>& copies, std::uint64_t total, unsigned threads) {
  const std::size_t count = std::min<std::uint64_t>(threads, total / kBytesPerCopyThread);
  if (count <= 1) {
    for (const Copy& copy : copies) std::memcpy(copy.dst, copy.src, copy.bytes);
    return;
  }
  std::vector<Copy> pieces;
  for (const Copy& copy : copies) {
    for (std::size_t at = 0; at < copy.bytes; at += kCopyPieceBytes)
      pieces.push_back(Copy{copy.dst + at, copy.src + at, std::min(kCopyPieceBytes, copy.bytes - at)});
  }
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < pieces.size(); i = next++) {
      std::memcpy(pieces[i].dst, pieces[i].src, pieces[i].bytes);
    }
  };
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < count; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the ones there make every copy
    }
  }
  work();
  for (std::thread& helper : helpers) helper.join();
}

}  // namespace

SpillMemory SpillMemory::reserve(std::uint64_t bytes, unsigned threads) {
  SpillMemory memory;
  memory.threads_ = std::max(threads, 1u);
  if (bytes == 0) return memory;
  try {
    memory.owned_ = HostBuffer(std::size_t(bytes));
  } catch (const Error& e) {
    throw Error(std::string(kMemoryName) + ": " + e.what(), e.error_number());
  }
  // Backed now, from every thread, before the pass: chunks are then copied in at memory speed
  // (8.4 GB/s a thread into backed memory against 4.2 on first touch, on a 2-core host), and a
  // machine short of memory fails here, before any work. Leaving the first touch to the copies
  // instead ran the same on that host (10M 100-byte records, within its noise); a host of many
  // cores populates at 31 GB/s, 0.3 s for 10 GB.
  populate_pages(memory.owned_.data(), std::size_t(bytes), memory.threads_);
  memory.extents_.push_back(Extent{memory.owned_.data(), bytes});
  memory.starts_.push_back(0);
  memory.size_ = bytes;
  return memory;
}

SpillMemory SpillMemory::reuse_round(const SpillFile& file, std::size_t round) {
  RMGSORT_EXPECTS(file.in_memory(), "SpillMemory::reuse_round of a spill file in memory");
  SpillMemory memory;
  memory.threads_ = file.memory_.threads_;
  SpillRoundReader reader(file, round);
  (void)reader.take(reader.bytes_left(), std::numeric_limits<std::uint64_t>::max(),
                    [&](std::uint64_t offset, std::uint64_t bytes) {
                      file.memory_.pieces(offset, bytes, [&](std::byte* data, std::uint64_t length) {
                        memory.extents_.push_back(Extent{data, length});
                        memory.starts_.push_back(memory.size_);
                        memory.size_ += length;
                      });
                    });
  return memory;
}

std::size_t SpillMemory::extent_at(std::uint64_t offset, std::uint64_t& into) const {
  const auto after = std::upper_bound(starts_.begin(), starts_.end(), offset);
  const std::size_t extent = std::size_t(after - starts_.begin()) - 1;
  into = offset - starts_[extent];
  return extent;
}

template <class F>
void SpillMemory::pieces(std::uint64_t offset, std::uint64_t bytes, F&& f) const {
  if (bytes == 0) return;
  std::uint64_t into = 0;
  for (std::size_t extent = extent_at(offset, into); bytes > 0; ++extent, into = 0) {
    const std::uint64_t length = std::min(bytes, extents_[extent].bytes - into);
    f(extents_[extent].data + into, length);
    bytes -= length;
  }
}

SpillFile::SpillFile(const TempDir& temp_dir, std::size_t rounds, std::size_t table_bytes)
    : name_(temp_dir.name + ": spill file"),
      fd_(create_anonymous(temp_dir)),
      rounds_(rounds),
      page_rows_(std::max<std::size_t>(1, table_bytes / (8 + 4 * rounds))),
      page_(page_bytes()),
      round_bytes_(rounds, 0) {
  RMGSORT_EXPECTS(rounds > 0, "a spill file of at least one round");
}

SpillFile::SpillFile(SpillMemory memory, std::size_t rounds)
    : name_(kMemoryName), rounds_(rounds), page_rows_(0), memory_(std::move(memory)), round_bytes_(rounds, 0) {
  RMGSORT_EXPECTS(rounds > 0, "a spill file of at least one round");
}

void SpillFile::append(std::span<const std::byte> chunk, std::span<const std::uint64_t> round_ends) {
  RMGSORT_EXPECTS(appending_ && round_ends.size() == rounds_ && round_ends.back() == chunk.size() &&
                      chunk.size() <= std::numeric_limits<std::uint32_t>::max(),
                  "SpillFile::append takes a chunk of at most 4 GiB and the end of each of its rounds");
  if (in_memory()) {
    append_in_memory(chunk, round_ends);
    return;
  }
  std::memcpy(page_.data() + rows_in_page_ * 8, &size_, 8);
  std::uint64_t start = 0;
  for (std::size_t r = 0; r < rounds_; ++r) {
    const auto end = std::uint32_t(round_ends[r]);
    std::memcpy(page_.data() + 8 * page_rows_ + 4 * (r * page_rows_ + rows_in_page_), &end, 4);
    round_bytes_[r] += end - start;
    start = end;
  }
  write(chunk.data(), chunk.size());
  if (++rows_in_page_ == page_rows_) write_page();
}

void SpillFile::append_in_memory(std::span<const std::byte> chunk, std::span<const std::uint64_t> round_ends) {
  RMGSORT_EXPECTS(chunk.size() <= memory_.size() - size_, "spill memory: the chunks fit its reservation");
  chunk_offsets_.push_back(size_);
  std::uint64_t start = 0;
  for (std::size_t r = 0; r < rounds_; ++r) {
    chunk_ends_.push_back(std::uint32_t(round_ends[r]));
    round_bytes_[r] += round_ends[r] - start;
    start = round_ends[r];
  }
  std::vector<Copy> copies;
  std::size_t done = 0;
  memory_.pieces(size_, chunk.size(), [&](std::byte* at, std::uint64_t bytes) {
    copies.push_back(Copy{at, chunk.data() + done, std::size_t(bytes)});
    done += std::size_t(bytes);
  });
  copy_all(copies, chunk.size(), memory_.threads_);
  size_ += chunk.size();
}

void SpillFile::finish_appending() {
  RMGSORT_EXPECTS(appending_, "SpillFile::finish_appending twice");
  write_page();
  page_ = HostBuffer();
  appending_ = false;
}

void SpillFile::write(const std::byte* data, std::size_t bytes) {
  pwrite_all(fd_.get(), name_, data, bytes, size_);
  size_ += bytes;
}

void SpillFile::write_page() {
  if (rows_in_page_ == 0) return;
  pages_.push_back(Page{size_, rows_in_page_});
  write(page_.data(), page_bytes());
  rows_in_page_ = 0;
}

SpillRoundReader::SpillRoundReader(const SpillFile& file, std::size_t round)
    : file_(file), round_(round), left_(file.round_bytes(round)) {
  RMGSORT_EXPECTS(!file.appending_ && round < file.rounds(), "a round of a spill file whose appending is over");
}

SpillRoundReader::~SpillRoundReader() = default;

void SpillRoundReader::load_page(std::size_t page) {
  const std::size_t most = file_.page_rows_;
  if (columns_.size() == 0) {
    columns_ = HostBuffer(16 * most);
    offsets_ = columns_.as<std::uint64_t>();
    starts_ = reinterpret_cast<std::uint32_t*>(offsets_ + most);
    ends_ = starts_ + most;
  }
  const SpillFile::Page& at = file_.pages_[page];
  const std::uint64_t columns = at.offset + 8 * most;
  const std::uint64_t column_bytes = 4 * std::uint64_t(most);
  const auto into = [](auto* column) { return reinterpret_cast<std::byte*>(column); };
  pread_exact(file_.fd_.get(), file_.name(), into(offsets_), 8 * at.rows, at.offset);
  pread_exact(file_.fd_.get(), file_.name(), into(ends_), 4 * at.rows, columns + round_ * column_bytes);
  if (round_ == 0) {
    std::fill(starts_, starts_ + at.rows, 0);
  } else {
    pread_exact(file_.fd_.get(), file_.name(), into(starts_), 4 * at.rows, columns + (round_ - 1) * column_bytes);
  }
  rows_ = at.rows;
  row_ = 0;
  passed_ = 0;
}

bool SpillRoundReader::next_segment(std::uint64_t& offset, std::uint64_t& bytes) {
  for (;;) {
    if (row_ >= rows_) {
      if (file_.in_memory()) {
        // The table is in memory whole: one "page" of every row.
        if (page_ > 0) return false;
        page_ = 1;
        rows_ = file_.chunk_offsets_.size();
        row_ = 0;
        passed_ = 0;
        continue;
      }
      if (page_ >= file_.pages_.size()) return false;
      load_page(page_++);
      continue;
    }
    std::uint64_t chunk = 0, start = 0, end = 0;
    if (file_.in_memory()) {
      const std::uint32_t* ends = file_.chunk_ends_.data() + row_ * file_.rounds_;
      chunk = file_.chunk_offsets_[row_];
      start = round_ == 0 ? 0 : ends[round_ - 1];
      end = ends[round_];
    } else {
      chunk = offsets_[row_];
      start = starts_[row_];
      end = ends_[row_];
    }
    if (passed_ < end - start) {
      offset = chunk + start + passed_;
      bytes = end - start - passed_;
      return true;
    }
    ++row_;
    passed_ = 0;
  }
}

template <class F>
std::uint64_t SpillRoundReader::take(std::uint64_t capacity, std::uint64_t most_per_piece, F&& f) {
  std::uint64_t done = 0, offset = 0, bytes = 0;
  while (done < capacity && next_segment(offset, bytes)) {
    const std::uint64_t piece = std::min({bytes, capacity - done, most_per_piece});
    f(offset, piece);
    passed_ += piece;
    done += piece;
  }
  left_ -= done;
  return done;
}

std::size_t SpillRoundReader::read(std::byte* dst, std::size_t capacity) {
  std::size_t done = 0;
  if (file_.in_memory()) {
    std::vector<Copy> copies;
    (void)take(capacity, std::numeric_limits<std::uint64_t>::max(), [&](std::uint64_t offset, std::uint64_t bytes) {
      file_.memory_.pieces(offset, bytes, [&](const std::byte* at, std::uint64_t length) {
        copies.push_back(Copy{dst + done, at, std::size_t(length)});
        done += std::size_t(length);
      });
    });
    copy_all(copies, done, file_.memory_.threads_);
    return done;
  }
  if (!queue_) {
    queue_ = std::make_unique<BlockQueue>(TransferKind::read, FileDescriptors{file_.fd_.get(), -1}, file_.name(),
                                          kReadDepth);
    // Cached segments would otherwise be copied one at a time inside the submitting call.
    queue_->set_async_buffered(true);
  }
  (void)take(capacity, kMaxReadBytes, [&](std::uint64_t offset, std::uint64_t bytes) {
    if (queue_->full()) (void)queue_->wait();
    queue_->push(Block{offset, dst + done, std::size_t(bytes), false, 0});
    done += std::size_t(bytes);
  });
  while (queue_->in_flight() > 0) (void)queue_->wait();
  return done;
}

std::span<const std::byte> SpillRoundReader::lend(std::size_t most) {
  RMGSORT_EXPECTS(file_.in_memory() && most > 0, "SpillRoundReader::lend of a spill file in memory");
  std::uint64_t offset = 0, bytes = 0;
  if (!next_segment(offset, bytes)) return {};
  std::uint64_t into = 0;
  const SpillMemory::Extent& extent = file_.memory_.extents_[file_.memory_.extent_at(offset, into)];
  const std::size_t length = std::size_t(std::min<std::uint64_t>({bytes, most, extent.bytes - into}));
  passed_ += length;
  left_ -= length;
  return {extent.data + into, length};
}

void SpillRoundReader::skip(std::uint64_t bytes) {
  RMGSORT_EXPECTS(bytes <= left_, "SpillRoundReader::skip past the round's end");
  left_ -= bytes;
  std::uint64_t offset = 0, length = 0;
  while (bytes > 0 && next_segment(offset, length)) {
    const std::uint64_t take = std::min(bytes, length);
    passed_ += take;
    bytes -= take;
  }
}

SpillRoundChunks::SpillRoundChunks(const SpillFile& file, std::size_t round, std::size_t chunk_bytes)
    : reader_(file, round), chunk_bytes_(chunk_bytes) {
  if (file.in_memory()) return;
  buffers_[0] = HostBuffer(chunk_bytes);
  buffers_[1] = HostBuffer(chunk_bytes);
  read_ahead();
}

std::span<const std::byte> SpillRoundChunks::next() {
  if (buffers_[0].size() == 0) return reader_.lend(chunk_bytes_);  // in memory
  if (!ahead_.valid()) return {};
  const std::size_t got = ahead_.get();  // rethrows the read's Error
  HostBuffer& filled = buffers_[filling_];
  filling_ ^= 1;
  // The caller is done with the other buffer, the chunk it had last.
  if (reader_.bytes_left() > 0) read_ahead();
  return {filled.data(), got};
}

void SpillRoundChunks::read_ahead() {
  HostBuffer& buffer = buffers_[filling_];
  ahead_ = std::async(std::launch::async, [this, &buffer] { return reader_.read(buffer.data(), buffer.size()); });
}

}  // namespace rmgsort
