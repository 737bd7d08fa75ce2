#include "io/standard_descriptors.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <string>

#include "core/error.hpp"

namespace rmgsort {
namespace {

bool is_closed(int fd) { return fcntl(fd, F_GETFD) < 0 && errno == EBADF; }

// Opens /dev/null on FD, which is closed (and, as every lower one is open, what open() returns).
void hold_place(int fd) {
  const int held = open("/dev/null", O_RDWR);  // no O_CLOEXEC: as inherited, for any child started later
  if (held < 0)
    throw_errno("/dev/null", "cannot open it to hold the place of closed descriptor " + std::to_string(fd));
  if (held != fd) {
    const int placed = dup2(held, fd);
    close(held);
    if (placed != fd) throw_errno("/dev/null", "cannot hold the place of closed descriptor " + std::to_string(fd));
  }
}

}  // namespace

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
