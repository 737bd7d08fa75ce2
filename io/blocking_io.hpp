// Plain read()/write() loops for pipes, terminals and character devices, where io_uring gains nothing:
// interrupted calls and short transfers are continued, errors become rmgsort::Error naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rmgsort {

// Reads until BYTES are in DST or the input ends; returns the bytes read (< BYTES only at the end).
std::size_t read_full(int fd, std::string_view name, std::byte* dst, std::size_t bytes);

// Writes all BYTES of SRC. A non-blocking descriptor (EAGAIN) is waited for with poll(). EPIPE (the
// reader went away; SIGPIPE is ignored by install_cleanup_signal_handlers) is an Error like any other.
void write_all(int fd, std::string_view name, const std::byte* src, std::size_t bytes);

// Writes all BYTES of SRC at OFFSET of a regular file.
void pwrite_all(int fd, std::string_view name, const std::byte* src, std::size_t bytes, std::uint64_t offset);

// Asks for a 1 MiB pipe buffer (the default 64 KiB costs a system call and a context switch per 64 KiB
// on each side). Harmless when FD is not a pipe or the limit is lower.
void enlarge_pipe_buffer(int fd) noexcept;

}  // namespace rmgsort
