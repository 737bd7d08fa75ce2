// rmgsort check: streams FILE (any size) once, checking the order of its keys (records), counting the
// records whose key equals the previous one's and computing its checksum; with --input streams
// ORIGINAL too and compares the checksums (of whole records: count and content). One summary line on
// stdout.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "app/commands.hpp"
#include "core/error.hpp"
#include "host/checksum.hpp"
#include "host/order_check.hpp"
#include "io/input_file.hpp"
#include "io/record_stream.hpp"
#include "io/standard_descriptors.hpp"

namespace rmgsort {
namespace {

// 64 MiB chunks: large enough for full-speed reads, small enough to check any file size.
constexpr std::size_t kCheckChunkBytes = std::size_t{64} << 20;

// Whole records of about kCheckChunkBytes, and a multiple of 4096 where that is near (so a regular
// file's chunks are read without a copy); one record at least.
std::size_t check_chunk_bytes(std::size_t record_size) {
  std::size_t step = record_size;
  while (step % 4096 != 0) step *= 2;               // record_size * 2^k, a multiple of 4096 ...
  if (step > kCheckChunkBytes) step = record_size;  // ... unless that is too large
  return std::max(step, kCheckChunkBytes / step * step);
}

// Opens PATH for checking, refusing before anything is read a regular file that does not hold whole
// records and a character device: /dev/zero or a terminal never ends, so a check of one would never finish.
InputFile open_records(const std::string& path, const RecordLayout& layout) {
  InputFile input = open_input(path);
  const std::string name = input.display_name();
  const char* what = layout.is_bare_key() ? "keys" : "records";
  if (input.character_device) throw Error(name + ": is a character device, not a file of " + what);
  if (input.regular) (void)layout.whole_records(name, input.size);
  return input;
}

// Feeds `consume` whole records only (io/record_stream.hpp re-cuts a pipe's reads that end inside a
// record); a stream that ends inside a record is an Error. Returns the records.
template <class Consume>
std::uint64_t stream_records(const InputFile& input, const RecordLayout& layout, Consume&& consume) {
  RecordStream stream(input, layout, check_chunk_bytes(layout.record_size));
  for (std::span<const std::byte> chunk = stream.next(); !chunk.empty(); chunk = stream.next())
    consume(chunk.data(), chunk.size());
  return stream.bytes_returned() / layout.record_size;
}

// "6 u32 keys", or "6 100-byte records (bytes:10 key at offset 0)".
std::string count_of(std::uint64_t count, const RecordLayout& layout) {
  if (layout.is_bare_key()) return std::to_string(count) + " " + std::string(key_type_name(layout.key_type)) + " keys";
  return std::to_string(count) + " " + std::to_string(layout.record_size) + "-byte records (" + layout.key().name() +
         " key at offset " + std::to_string(layout.key_offset) + ")";
}

}  // namespace

int run_check(const CheckOptions& options) {
  const RecordLayout& layout = options.layout;
  if (options.file == "-" && options.original == "-")
    throw Error("check: FILE and --input cannot both be standard input");
  if ((options.file == "-" || options.original == "-") && hold_closed_standard_descriptors().input)
    throw Error("standard input is closed: give the file's name");
  // Both are opened before either is read, so that a bad --input is refused at once.
  const InputFile file = open_records(options.file, layout);
  std::optional<InputFile> original_file;
  if (options.original) original_file = open_records(*options.original, layout);
  OrderChecker order(layout, options.order);
  KeyChecksum checksum;
  const std::uint64_t records = stream_records(file, layout, [&](const std::byte* data, std::size_t bytes) {
    order.feed(data, bytes);
    checksum += checksum_records(data, bytes, layout.record_size);
  });
  const std::string name = file.display_name();
  const std::string order_name = options.order == SortOrder::ascending ? "ascending" : "descending";

  // "OK NAME: 6 u32 keys in ascending order; 1 duplicate keys; checksum HEX[; a permutation of ORIGINAL]"
  std::string summary = name + ": ";
  bool ok = true;
  if (const auto at = order.first_disorder()) {
    ok = false;
    summary += "NOT in " + order_name + " order: " + (layout.is_bare_key() ? "key " : "record ") +
               std::to_string(*at) + " of " + count_of(records, layout) + " is out of order";
  } else {
    summary += count_of(records, layout) + " in " + order_name + " order";
  }
  summary += "; " + std::to_string(order.duplicate_keys()) + " duplicate keys; checksum " + checksum.hex();

  if (options.original) {
    KeyChecksum original;
    stream_records(*original_file, layout, [&](const std::byte* data, std::size_t bytes) {
      original += checksum_records(data, bytes, layout.record_size);
    });
    const std::string original_name = original_file->display_name();
    if (original == checksum) {
      summary += "; a permutation of " + original_name;
    } else {
      ok = false;
      summary += "; NOT a permutation of " + original_name + " (" + std::to_string(original.keys) +
                 (layout.is_bare_key() ? " keys" : " records") + ", checksum " + original.hex() + ")";
    }
  }
  std::printf("%s %s\n", ok ? "OK" : "FAIL", summary.c_str());
  std::fflush(stdout);
  return ok ? kExitOk : kExitCheckFailed;
}

}  // namespace rmgsort
