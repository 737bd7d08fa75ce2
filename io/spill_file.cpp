#include "io/spill_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>

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
UniqueFd create_and_unlink(const std::string& dir) {
  static std::atomic<std::uint64_t> files{0};
  for (int attempt = 0;; ++attempt) {
    const std::string path = dir + "/.rmgsort-spill-" + std::to_string(::getpid()) + "-" + std::to_string(files++);
    CleanupRegistration registration(path);
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      ::unlink(path.c_str());
      return UniqueFd(fd);
    }
    if (errno != EEXIST || attempt > 100) throw_errno("--temp-dir " + dir, "cannot create a spill file");
  }
}

// How errors name a spill file in memory.
constexpr const char* kMemoryName = "spill memory";

UniqueFd create_anonymous(const std::string& dir) {
  if (dir.empty()) {
    const int fd = ::memfd_create("rmgsort-spill", MFD_CLOEXEC);
    if (fd >= 0) return UniqueFd(fd);
    throw_errno(kMemoryName, "cannot create an anonymous memory file");
  }
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return UniqueFd(fd);
  // EOPNOTSUPP: the file system has no O_TMPFILE; EISDIR: the kernel has none (before Linux 3.11).
  if (errno == EOPNOTSUPP || errno == EISDIR) return create_and_unlink(dir);
  throw_errno("--temp-dir " + dir, "cannot create a spill file");
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

}  // namespace

SpillFile::SpillFile(const std::string& temp_dir, std::size_t rounds, std::size_t table_bytes)
    : name_(temp_dir.empty() ? std::string(kMemoryName) : "--temp-dir " + temp_dir + ": spill file"),
      fd_(create_anonymous(temp_dir)),
      rounds_(rounds),
      page_rows_(std::max<std::size_t>(1, table_bytes / (8 + 4 * rounds))),
      page_(page_bytes()),
      round_bytes_(rounds, 0) {
  RMGSORT_EXPECTS(rounds > 0, "a spill file of at least one round");
}

void SpillFile::append(std::span<const std::byte> chunk, std::span<const std::uint64_t> round_ends) {
  RMGSORT_EXPECTS(appending_ && round_ends.size() == rounds_ && round_ends.back() == chunk.size() &&
                      chunk.size() <= std::numeric_limits<std::uint32_t>::max(),
                  "SpillFile::append takes a chunk of at most 4 GiB and the end of each of its rounds");
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
  pread_exact(file_.fd(), file_.name(), into(offsets_), 8 * at.rows, at.offset);
  pread_exact(file_.fd(), file_.name(), into(ends_), 4 * at.rows, columns + round_ * column_bytes);
  if (round_ == 0) {
    std::fill(starts_, starts_ + at.rows, 0);
  } else {
    pread_exact(file_.fd(), file_.name(), into(starts_), 4 * at.rows, columns + (round_ - 1) * column_bytes);
  }
  rows_ = at.rows;
  row_ = 0;
  passed_ = 0;
}

bool SpillRoundReader::next_segment(std::uint64_t& offset, std::uint64_t& bytes) {
  for (;;) {
    if (row_ >= rows_) {
      if (page_ >= file_.pages_.size()) return false;
      load_page(page_++);
      continue;
    }
    const std::uint64_t length = ends_[row_] - starts_[row_];
    if (passed_ < length) {
      offset = offsets_[row_] + starts_[row_] + passed_;
      bytes = length - passed_;
      return true;
    }
    ++row_;
    passed_ = 0;
  }
}

std::size_t SpillRoundReader::read(std::byte* dst, std::size_t capacity) {
  if (!queue_) {
    queue_ = std::make_unique<BlockQueue>(TransferKind::read, FileDescriptors{file_.fd(), -1}, file_.name(), kReadDepth);
    // Cached segments would otherwise be copied one at a time inside the submitting call.
    queue_->set_async_buffered(true);
  }
  std::size_t done = 0;
  std::uint64_t offset = 0, bytes = 0;
  while (done < capacity && next_segment(offset, bytes)) {
    const std::size_t take = std::size_t(std::min<std::uint64_t>({bytes, capacity - done, kMaxReadBytes}));
    if (queue_->full()) (void)queue_->wait();
    queue_->push(Block{offset, dst + done, take, false, 0});
    passed_ += take;
    done += take;
  }
  while (queue_->in_flight() > 0) (void)queue_->wait();
  left_ -= done;
  return done;
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
    : reader_(file, round), buffers_{HostBuffer(chunk_bytes), HostBuffer(chunk_bytes)} {
  read_ahead();
}

std::span<const std::byte> SpillRoundChunks::next() {
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
