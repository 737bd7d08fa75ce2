#include "io/output_pages.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "io/blocking_io.hpp"
#include "io/detail/mapped_output.hpp"

namespace rmgsort {
namespace {

// A thread copies pieces of this size, one at a time (2 GiB: 32 pieces for two threads to share).
constexpr std::uint64_t kPieceBytes = std::uint64_t{64} << 20;
// The buffer of a copy through user space, where the kernel does not copy between the two files.
constexpr std::size_t kBounceBytes = std::size_t{4} << 20;

// copy_file_range() failures that say the kernel does not copy between these two files (another
// file system, a kernel without it), not that a read or a write failed: pread and pwrite then do.
bool kernel_cannot_copy(int err) {
  return err == EXDEV || err == EINVAL || err == ENOSYS || err == EOPNOTSUPP || err == EBADF;
}

// Failures of a copy that are the output's: its file system is full, or the file too large.
bool output_failure(int err) { return err == ENOSPC || err == EDQUOT || err == EFBIG; }

[[noreturn]] void throw_shrank(const InputFile& file, std::uint64_t at) {
  throw Error(file.display_name() + ": the file shrank while being read: it ended at byte " +
              std::to_string(file.data_offset + at) + ", expected " + std::to_string(file.end()));
}

// Copies the data [begin, end) of one input part to the output from byte OUT_BASE + begin on.
class PartCopier {
 public:
  PartCopier(const InputFile& file, int out, const std::string& out_name, std::uint64_t out_base,
             std::atomic<bool>& kernel_copies)
      : file_(file), out_(out), out_name_(out_name), out_base_(out_base), kernel_copies_(kernel_copies) {}

  void copy(std::uint64_t begin, std::uint64_t end, std::vector<std::byte>& bounce) {
    std::uint64_t done = begin;
    while (done < end) {
      if (kernel_copies_.load(std::memory_order_relaxed)) {
        loff_t in = loff_t(file_.data_offset + done);
        loff_t out = loff_t(out_base_ + done);
        const ssize_t n = ::copy_file_range(file_.fd, &in, out_, &out, std::size_t(end - done), 0);
        if (n > 0) {
          done += std::uint64_t(n);
          continue;
        }
        if (n == 0) throw_shrank(file_, done);
        if (errno == EINTR) continue;
        if (kernel_cannot_copy(errno)) {
          kernel_copies_.store(false, std::memory_order_relaxed);
          continue;
        }
        if (output_failure(errno)) throw_errno(out_name_, "write failed");
        throw_errno(file_.display_name(), "read failed");
      }
      if (bounce.empty()) bounce.resize(kBounceBytes);
      const std::size_t want = std::size_t(std::min<std::uint64_t>(end - done, bounce.size()));
      const ssize_t n = ::pread(file_.fd, bounce.data(), want, off_t(file_.data_offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw_errno(file_.display_name(), "read failed");
      if (n == 0) throw_shrank(file_, done);
      pwrite_all(out_, out_name_, bounce.data(), std::size_t(n), out_base_ + done);
      done += std::uint64_t(n);
    }
  }

 private:
  const InputFile& file_;
  int out_;
  const std::string& out_name_;
  std::uint64_t out_base_;
  std::atomic<bool>& kernel_copies_;
};

}  // namespace

std::unique_ptr<OutputPages> OutputPages::open(int fd, std::string name, std::uint64_t offset, std::uint64_t bytes) {
  struct stat st {};
  if (bytes == 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != 0 || !on_memory_file_system(fd))
    return nullptr;
  // Through /proc: the same open file even when it has no name (O_TMPFILE), with read access added.
  const std::string proc_path = "/proc/self/fd/" + std::to_string(fd);
  UniqueFd read_write(::open(proc_path.c_str(), O_RDWR | O_CLOEXEC));
  if (!read_write.valid()) return nullptr;
  return std::unique_ptr<OutputPages>(new OutputPages(std::move(read_write), std::move(name), offset, bytes));
}

OutputPages::OutputPages(UniqueFd read_write, std::string name, std::uint64_t offset, std::uint64_t bytes)
    : read_write_(std::move(read_write)), name_(std::move(name)), offset_(offset), bytes_(bytes) {}

OutputPages::~OutputPages() { unmap(); }

void OutputPages::fill(const InputSequence& input, unsigned threads,
                       const std::function<void(std::uint64_t)>& on_copied) {
  RMGSORT_EXPECTS(input.regular() && input.size() == bytes_, "OutputPages::fill: a regular input of the bytes given");
  std::atomic<bool> kernel_copies{true};
  std::uint64_t part_start = 0;
  for (const InputPart& part : input.parts()) {
    std::optional<InputFile> spare;
    const InputFile& file = part_file(part, spare);
    PartCopier copier(file, read_write_.get(), name_, offset_ + part_start, kernel_copies);
    const std::uint64_t pieces = (file.size + kPieceBytes - 1) / kPieceBytes;
    std::atomic<std::uint64_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    const auto work = [&] {
      std::vector<std::byte> bounce;
      for (std::uint64_t i = next++; i < pieces && !failed.load(std::memory_order_relaxed); i = next++) {
        const std::uint64_t begin = i * kPieceBytes;
        const std::uint64_t end = std::min(file.size, begin + kPieceBytes);
        try {
          copier.copy(begin, end, bounce);
        } catch (...) {
          std::lock_guard lock(failure_mutex);
          if (!failure) failure = std::current_exception();
          failed = true;
          return;
        }
        if (on_copied) on_copied(end - begin);
      }
    };
    std::vector<std::thread> helpers;
    const std::uint64_t helper_count = std::min<std::uint64_t>(std::max(threads, 1u), pieces) - (pieces > 0 ? 1 : 0);
    for (std::uint64_t t = 0; t < helper_count; ++t) helpers.emplace_back(work);
    work();
    for (std::thread& helper : helpers) helper.join();
    if (failure) std::rethrow_exception(failure);
    part_start += file.size;
  }
  map();
}

void OutputPages::map() {
  const std::uint64_t page = std::uint64_t(sysconf(_SC_PAGESIZE));
  const std::uint64_t map_offset = offset_ / page * page;
  mapping_bytes_ = std::size_t(offset_ - map_offset + bytes_);
  // Populated now: the pages are there (the copy made them), only the page tables are filled.
  void* address = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, read_write_.get(),
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

void OutputPages::keep(std::uint64_t kept) {
  RMGSORT_EXPECTS(kept <= bytes_, "OutputPages::keep: at most the records' bytes");
  unmap();
  if (ftruncate(read_write_.get(), off_t(offset_ + kept)) != 0) throw_errno(name_, "write failed");
  bytes_ = kept;
}

}  // namespace rmgsort
