// An opened input: a regular file (read with io_uring, size known) or anything else that can be read
// as a stream (a pipe, standard input, a character device, a file whose size says nothing: empty, or
// on a kernel file system such as procfs or sysfs).
#pragma once

#include <cstdint>
#include <string>

namespace rmgsort {

struct InputFile {
  std::string path;               // as given on the command line; "-" means standard input
  int fd = -1;                    // closed by the destructor unless it is standard input
  bool regular = false;           // a regular file read from offset 0 up to size: io_uring, O_DIRECT where allowed
  bool character_device = false;  // a terminal, /dev/zero, /dev/urandom: a stream that may never end
  std::uint64_t size = 0;         // bytes at open time; regular files only (0 for streams)

  InputFile() = default;
  InputFile(std::string path, int fd, bool regular, std::uint64_t size);
  ~InputFile();
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  [[nodiscard]] bool is_stdin() const { return path == "-"; }
  // The name for messages: "stdin" for "-", the path otherwise.
  [[nodiscard]] std::string display_name() const { return is_stdin() ? "stdin" : path; }
};

// Opens PATH for reading ("-": standard input, not closed). A regular file is `regular` only when its
// st_size is its length: not when it is 0, nor on a kernel file system (procfs, sysfs, debugfs,
// tracefs, configfs, ...), whose files are read as streams to their end. Throws rmgsort::Error naming
// the file for a missing or unreadable file and for a directory ("PATH: is a directory").
[[nodiscard]] InputFile open_input(const std::string& path);

}  // namespace rmgsort
