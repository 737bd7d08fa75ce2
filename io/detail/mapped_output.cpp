#include "io/detail/mapped_output.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "io/detail/pieces.hpp"

namespace rmgsort {
namespace {

// Each thread populates and fills pieces of this size, one at a time (a multiple of every page size).
constexpr std::size_t kPieceBytes = std::size_t{64} << 20;

bool kernel_populates_mappings() {
  const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  void* probe = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) return false;
  const bool supported = madvise(probe, page, MADV_POPULATE_WRITE) == 0;
  munmap(probe, page);
  return supported;
}

// A shared mapping that is unmapped when it goes out of scope.
class Mapping {
 public:
  Mapping(int fd, std::uint64_t offset, std::size_t bytes, const std::string& path) : bytes_(bytes) {
    void* address = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset));
    if (address == MAP_FAILED) throw_errno(path, "cannot map the output for writing");
    data_ = static_cast<std::byte*>(address);
  }
  ~Mapping() { munmap(data_, bytes_); }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  [[nodiscard]] std::byte* data() const { return data_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t bytes_;
};

}  // namespace

bool on_memory_file_system(int fd) {
  struct statfs fs {};
  if (fstatfs(fd, &fs) != 0) return false;
  return fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC;
}

UniqueFd reopen_for_mapping(int fd) {
  // The reopening gets write access from the file's permissions: only a descriptor opened for
  // writing may have it (standard output opened read-only, `1< FILE`, is written as usual: refused).
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) return UniqueFd();
  // Through /proc: the same open file even when it was renamed or unlinked (or never had a name,
  // O_TMPFILE), with read access added; invalid for e.g. a file its owner may not read.
  const std::string proc_path = "/proc/self/fd/" + std::to_string(fd);
  return UniqueFd(::open(proc_path.c_str(), O_RDWR | O_CLOEXEC));
}

std::unique_ptr<MappedOutput> MappedOutput::open(int fd, std::string path) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !on_memory_file_system(fd)) return nullptr;
  static const bool populates = kernel_populates_mappings();  // once: spill files open one per append
  if (!populates) return nullptr;
  UniqueFd read_write = reopen_for_mapping(fd);
  if (!read_write.valid()) return nullptr;  // written as usual
  return std::unique_ptr<MappedOutput>(new MappedOutput(std::move(read_write), std::move(path), std::uint64_t(st.st_size)));
}

MappedOutput::MappedOutput(UniqueFd read_write, std::string path, std::uint64_t size)
    : read_write_(std::move(read_write)), path_(std::move(path)), size_(size) {}

void MappedOutput::write(std::span<const std::byte> data, std::uint64_t offset, unsigned threads) {
  fill(data.data(), offset, data.size(), threads);
}

void MappedOutput::populate(std::uint64_t offset, std::uint64_t bytes, unsigned threads) {
  fill(nullptr, offset, bytes, threads);
}

void MappedOutput::fill(const std::byte* data, std::uint64_t offset, std::uint64_t bytes, unsigned threads) {
  if (bytes == 0) return;
  const std::uint64_t end = offset + bytes;
  if (end > size_) {
    // Sparse growth allocates nothing: the pages come when they are populated below.
    if (ftruncate(read_write_.get(), off_t(end)) != 0) throw_errno(path_, "write failed");
    size_ = end;
  }
  const std::uint64_t page = std::uint64_t(sysconf(_SC_PAGESIZE));
  const std::uint64_t map_offset = offset / page * page;
  const std::size_t lead = std::size_t(offset - map_offset);  // bytes of the first page before DATA
  const std::size_t span = lead + std::size_t(bytes);
  const Mapping mapping(read_write_.get(), map_offset, span, path_);

  const std::size_t pieces = (span + kPieceBytes - 1) / kPieceBytes;
  for_each_piece(pieces, threads, [&](std::uint64_t i) {
    const std::size_t begin = std::size_t(i) * kPieceBytes;
    const std::size_t length = std::min(kPieceBytes, span - begin);
    // Allocating the pages first turns a full file system into an error code: a plain store into
    // a page tmpfs cannot allocate raises SIGBUS.
    if (madvise(mapping.data() + begin, length, MADV_POPULATE_WRITE) != 0)
      throw_page_allocation_failure(read_write_.get(), path_, errno);
    if (data == nullptr) return;  // populate()
    const std::size_t from = std::max(begin, lead);  // the first page's lead belongs to the file
    std::memcpy(mapping.data() + from, data + (from - lead), begin + length - from);
  });
}

void throw_page_allocation_failure(int fd, const std::string& path, int err) {
  // EFAULT is the SIGBUS a store would have raised: tmpfs could not allocate a page. That is a full
  // file system when it has less than a piece left (unless the file shrank under us), else a memory
  // limit (the control group's, which counts tmpfs pages).
  if (err == EFAULT) {
    struct statvfs fs {};
    const bool full = fstatvfs(fd, &fs) == 0 && std::uint64_t(fs.f_bavail) * fs.f_frsize < kPieceBytes;
    err = full ? ENOSPC : ENOMEM;
  }
  throw_errno(path, "write failed", err);
}

}  // namespace rmgsort
