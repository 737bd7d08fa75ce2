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
  Error(const std::string& message, int error_number) : std::runtime_error(message), error_number_(error_number) {}

  // The errno the error came from (ENOMEM, ENOSPC, EFBIG, ...), so that callers can tell causes apart
  // without matching text; 0 when it came from none.
  [[nodiscard]] int error_number() const noexcept { return error_number_; }

 private:
  int error_number_ = 0;
};

// "PATH: WHAT: strerror(err)", e.g. "out/keys.bin: cannot open for writing: No such file or directory".
[[nodiscard]] inline std::string errno_message(std::string_view path, std::string_view what, int err) {
  std::string message;
  message.append(path).append(": ").append(what).append(": ").append(std::strerror(err));
  return message;
}

[[noreturn]] inline void throw_errno(std::string_view path, std::string_view what, int err = errno) {
  throw Error(errno_message(path, what, err), err);
}

// Precondition check that stays on in release builds.
#define RMGSORT_EXPECTS(cond, message)                                                        \
  do {                                                                                        \
    if (!(cond)) throw ::rmgsort::Error(std::string("internal error: ") + (message) + " (" + \
                                        __FILE__ + ":" + std::to_string(__LINE__) + ")");     \
  } while (0)

}  // namespace rmgsort
