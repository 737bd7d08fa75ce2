#include "io/standard_descriptors.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <string>

#include "core/error.hpp"

namespace rmgsort {
namespace {

bool is_closed(int fd) { return fcntl(fd, F_GETFD) < 0 && errno == EBADF; }

// Opens a path-only descriptor of "/" on FD, which is closed (and, as every lower one is open, what
// open() returns). It can be neither read nor written (EBADF), and reopening it by another name
// (/dev/stdout, /proc/self/fd/1) finds a directory: a use of the closed descriptor fails, where
// /dev/null in its place would have swallowed the keys or read as an empty input.
void hold_place(int fd) {
  const int held = open("/", O_PATH | O_DIRECTORY);  // no O_CLOEXEC: as inherited
  if (held < 0) throw_errno("/", "cannot open it to hold the place of closed descriptor " + std::to_string(fd));
  if (held != fd) {
    const int placed = dup2(held, fd);
    close(held);
    if (placed != fd) throw_errno("/", "cannot hold the place of closed descriptor " + std::to_string(fd));
  }
}

}  // namespace

void refuse_closed_standard_descriptor(const std::string& path, const std::string& what) {
  static constexpr const char* kNames[] = {"standard input", "standard output", "standard error"};
  const ClosedStandardDescriptors closed = hold_closed_standard_descriptors();
  const bool closed_by_fd[] = {closed.input, closed.output, closed.error};
  struct stat named {}, held {};
  if (path == "-" || stat(path.c_str(), &named) != 0) return;
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (closed_by_fd[fd] && fstat(fd, &held) == 0 && held.st_dev == named.st_dev && held.st_ino == named.st_ino)
      throw Error(what + ": names " + kNames[fd] + ", which is closed");
  }
}

ClosedStandardDescriptors hold_closed_standard_descriptors() {
  // Once held, a closed descriptor reads as open: later calls return what the first one found.
  static std::optional<ClosedStandardDescriptors> found;
  if (found) return *found;
  ClosedStandardDescriptors closed;
  closed.input = is_closed(STDIN_FILENO);
  closed.output = is_closed(STDOUT_FILENO);
  closed.error = is_closed(STDERR_FILENO);
  // In order: once 0 is held, 1 is the lowest free number if it is closed, and so on.
  if (closed.input) hold_place(STDIN_FILENO);
  if (closed.output) hold_place(STDOUT_FILENO);
  if (closed.error) hold_place(STDERR_FILENO);
  found = closed;
  return closed;
}

}  // namespace rmgsort
