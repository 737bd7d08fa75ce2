// rmgsort check: streams FILE (any size) once, checking the order of its keys (records) in the
// order -r and --float-order name, counting the records whose key equals the previous one's and
// computing its checksum; with --original streams ORIGINAL too and compares the checksums (of whole
// records: count and content). One summary line on stdout, which names the first record out of
// order, where it lies and both keys. A .npy FILE or ORIGINAL (app/check_input.hpp) is checked by
// its data: the header gives FILE's records, and the checksums compare records, never headers.
#include <unistd.h>

#include <optional>
#include <string>

#include "app/check_input.hpp"
#include "app/commands.hpp"
#include "app/separate_outputs.hpp"
#include "core/error.hpp"
#include "host/checksum.hpp"
#include "host/key_format.hpp"
#include "host/order_check.hpp"
#include "io/blocking_io.hpp"
#include "io/standard_descriptors.hpp"
#include "report/printable.hpp"
#include "report/progress.hpp"
#include "report/stopwatch.hpp"

namespace rmgsort {
namespace {

// "6 u32 keys", or "6 100-byte records (bytes:10 key at offset 0)".
std::string count_of(std::uint64_t count, const RecordLayout& layout) {
  if (layout.is_bare_key()) return std::to_string(count) + " " + std::string(key_type_name(layout.key_type)) + " keys";
  return std::to_string(count) + " " + std::to_string(layout.record_size) + "-byte records (" + layout.key().name() +
         " key at offset " + std::to_string(layout.key_offset) + ")";
}

// FILE's records: from its .npy header (--key, --type agreeing), else from the options (--type required).
RecordLayout file_layout(const CheckInput& file, const CheckOptions& options) {
  const std::string name = file.name();
  if (file.npy) {
    if (options.record_options_given)
      throw Error("--record-size/--key-offset: " + name + " is a .npy file, whose header gives its records");
    return npy_record_layout(*file.npy, options.key_field, options.type, name);
  }
  if (options.key_field)
    throw Error("--key " + *options.key_field + ": " + name + " is not a .npy file (no fields to name)");
  if (!options.type) throw Error("--type: required, as " + name + " is not a .npy file");
  return record_layout_option(*options.type, options.record_size, options.key_offset);
}

// "ascending order", or for floating-point keys checked in IEEE order "ascending order (--float-order ieee)".
std::string order_text(const CheckOptions& options, const RecordLayout& layout) {
  std::string text = options.order == SortOrder::ascending ? "ascending order" : "descending order";
  if (options.float_order == FloatOrder::ieee && (layout.key_type == KeyType::f32 || layout.key_type == KeyType::f64))
    text += " (--float-order ieee)";
  return text;
}

// "key 4 of 6 u32 keys is out of order (4 after 5, at byte offset 16)", or "record 2 of 4 13-byte
// records (u64 key at offset 3) is out of order (key 0 after 11, at byte offset 26)". The offset is
// the record's first byte in FILE: past a .npy header, whose DATA_START bytes come first.
std::string disorder_text(const Disorder& disorder, std::uint64_t records, const RecordLayout& layout,
                          std::uint64_t data_start) {
  const KeySpec key = layout.key();
  return std::string(layout.is_bare_key() ? "key " : "record ") + std::to_string(disorder.index) + " of " +
         count_of(records, layout) + " is out of order (" + (layout.is_bare_key() ? "" : "key ") +
         format_key(disorder.key.data(), key) + " after " + format_key(disorder.previous.data(), key) +
         ", at byte offset " + std::to_string(data_start + disorder.index * layout.record_size) + ")";
}

// A raw ORIGINAL must hold whole records of LAYOUT, a .npy one records of the same size (the
// checksums compare records' bytes, whatever the headers say of them).
void check_original(const CheckInput& original, const RecordLayout& layout, const std::string& file_name) {
  const std::string name = original.name();
  if (original.npy) {
    if (original.npy->item_size != layout.record_size)
      throw Error("--original " + name + ": its .npy items are " + std::to_string(original.npy->item_size) +
                  " bytes, the records of " + file_name + " " + std::to_string(layout.record_size) + " bytes");
  } else if (original.file.regular) {
    (void)layout.whole_records(name, original.file.size);
  }
}

// The bytes of INPUT's records, as its progress counts them: a file's (after a .npy header); 0 for
// a stream, whose length is not known.
std::uint64_t data_bytes(const CheckInput& input) {
  if (!input.file.regular) return 0;
  return input.npy ? input.npy->data_bytes() : input.file.size;
}

}  // namespace

int run_check(const CheckOptions& options) {
  const Stopwatch wall;
  if (options.file == "-" && options.original == "-")
    throw Error("check: FILE and --original cannot both be standard input");
  if ((options.file == "-" || options.original == "-") && hold_closed_standard_descriptors().input)
    throw Error("standard input is closed: give the file's name");
  // One stream by two names ("-" and /dev/stdin, a FIFO twice): FILE would read it all, ORIGINAL nothing.
  if (options.original) require_streams_named_once({options.file, *options.original});
  // Both are opened (and their headers read) before either's records are, so that a bad --original
  // is refused at once, and as FILE may be a FIFO whose writer waits for ORIGINAL to be open. A
  // character device is refused as "not a file of keys" when the options describe bare keys, else
  // "of records".
  const bool bare = options.type && !options.key_field &&
                    record_layout_option(*options.type, options.record_size, options.key_offset).is_bare_key();
  const char* what = bare ? "keys" : "records";
  CheckInput file = open_check_file(options.file, what);
  std::optional<CheckInput> original_file;
  if (options.original) original_file = open_check_file(*options.original, what);
  read_check_header(file);
  const RecordLayout layout = file_layout(file, options);
  if (!file.npy && file.file.regular) (void)layout.whole_records(file.name(), file.file.size);
  if (original_file) {
    read_check_header(*original_file);
    check_original(*original_file, layout, file.name());
  }
  const std::string name = file.name();
  Progress progress(options.progress);
  progress.phase("checking " + name, data_bytes(file));
  OrderChecker order(layout, options.order, options.float_order);
  KeyChecksum checksum;
  const std::uint64_t records = stream_check_records(file, layout, [&](const std::byte* data, std::size_t bytes) {
    order.feed(data, bytes);
    checksum += checksum_records(data, bytes, layout.record_size);
    progress.advance(bytes);
  });
  std::uint64_t bytes_checked = records * layout.record_size;  // FILE's, then ORIGINAL's too: the progress summary's

  // "OK NAME: 6 u32 keys in ascending order; 1 duplicate keys; checksum HEX[; a permutation of ORIGINAL]"
  std::string summary = name + ": ";
  bool ok = true;
  if (const auto& disorder = order.disorder()) {
    ok = false;
    summary += "NOT in " + order_text(options, layout) + ": " +
               disorder_text(*disorder, records, layout, file.npy ? file.npy->header_bytes : 0);
  } else {
    summary += count_of(records, layout) + " in " + order_text(options, layout);
  }
  summary += "; " + std::to_string(order.duplicate_keys()) + " duplicate keys; checksum " + checksum.hex();

  if (original_file) {
    const std::string original_name = original_file->name();
    progress.phase("checksumming " + original_name, data_bytes(*original_file));
    KeyChecksum original;
    bytes_checked += stream_check_records(*original_file, layout, [&](const std::byte* data, std::size_t bytes) {
      original += checksum_records(data, bytes, layout.record_size);
      progress.advance(bytes);
    }) * layout.record_size;
    if (original == checksum) {
      summary += "; a permutation of " + original_name;
    } else {
      ok = false;
      summary += "; NOT a permutation of " + original_name + " (" + std::to_string(original.keys) +
                 (layout.is_bare_key() ? " keys" : " records") + ", checksum " + original.hex() + ")";
    }
  }
  // Progress ends (a terminal's line erased, its summary written) before the result goes out:
  // standard error may be standard output.
  progress.finish();  // (before the wall time is read: the summary's time includes the last phase's)
  progress.summary({"checked", bytes_checked, wall.seconds(), "cpu", ""});
  // Written at once, so that a reader that closed the pipe is an Error (app/error_message.hpp).
  const std::string line = (ok ? "OK " : "FAIL ") + without_controls(summary) + "\n";
  write_all(STDOUT_FILENO, "standard output", reinterpret_cast<const std::byte*>(line.data()), line.size());
  return ok ? kExitOk : kExitCheckFailed;
}

}  // namespace rmgsort
