#include "io/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

#include "io/error.hpp"

namespace rmgsort {

InputFile::InputFile(std::string path_, int fd_, bool regular_, std::uint64_t size_)
    : path(std::move(path_)), fd(fd_), regular(regular_), size(size_) {}

InputFile::~InputFile() {
  if (fd >= 0 && !is_stdin()) close(fd);
}

InputFile::InputFile(InputFile&& other) noexcept
    : path(std::move(other.path)), fd(std::exchange(other.fd, -1)), regular(other.regular), size(other.size) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    InputFile old(std::move(*this));
    path = std::move(other.path);
    fd = std::exchange(other.fd, -1);
    regular = other.regular;
    size = other.size;
  }
  return *this;
}

InputFile open_input(const std::string& path) {
  const bool is_stdin = path == "-";
  const std::string name = is_stdin ? "stdin" : path;
  int fd = STDIN_FILENO;
  if (!is_stdin) {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw_errno(name, "cannot open");
  }
  InputFile input(path, fd, false, 0);  // owns fd from here on

  struct stat st {};
  if (fstat(fd, &st) != 0) throw_errno(name, "cannot stat");
  // open(O_RDONLY) succeeds on a directory; read() would then fail with a less helpful EISDIR.
  if (S_ISDIR(st.st_mode)) throw Error(name + ": is a directory");
  input.regular = S_ISREG(st.st_mode);
  // Standard input redirected from a file but already partly consumed (`{ head -c 8 >/dev/null; cmd; }
  // < file`) is read from where it stands, as a stream; io_uring would read from offset 0.
  if (is_stdin && input.regular && lseek(fd, 0, SEEK_CUR) != 0) input.regular = false;
  input.size = input.regular ? static_cast<std::uint64_t>(st.st_size) : 0;
  return input;
}

}  // namespace rmgsort
