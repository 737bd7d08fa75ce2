// O_DIRECT: when to use it, its alignment rule, and a second descriptor that carries it.
#pragma once

#include <cstdint>

#include "io/unique_fd.hpp"

namespace rmgsort {

// How a transfer chooses between O_DIRECT and the page cache.
enum class DirectIo {
  // O_DIRECT for blocks that are not (mostly) in the page cache, buffered for those that are: a
  // cached block copies at memory speed (a file just written by `rmgsort generate` is still cached),
  // an uncached one streams from the disk without polluting the cache. The default.
  automatic,
  // O_DIRECT wherever the file system and the alignment allow it, cached or not.
  prefer,
  // Buffered only.
  never,
};

[[nodiscard]] const char* to_string(DirectIo mode);

// O_DIRECT offsets, lengths and memory addresses are multiples of this. 4096 covers every logical
// block size seen in practice (512 and 4096); file systems that need more are detected by
// open_direct_twin and read buffered.
inline constexpr std::uint64_t kDirectAlignment = 4096;

[[nodiscard]] constexpr bool is_direct_aligned(std::uint64_t value) { return value % kDirectAlignment == 0; }
[[nodiscard]] inline bool is_direct_aligned(const void* address) {
  return is_direct_aligned(reinterpret_cast<std::uintptr_t>(address));
}
[[nodiscard]] constexpr std::uint64_t round_up_to_direct(std::uint64_t value) {
  return (value + kDirectAlignment - 1) / kDirectAlignment * kDirectAlignment;
}
[[nodiscard]] constexpr std::uint64_t round_down_to_direct(std::uint64_t value) {
  return value / kDirectAlignment * kDirectAlignment;
}

// A second descriptor of FD's open file (through /proc/self/fd) with O_DIRECT added to ACCESS (O_RDONLY
// or O_WRONLY), or an invalid UniqueFd where the file system refuses O_DIRECT (EINVAL from open, or a
// statx direct-I/O alignment above kDirectAlignment), where the file lives in memory anyway (tmpfs,
// ramfs), or where /proc is missing. Never throws: O_DIRECT is
// only ever an optimization.
[[nodiscard]] UniqueFd open_direct_twin(int fd, int access);

}  // namespace rmgsort
