#include "io/read_stream.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "io/blocking_io.hpp"
#include "core/error.hpp"
#include "io/io_tuning.hpp"

namespace rmgsort {
namespace {

using io_tuning::kInitialStreamBytes;
using io_tuning::kReadStepBytes;

[[noreturn]] void throw_over_limit(const std::string& name, std::uint64_t limit_bytes) {
  throw Error(name + ": input is larger than the limit of " + std::to_string(limit_bytes) + " bytes");
}

}  // namespace

HostBuffer read_stream_prefix(const InputFile& input, std::uint64_t limit_bytes, std::uint64_t& bytes_read,
                              bool& complete, std::span<const std::byte> head,
                              const std::function<void(std::size_t)>& on_read) {
  const std::string name = input.display_name();
  enlarge_pipe_buffer(input.fd);
  complete = true;
  // One byte beyond the limit tells an input that ends exactly at the limit from a longer one.
  const std::uint64_t most = limit_bytes + 1;
  HostBuffer buffer(std::max(head.size(), static_cast<std::size_t>(std::min(kInitialStreamBytes, most))));
  if (!head.empty()) std::memcpy(buffer.data(), head.data(), head.size());
  bytes_read = head.size();
  if (on_read && !head.empty()) on_read(head.size());
  for (;;) {
    if (bytes_read == buffer.size()) {
      if (bytes_read >= most) {
        complete = false;
        break;
      }
      buffer.grow(static_cast<std::size_t>(std::min(most, std::max<std::uint64_t>(2 * buffer.size(), 1))));
    }
    const std::size_t want = std::min(buffer.size() - bytes_read, kReadStepBytes);
    const std::size_t got = read_full(input.fd, name, buffer.data() + bytes_read, want);
    bytes_read += got;
    if (on_read && got > 0) on_read(got);
    if (got < want) break;
  }
  buffer.shrink(bytes_read);
  return buffer;
}

HostBuffer read_stream(const InputFile& input, std::uint64_t limit_bytes, std::uint64_t& bytes_read) {
  bool complete = true;
  HostBuffer buffer = read_stream_prefix(input, limit_bytes, bytes_read, complete);
  if (!complete) throw_over_limit(input.display_name(), limit_bytes);
  return buffer;
}

}  // namespace rmgsort
