// Several inputs read as one: their concatenation, in the order given (`rmgsort sort A B C`), as one
// sized source or one stream. Every part holds whole records, each checked on its own and named in
// the errors: a regular file by its size when it is opened, a stream at its end (a .npy stream
// against its header's shape too), so a record never spans two parts.
//
// When every part is a regular file (sized), the sequence is a file of size() bytes to the planner
// and its readers keep a file's fast paths: io_uring into memory part by part, pread at any offset
// of the concatenation for the spill pass's sample, chunks read ahead (io/sequence_reading.hpp).
// When any part is a stream (a pipe, standard input, a file whose size says nothing), the whole
// sequence is read front to back through read(): each stream's descriptor in turn, and each regular
// file by position (pread), its data up to its size at open.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/record_layout.hpp"
#include "io/input_file.hpp"
#include "io/npy_format.hpp"
#include "io/reopened_input.hpp"

namespace rmgsort {

// One input, opened and its format told by its first bytes.
struct InputPart {
  InputFile file;                 // a .npy file's data_offset and size are its data's
  std::optional<NpyHeader> npy;   // absent: raw data
  // A raw stream's first bytes, read to tell its format (at most kNpyMagicBytes): its data's start,
  // handed on before the descriptor is read.
  std::vector<std::byte> head;
  bool ended = false;  // a stream whose end was met while its head was read: its data is `head`, all of it
  // A regular file closed until it is read (close_until_read): what it was. Its `file` keeps its
  // name, size and data_offset, without a descriptor; read it through part_file().
  std::optional<InputProbe> closed;
};

// Opens PATH ("-": standard input) and reads its .npy header, if it starts with one (io/npy_input.hpp).
// Throws rmgsort::Error naming the file, as open_input() and read_npy_header() do, and, before
// reading anything, as refuse_character_device(WHAT) does (/dev/null accepted: an empty input).
[[nodiscard]] InputPart open_input_part(const std::string& path, std::string_view what);

// How many inputs a sort holds open at once: half the open-file limit LIMIT (the rest for the
// readers' rings and O_DIRECT twins, the outputs, spill files, the GPU driver's); beyond them,
// each regular input is closed once opened and checked, and opened again for its turn.
[[nodiscard]] std::size_t inputs_held_open_at_most(std::size_t limit);

// Closes PART's descriptor when it is a regular file other than standard input, keeping what it
// was; part_file() opens it again. And a stream known to be empty (an empty file, read as a stream)
// has nothing left to read: its descriptor goes too. (Another stream cannot be opened again: it
// stays open.)
void close_until_read(InputPart& part);

// PART's file to read: itself while it holds its descriptor, else opened again into SPARE (which the
// caller keeps while it reads it). Throws rmgsort::Error naming the file when it is not the file,
// the size and the contents it was when first opened.
[[nodiscard]] const InputFile& part_file(const InputPart& part, std::optional<InputFile>& spare);

class InputSequence {
 public:
  InputSequence() = default;
  // The concatenation of PARTS, in order, records of LAYOUT. A regular part must hold whole records
  // already (the caller checks its size, before anything is read: it is named best where it is
  // opened); a stream is checked at its end.
  InputSequence(std::vector<InputPart> parts, const RecordLayout& layout);
  InputSequence(InputSequence&&) noexcept = default;
  InputSequence& operator=(InputSequence&&) noexcept = default;

  // Every part is a regular file (or a stream known to be empty): a source of size() bytes.
  [[nodiscard]] bool regular() const { return regular_; }
  // Bytes of data in every part; regular sequences only (0 for streams).
  [[nodiscard]] std::uint64_t size() const { return size_; }
  [[nodiscard]] const std::vector<InputPart>& parts() const { return parts_; }
  // The name for messages: one part's display_name(), or every part's, joined by ", ".
  [[nodiscard]] const std::string& display_name() const { return name_; }

  // Regular sequences: up to BYTES of the concatenation's data from OFFSET into DST (pread, across
  // parts; fewer only at the end). Throws rmgsort::Error naming the part for a failed read.
  std::size_t read_at(std::byte* dst, std::size_t bytes, std::uint64_t offset) const;

  // Streams: the next BYTES of the concatenation into DST, from where the last call stopped (each
  // part's head, then its descriptor); fewer only at the end of the last part. Throws rmgsort::Error
  // naming the part when it is no whole number of records, when a .npy stream's data is not exactly
  // its header's (as soon as it holds more), and for a failed read.
  std::size_t read(std::byte* dst, std::size_t bytes);
  // Streams: bytes returned by read() so far.
  [[nodiscard]] std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  void finish_part(const InputPart& part) const;

  std::vector<InputPart> parts_;
  RecordLayout layout_ = RecordLayout::bare_key(KeyType::u32);
  bool regular_ = true;
  std::uint64_t size_ = 0;
  std::vector<std::uint64_t> starts_;  // regular: each part's first byte in the concatenation
  std::string name_;
  // Where read() stands: the part, and the bytes of its data returned so far (head included).
  std::size_t current_ = 0;
  std::uint64_t part_bytes_ = 0;
  std::uint64_t bytes_read_ = 0;
  std::optional<InputFile> current_file_;  // the part read() stands in, when opened again
};

}  // namespace rmgsort
