#include "io/detail/page_cache.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <vector>

namespace rmgsort {
namespace {

// cachestat(2) is newer than the kernel headers of Debian 12, so its ABI is spelled out here
// (include/uapi/linux/mman.h). The syscall number is 451 on every architecture.
constexpr long kCachestatSyscall = 451;
struct CachestatRange {
  std::uint64_t off;
  std::uint64_t len;
};
struct Cachestat {
  std::uint64_t nr_cache;
  std::uint64_t nr_dirty;
  std::uint64_t nr_writeback;
  std::uint64_t nr_evicted;
  std::uint64_t nr_recently_evicted;
};

std::atomic<bool> g_cachestat_missing{false};

const std::uint64_t kPageBytes = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));

// Returns cached pages, or -1 when cachestat is unavailable.
long long cached_pages_by_cachestat(int fd, std::uint64_t offset, std::uint64_t length) {
  if (g_cachestat_missing.load(std::memory_order_relaxed)) return -1;
  CachestatRange range{offset, length};
  Cachestat stat{};
  if (syscall(kCachestatSyscall, fd, &range, &stat, 0) == 0) return static_cast<long long>(stat.nr_cache);
  if (errno == ENOSYS || errno == EPERM) g_cachestat_missing.store(true, std::memory_order_relaxed);
  return -1;
}

// mincore on a shared file mapping reports page-cache residency without faulting anything in.
long long cached_pages_by_mincore(int fd, std::uint64_t offset, std::uint64_t length) {
  const std::uint64_t start = offset / kPageBytes * kPageBytes;
  const std::uint64_t bytes = offset + length - start;
  void* mapping = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(start));
  if (mapping == MAP_FAILED) return -1;
  std::vector<unsigned char> residency((bytes + kPageBytes - 1) / kPageBytes);
  long long cached = -1;
  if (mincore(mapping, bytes, residency.data()) == 0) {
    cached = 0;
    for (unsigned char page : residency) cached += page & 1;
  }
  munmap(mapping, bytes);
  return cached;
}

}  // namespace

bool mostly_in_page_cache(int fd, std::uint64_t offset, std::uint64_t length) {
  if (length == 0) return true;
  const std::uint64_t pages = (offset + length + kPageBytes - 1) / kPageBytes - offset / kPageBytes;
  long long cached = cached_pages_by_cachestat(fd, offset, length);
  if (cached < 0) cached = cached_pages_by_mincore(fd, offset, length);
  if (cached < 0) return false;
  return 2 * static_cast<std::uint64_t>(cached) >= pages;
}

}  // namespace rmgsort
