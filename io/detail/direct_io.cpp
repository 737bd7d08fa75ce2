#include "io/detail/direct_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <string>

#include "io/detail/mapped_output.hpp"  // on_memory_file_system

namespace rmgsort {

const char* to_string(DirectIo mode) {
  switch (mode) {
    case DirectIo::automatic:
      return "automatic";
    case DirectIo::prefer:
      return "prefer";
    case DirectIo::never:
      return "never";
  }
  return "?";
}

namespace {

// statx reports the direct-I/O alignment since Linux 6.1 on file systems that know it (ext4, xfs,
// f2fs, block devices). Returns false only when it says O_DIRECT is impossible or too strict for us.
bool direct_alignment_acceptable(int fd) {
#ifdef STATX_DIOALIGN
  struct statx sx {};
  if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) != 0) return true;  // unknown: try it
  if ((sx.stx_mask & STATX_DIOALIGN) == 0) return true;                     // not reported: try it
  if (sx.stx_dio_offset_align == 0) return false;                           // no O_DIRECT here
  return sx.stx_dio_offset_align <= kDirectAlignment && sx.stx_dio_mem_align <= kDirectAlignment;
#else
  (void)fd;
  return true;
#endif
}

}  // namespace

UniqueFd open_direct_twin(int fd, int access) {
  // tmpfs accepts O_DIRECT since Linux 6.6, but there it is the same page-cache copy as a buffered
  // transfer; declining it keeps "direct" meaning "bypasses the page cache" in the statistics.
  if (on_memory_file_system(fd) || !direct_alignment_acceptable(fd)) return {};
  // Reopening through /proc gives the same file even when it was renamed or unlinked, or is standard
  // input redirected from a file; a fresh descriptor keeps the caller's O_DIRECT-free one untouched.
  const std::string proc_path = "/proc/self/fd/" + std::to_string(fd);
  return UniqueFd(open(proc_path.c_str(), access | O_DIRECT | O_CLOEXEC));
}

}  // namespace rmgsort
