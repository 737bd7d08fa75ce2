#include "io/input_file.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <utility>

#include "core/error.hpp"

namespace rmgsort {
namespace {

// configfs's magic number is not exported to user space.
constexpr decltype(statfs::f_type) kConfigfsMagic = 0x62656570;

// Kernel file systems whose files are generated when read: st_size is 0 (procfs), one page (sysfs) or
// another guess, never the length of what a read returns. Their files are read as streams, to their end.
bool size_is_a_guess(int fd) {
  struct statfs fs {};
  if (fstatfs(fd, &fs) != 0) return false;  // st_size is all there is to go by
  switch (fs.f_type) {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case kConfigfsMagic:
    case SECURITYFS_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
    case PSTOREFS_MAGIC:
    case EFIVARFS_MAGIC:
    case SELINUX_MAGIC:
    case SMACK_MAGIC:
    case BPF_FS_MAGIC:
    case BINFMTFS_MAGIC:
      return true;
    default:
      return false;
  }
}

}  // namespace

InputFile::InputFile(std::string path_, int fd_, bool regular_, std::uint64_t size_)
    : path(std::move(path_)), fd(fd_), regular(regular_), size(size_) {}

InputFile::~InputFile() {
  if (fd >= 0 && !is_stdin()) close(fd);
}

InputFile::InputFile(InputFile&& other) noexcept
    : path(std::move(other.path)),
      fd(std::exchange(other.fd, -1)),
      regular(other.regular),
      character_device(other.character_device),
      size(other.size),
      data_offset(other.data_offset) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    InputFile old(std::move(*this));
    path = std::move(other.path);
    fd = std::exchange(other.fd, -1);
    regular = other.regular;
    character_device = other.character_device;
    size = other.size;
    data_offset = other.data_offset;
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
  if (S_ISDIR(st.st_mode)) throw Error(name + ": is a directory, not a file to read");
  input.regular = S_ISREG(st.st_mode);
  input.character_device = S_ISCHR(st.st_mode);
  // A regular file is read up to its size at open, so that size must be the file's length. A size of
  // 0 says nothing (procfs reports 0 for files full of text; a really empty file reads as an empty
  // stream just the same), nor does any size on a kernel file system.
  if (input.regular && (st.st_size == 0 || size_is_a_guess(fd))) input.regular = false;
  // Standard input redirected from a file but already partly consumed (`{ head -c 8 >/dev/null; cmd; }
  // < file`) is read from where it stands, as a stream; io_uring would read from offset 0.
  if (is_stdin && input.regular && lseek(fd, 0, SEEK_CUR) != 0) input.regular = false;
  input.size = input.regular ? static_cast<std::uint64_t>(st.st_size) : 0;
  return input;
}

void refuse_character_device(const InputFile& file, std::string_view what, NullDevice null_device) {
  if (!file.character_device) return;
  struct stat st {};
  // Linux's /dev/null: character device 1, 3 (whatever its name or link).
  const bool is_null =
      fstat(file.fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3;
  if (is_null && null_device == NullDevice::accepted) return;
  if (isatty(file.fd))
    throw Error(file.display_name() + ": is a terminal, not a file of " + std::string(what) +
                ": name a file, or pipe or redirect the data in");
  throw Error(file.display_name() + ": is a character device, not a file of " + std::string(what));
}

std::string shrank_message(std::string_view name, std::uint64_t end, std::optional<std::uint64_t> expected) {
  std::string message =
      std::string(name) + ": the file shrank while being read: it ended at byte " + std::to_string(end);
  if (expected) message += ", expected " + std::to_string(*expected);
  return message;
}

}  // namespace rmgsort
