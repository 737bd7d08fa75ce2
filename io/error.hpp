// The one error vocabulary of rmgsort. Every layer throws rmgsort::Error (or a subclass); app/ turns
// it into an exit code in one place. Messages always name the file (or device) and the cause.
#pragma once

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace rmgsort {

// Usage, input, I/O, memory or device error: exit code 2.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "PATH: WHAT: strerror(err)", e.g. "out/keys.bin: cannot open for writing: No such file or directory".
[[nodiscard]] inline std::string errno_message(std::string_view path, std::string_view what, int err) {
  std::string message;
  message.append(path).append(": ").append(what).append(": ").append(std::strerror(err));
  return message;
}

[[noreturn]] inline void throw_errno(std::string_view path, std::string_view what, int err = errno) {
  throw Error(errno_message(path, what, err));
}

// Precondition check that stays on in release builds.
#define RMGSORT_EXPECTS(cond, message)                                                        \
  do {                                                                                        \
    if (!(cond)) throw ::rmgsort::Error(std::string("internal error: ") + (message) + " (" + \
                                        __FILE__ + ":" + std::to_string(__LINE__) + ")");     \
  } while (0)

}  // namespace rmgsort
