// An opened input: a regular file (read with io_uring, size known) or anything else that can be read
// as a stream (a pipe, standard input, a character device).
#pragma once

#include <cstdint>
#include <string>

namespace rmgsort {

struct InputFile {
  std::string path;        // as given on the command line; "-" means standard input
  int fd = -1;             // closed by the destructor unless it is standard input
  bool regular = false;    // a regular file read from offset 0: io_uring, O_DIRECT where allowed
  std::uint64_t size = 0;  // bytes at open time; regular files only (0 for streams)

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

// Opens PATH for reading ("-": standard input, not closed). Throws rmgsort::Error naming the file for a
// missing or unreadable file and for a directory ("PATH: is a directory").
[[nodiscard]] InputFile open_input(const std::string& path);

}  // namespace rmgsort
