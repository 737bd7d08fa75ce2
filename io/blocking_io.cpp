#include "io/blocking_io.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "core/error.hpp"

namespace rmgsort {
namespace {

// Linux transfers at most 2 GiB - 4 KiB per call; asking for 1 GiB keeps every count in range.
constexpr std::size_t kMaxCallBytes = std::size_t{1} << 30;

void wait_until(int fd, short events) {
  pollfd entry{fd, events, 0};
  (void)poll(&entry, 1, -1);
}

}  // namespace

std::size_t read_full(int fd, std::string_view name, std::byte* dst, std::size_t bytes) {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t got = read(fd, dst + done, std::min(bytes - done, kMaxCallBytes));
    if (got > 0) {
      done += static_cast<std::size_t>(got);
    } else if (got == 0) {
      break;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      wait_until(fd, POLLIN);
    } else if (errno != EINTR) {
      throw_errno(name, "read failed");
    }
  }
  return done;
}

void write_all(int fd, std::string_view name, const std::byte* src, std::size_t bytes) {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t put = write(fd, src + done, std::min(bytes - done, kMaxCallBytes));
    if (put > 0) {
      done += static_cast<std::size_t>(put);
    } else if (put == 0) {
      throw_errno(name, "write failed", EIO);
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      wait_until(fd, POLLOUT);
    } else if (errno != EINTR) {
      throw_errno(name, "write failed");
    }
  }
}

void pwrite_all(int fd, std::string_view name, const std::byte* src, std::size_t bytes, std::uint64_t offset) {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t put =
        pwrite(fd, src + done, std::min(bytes - done, kMaxCallBytes), static_cast<off_t>(offset + done));
    if (put > 0) {
      done += static_cast<std::size_t>(put);
    } else if (put == 0) {
      throw_errno(name, "write failed", EIO);
    } else if (errno != EINTR) {
      throw_errno(name, "write failed");
    }
  }
}

void enlarge_pipe_buffer(int fd) noexcept { (void)fcntl(fd, F_SETPIPE_SZ, 1 << 20); }

}  // namespace rmgsort
