#include "io/output_pages.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "core/error.hpp"
#include "io/detail/mapped_output.hpp"
#include "io/detail/pieces.hpp"

namespace rmgsort {
namespace {

// A thread reads pieces of this size, one at a time: the mapped writer's (io/detail/mapped_output.cpp),
// whole huge pages, and enough pieces for every thread of a large input (2 GiB: 32).
constexpr std::uint64_t kPieceBytes = std::uint64_t{64} << 20;
const std::uint64_t kPageBytes = std::uint64_t(sysconf(_SC_PAGESIZE));

[[noreturn]] void throw_shrank(const InputFile& file, std::uint64_t at) {
  throw Error(shrank_message(file.display_name(), file.data_offset + at, file.end()));
}

}  // namespace

std::unique_ptr<OutputPages> OutputPages::open(int fd, std::string name, std::uint64_t offset, std::uint64_t bytes) {
  struct stat st {};
  if (bytes == 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != 0 || !on_memory_file_system(fd))
    return nullptr;
  // A .npy header written at the position, not appended after the records.
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || (flags & O_APPEND) != 0 || lseek(fd, 0, SEEK_CUR) != 0) return nullptr;
  UniqueFd read_write = reopen_for_mapping(fd);
  if (!read_write.valid()) return nullptr;
  std::unique_ptr<OutputPages> pages(new OutputPages(fd, std::move(read_write), std::move(name), offset, bytes));
  // Sparse growth allocates nothing: each page comes when a read first stores to it. Past the file
  // size limit (`ulimit -f`: EFBIG), the records are written as usual, whose writes say whether what
  // is kept (--unique) crosses it.
  if (ftruncate(pages->read_write_.get(), off_t(offset + bytes)) != 0) {
    if (errno == EFBIG) return nullptr;
    throw_errno(pages->name_, "write failed");
  }
  pages->map();
  return pages;
}

OutputPages::OutputPages(int fd, UniqueFd read_write, std::string name, std::uint64_t offset, std::uint64_t bytes)
    : fd_(fd), read_write_(std::move(read_write)), name_(std::move(name)), offset_(offset), bytes_(bytes) {}

OutputPages::~OutputPages() { unmap(); }

void OutputPages::fill(const InputSequence& input, unsigned threads,
                       const std::function<void(std::uint64_t)>& on_copied) {
  RMGSORT_EXPECTS(input.regular() && input.size() == bytes_ && data_ != nullptr,
                  "OutputPages::fill: a regular input of the bytes given, once");
  std::uint64_t part_start = 0;
  for (const InputPart& part : input.parts()) {
    std::optional<InputFile> spare;
    const InputFile& file = part_file(part, spare);
    std::byte* const destination = data_ + part_start;
    for_each_piece((file.size + kPieceBytes - 1) / kPieceBytes, threads, [&](std::uint64_t i) {
      const std::uint64_t begin = i * kPieceBytes;
      const std::uint64_t end = std::min(file.size, begin + kPieceBytes);
      read_piece(file, destination, begin, end);
      if (on_copied) on_copied(end - begin);
    });
    part_start += file.size;
  }
}

double OutputPages::reserve_while(const std::function<void()>& work, unsigned threads) {
  RMGSORT_EXPECTS(data_ != nullptr, "OutputPages::reserve_while: before finish()");
  const std::uint64_t pieces = (mapping_bytes_ + kPieceBytes - 1) / kPieceBytes;
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> stop{false};  // WORK or a reservation failed: no piece more
  std::atomic<bool> without_fallocate{false};  // the file system has none (ramfs)
  std::mutex failure_mutex;
  std::exception_ptr failure;
  const auto reserve_pieces = [&](bool fallocate) {
    try {
      for (std::uint64_t i; !stop.load() && (i = next.fetch_add(1)) < pieces;) {
        const std::uint64_t begin = i * kPieceBytes;
        reserve_piece(begin, std::size_t(std::min<std::uint64_t>(kPieceBytes, mapping_bytes_ - begin)), fallocate);
        if (!fallocate) without_fallocate.store(true);
      }
    } catch (...) {
      stop.store(true);
      const std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  using Clock = std::chrono::steady_clock;
  Clock::time_point work_done;
  {
    std::optional<std::jthread> allocating;
    try {
      allocating.emplace([&] { reserve_pieces(true); });
    } catch (const std::system_error&) {
      reserve_pieces(true);  // no thread to be had (a process limit): before the work, not beside it
    }
    if (work) {
      try {
        work();
      } catch (...) {
        stop.store(true);
        throw;  // once the allocating thread has stopped (it joins)
      }
    }
    work_done = Clock::now();
    // Populating beside fallocate is slower than fallocate alone (16 GiB on an H200 host, the read
    // and its wait: 4.4-4.8 s, against 3.6-4.3 s): only pages fallocate cannot reserve get every core.
    if (without_fallocate.load()) {
      const unsigned helpers = std::max(threads, 1u);
      for_each_piece(helpers, helpers, [&](std::uint64_t) { reserve_pieces(false); });
    }
  }
  if (failure) std::rethrow_exception(failure);
  return std::chrono::duration<double>(Clock::now() - work_done).count();
}

void OutputPages::reserve_piece(std::uint64_t begin, std::size_t length, bool& fallocate) {
  std::byte* const pages = mapping_ + begin;
  if (fallocate) {
    const off_t file_offset = off_t(offset_ / kPageBytes * kPageBytes + begin);
    int ret;
    do {
      ret = ::fallocate(read_write_.get(), 0, file_offset, off_t(length));
    } while (ret != 0 && errno == EINTR);
    if (ret == 0) return;
    if (errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL) throw_errno(name_, "write failed");
    fallocate = false;  // (ramfs): populated from now on
  }
  if (madvise(pages, length, MADV_POPULATE_WRITE) == 0) return;
  if (errno != EINVAL) throw_page_allocation_failure(read_write_.get(), name_, errno);
  // A kernel before 5.14, which cannot populate: a read from /dev/zero into the pages allocates them,
  // and fails with EFAULT where a store would have raised SIGBUS.
  const UniqueFd zero(::open("/dev/zero", O_RDONLY | O_CLOEXEC));
  if (!zero.valid()) throw_errno("/dev/zero", "cannot open");
  for (std::size_t done = 0; done < length;) {
    const ssize_t n = ::read(zero.get(), pages + done, length - done);
    if (n > 0) {
      done += std::size_t(n);
    } else if (n < 0 && errno == EFAULT) {
      throw_page_allocation_failure(read_write_.get(), name_, errno);
    } else if (n < 0 && errno != EINTR) {
      throw_errno("/dev/zero", "read failed");
    }
  }
}

void OutputPages::read_piece(const InputFile& file, std::byte* destination, std::uint64_t begin, std::uint64_t end) {
  std::uint64_t done = begin;
  while (done < end) {
    const ssize_t n = ::pread(file.fd, destination + done, std::size_t(end - done), off_t(file.data_offset + done));
    if (n > 0) {
      done += std::uint64_t(n);
      continue;
    }
    if (n == 0) throw_shrank(file, done);
    if (errno == EINTR) continue;
    // The read stored into a page of the output that tmpfs could not allocate.
    if (errno == EFAULT) throw_page_allocation_failure(read_write_.get(), name_, errno);
    throw_errno(file.display_name(), "read failed");
  }
}

void OutputPages::map() {
  const std::uint64_t map_offset = offset_ / kPageBytes * kPageBytes;
  mapping_bytes_ = std::size_t(offset_ - map_offset + bytes_);
  void* address = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, read_write_.get(),
                       off_t(map_offset));
  if (address == MAP_FAILED) throw_errno(name_, "cannot map the output to sort in it");
  mapping_ = static_cast<std::byte*>(address);
  data_ = mapping_ + (offset_ - map_offset);
}

void OutputPages::unmap() noexcept {
  if (mapping_ != nullptr) munmap(mapping_, mapping_bytes_);
  mapping_ = nullptr;
  data_ = nullptr;
}

void OutputPages::finish(std::uint64_t kept) {
  RMGSORT_EXPECTS(kept <= bytes_, "OutputPages::finish: at most the records' bytes");
  unmap();
  if (kept < bytes_ && ftruncate(read_write_.get(), off_t(offset_ + kept)) != 0) throw_errno(name_, "write failed");
  bytes_ = kept;
  if (lseek(fd_, off_t(offset_ + kept), SEEK_SET) < 0) throw_errno(name_, "write failed");
}

}  // namespace rmgsort
