// Is a range of a file in the page cache? Decides, block by block, between a buffered read (a copy at
// memory speed) and an O_DIRECT read (a disk transfer that skips the cache).
#pragma once

#include <cstdint>

namespace rmgsort {

// True when at least half of the pages of [offset, offset + length) of FD are in the page cache
// (dirty ones included). A block that is half cached costs a disk transfer either way, and the
// buffered read of it also keeps the cached half; below half, O_DIRECT's larger requests win.
// Uses cachestat(2) (Linux 6.5), else mincore(2) on a temporary mapping; where neither works,
// answers false (read direct). Thread-safe.
[[nodiscard]] bool mostly_in_page_cache(int fd, std::uint64_t offset, std::uint64_t length);

}  // namespace rmgsort
