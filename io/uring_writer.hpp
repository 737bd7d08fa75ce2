// Writing outputs: a whole buffer to a file at disk speed (write_file), or front to back in chunks
// with the write running behind the caller (ChunkWriter, in io/chunk_writer.hpp). This header is the
// writing API; include it for both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "io/chunk_writer.hpp"

namespace rmgsort {

// Writes BYTES of SRC to FD at its current position (0 for a new file) and ends a regular file right
// after them, or where it ended before if that is further (what follows is kept). A regular file is written through io_uring with
// several large requests in flight: O_DIRECT for the 4096-aligned body when SRC and the position are
// 4096-aligned and the file system allows it, the unaligned tail buffered (no padding, so SRC needs no
// spare capacity). Anything else (a pipe, a terminal, a file opened with O_APPEND) gets plain write()
// calls. Throws rmgsort::Error naming PATH for a failed write, e.g.
// "out.bin: write failed: No space left on device", or "stdout: write failed: Broken pipe".
WriteStats write_file(int fd, const std::string& path, const std::byte* src, std::uint64_t bytes,
                      const WriteOptions& options = {});

}  // namespace rmgsort
