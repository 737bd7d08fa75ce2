#include "io/output_pages.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <utility>

#include "core/error.hpp"
#include "io/detail/mapped_output.hpp"
#include "io/detail/pieces.hpp"

namespace rmgsort {
namespace {

// A thread reads pieces of this size, one at a time: the mapped writer's (io/detail/mapped_output.cpp),
// whole huge pages, and enough pieces for every thread of a large input (2 GiB: 32).
constexpr std::uint64_t kPieceBytes = std::uint64_t{64} << 20;

[[noreturn]] void throw_shrank(const InputFile& file, std::uint64_t at) {
  throw Error(file.display_name() + ": the file shrank while being read: it ended at byte " +
              std::to_string(file.data_offset + at) + ", expected " + std::to_string(file.end()));
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
  // Sparse growth allocates nothing: each page comes when a read first stores to it.
  if (ftruncate(pages->read_write_.get(), off_t(offset + bytes)) != 0) throw_errno(pages->name_, "write failed");
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

void OutputPages::reserve(unsigned threads) {
  RMGSORT_EXPECTS(data_ != nullptr, "OutputPages::reserve: before finish()");
  int ret;
  do {
    ret = fallocate(read_write_.get(), 0, off_t(offset_), off_t(bytes_));
  } while (ret != 0 && errno == EINTR);
  if (ret == 0) return;
  if (errno != EOPNOTSUPP && errno != ENOSYS) throw_errno(name_, "write failed");
  const std::span<std::byte> pages = mapped();
  for_each_piece((pages.size() + kPieceBytes - 1) / kPieceBytes, threads, [&](std::uint64_t i) {
    const std::uint64_t begin = i * kPieceBytes;
    const std::size_t length = std::size_t(std::min<std::uint64_t>(kPieceBytes, pages.size() - begin));
    // EINVAL: a kernel before 5.14, which cannot populate. Only ramfs lacks fallocate, and it has no
    // size to run out of: its stores do not fail.
    if (madvise(pages.data() + begin, length, MADV_POPULATE_WRITE) != 0 && errno != EINVAL)
      throw_page_allocation_failure(read_write_.get(), name_, errno);
  });
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
  const std::uint64_t page = std::uint64_t(sysconf(_SC_PAGESIZE));
  const std::uint64_t map_offset = offset_ / page * page;
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
