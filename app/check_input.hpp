// An input of `rmgsort check` (FILE or --original ORIGINAL): raw records as the options describe them,
// or a NumPy .npy file, recognised by its magic bytes (not its name), whose header gives the records.
// Either way check streams the records only: a .npy header is read and checked first, and its data
// must be exactly the items its shape says.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/record_layout.hpp"
#include "io/input_file.hpp"
#include "io/npy_format.hpp"

namespace rmgsort {

struct CheckInput {
  InputFile file;
  std::optional<NpyHeader> npy;  // set when the input starts with the .npy magic
  // A raw stream's first bytes, read to look for the magic: they are its first records' bytes.
  std::vector<std::byte> raw_prefix;

  [[nodiscard]] std::string name() const { return file.display_name(); }
};

// Opens PATH ("-": standard input) without reading it, so that both of check's inputs are open
// before either is read (a FIFO FILE may wait for the reader of ORIGINAL). Throws rmgsort::Error
// naming the input for a character device, "not a file of WHAT" ("keys", "records"): it may never end
// (/dev/null is an empty input, as sort and merge take it).
[[nodiscard]] CheckInput open_check_file(const std::string& path, std::string_view what);

// Looks at INPUT's first bytes. A .npy header is read whole and checked (parse_npy_header; a
// regular file's size by check_npy_size); a regular file's data offset is then the header's end,
// and a stream stands at its first data byte. Throws
// rmgsort::Error naming the input for a malformed or unsupported header, and a file whose size
// disagrees with its header.
void read_check_header(CheckInput& input);

// Both of the above.
[[nodiscard]] CheckInput open_check_input(const std::string& path, std::string_view what = "records");

// Feeds CONSUME(data, bytes) INPUT's records of LAYOUT (whole records, in order) and returns their
// number. For a .npy input exactly the header's items: a stream with more or fewer data bytes is an
// Error naming it and both counts. A raw input that is not whole records is an Error, as before.
template <class Consume>
std::uint64_t stream_check_records(CheckInput& input, const RecordLayout& layout, Consume&& consume);

// The chunk size check reads with: whole records of about 64 MiB, a multiple of 4096 where that is near.
[[nodiscard]] std::size_t check_chunk_bytes(std::size_t record_size);

// Throws rmgsort::Error naming INPUT when its .npy data (INPUT.npy) did not hold exactly the
// header's count items: RECORDS whole records were read and MORE tells whether data followed them.
void check_npy_data_count(const CheckInput& input, std::uint64_t records, bool more);

}  // namespace rmgsort

#include "core/error.hpp"
#include "io/record_stream.hpp"

namespace rmgsort {

template <class Consume>
std::uint64_t stream_check_records(CheckInput& input, const RecordLayout& layout, Consume&& consume) {
  const CutRecordMessage cut = input.npy ? CutRecordMessage::bytes_after_last : CutRecordMessage::input_bytes;
  RecordStream stream(input.file, layout, check_chunk_bytes(layout.record_size), input.raw_prefix, cut);
  const std::uint64_t limit = input.npy ? input.npy->data_bytes() : UINT64_MAX;
  std::uint64_t bytes = 0;
  const auto next = [&] {
    if (!input.npy) return stream.next();
    try {
      return stream.next();
    } catch (const Error& e) {  // a .npy stream cut inside an item: say what its header promised
      throw Error(std::string(e.what()) + "; its .npy header's shape says " + std::to_string(input.npy->count) +
                  " items of " + std::to_string(input.npy->item_size) + " bytes");
    }
  };
  for (std::span<const std::byte> chunk = next(); !chunk.empty(); chunk = next()) {
    if (chunk.size() > limit - bytes) check_npy_data_count(input, limit / layout.record_size, true);
    consume(chunk.data(), chunk.size());
    bytes += chunk.size();
  }
  const std::uint64_t records = bytes / layout.record_size;
  if (input.npy) check_npy_data_count(input, records, false);
  return records;
}

}  // namespace rmgsort
