#include "io/uring_writer.hpp"

#include <span>

namespace rmgsort {

WriteStats write_file(int fd, const std::string& path, const std::byte* src, std::uint64_t bytes,
                      const WriteOptions& options) {
  ChunkWriter writer(fd, path, options, bytes, /*write_behind=*/false);
  // One chunk: split into options.block_bytes requests, options.queue_depth of them in flight.
  writer.append(std::span<const std::byte>(src, static_cast<std::size_t>(bytes)));
  return writer.finish();
}

}  // namespace rmgsort
