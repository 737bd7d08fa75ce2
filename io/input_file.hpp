// An opened input: a regular file (read with io_uring, size known) or anything else that can be read
// as a stream (a pipe, standard input, a character device, a file whose size says nothing: empty, or
// on a kernel file system such as procfs or sysfs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rmgsort {

struct InputFile {
  std::string path;               // as given on the command line; "-" means standard input
  int fd = -1;                    // closed by the destructor unless it is standard input
  bool regular = false;           // a regular file read from data_offset up to end(): io_uring, O_DIRECT where allowed
  bool character_device = false;  // a terminal, /dev/zero, /dev/urandom: a stream that may never end
  std::uint64_t size = 0;         // bytes of data at open time; regular files only (0 for streams)
  // Where the data starts in a regular file: 0, or after a header that is not data (a .npy file's,
  // io/npy_input.hpp). Every reader of a regular file reads [data_offset, end()), and offsets that
  // readers report (block callbacks, chunks) count from data_offset.
  std::uint64_t data_offset = 0;

  InputFile() = default;
  InputFile(std::string path, int fd, bool regular, std::uint64_t size);
  ~InputFile();
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  [[nodiscard]] bool is_stdin() const { return path == "-"; }
  // The file offset just past the data: the file's size at open time.
  [[nodiscard]] std::uint64_t end() const { return data_offset + size; }
  // The name for messages: "stdin" for "-", the path otherwise.
  [[nodiscard]] std::string display_name() const { return is_stdin() ? "stdin" : path; }
};

// Opens PATH for reading ("-": standard input, not closed). A regular file is `regular` only when its
// st_size is its length: not when it is 0, nor on a kernel file system (procfs, sysfs, debugfs,
// tracefs, configfs, ...), whose files are read as streams to their end. Throws rmgsort::Error naming
// the file for a missing or unreadable file and for a directory ("PATH: is a directory").
[[nodiscard]] InputFile open_input(const std::string& path);

// The one message for an input that ended before the size it had when opened: "NAME: the file shrank
// while being read: it ended at byte END, expected EXPECTED" (the last part when it is known), END
// and EXPECTED as offsets in the file.
[[nodiscard]] std::string shrank_message(std::string_view name, std::uint64_t end,
                                         std::optional<std::uint64_t> expected);

// Which character devices an input may be: none, or /dev/null alone (it ends at once: an empty input,
// as a script's `< /dev/null` gives).
enum class NullDevice { refused, accepted };

// Throws rmgsort::Error "NAME: is a character device, not a file of WHAT" ("keys", "records") when
// FILE is one (/dev/zero, a terminal; /dev/null unless accepted): it is no file of records and may
// never end.
void refuse_character_device(const InputFile& file, std::string_view what, NullDevice null_device);

}  // namespace rmgsort
