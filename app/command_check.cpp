// rmgsort check: streams FILE (any size) once, checking order and computing its checksum; with
// --input streams ORIGINAL too and compares key counts and checksums. One summary line on stdout.
#include <cstdio>
#include <cstring>
#include <optional>

#include "app/commands.hpp"
#include "app/whole_keys.hpp"
#include "host/checksum.hpp"
#include "host/order_check.hpp"
#include "core/error.hpp"
#include "io/input_file.hpp"
#include "io/uring_reader.hpp"

namespace rmgsort {
namespace {

// 64 MiB chunks: large enough for full-speed reads, small enough to check any file size.
constexpr std::size_t kCheckChunkBytes = std::size_t{64} << 20;

// Opens PATH for checking, refusing before anything is read a regular file that does not hold whole
// keys and a character device: /dev/zero or a terminal never ends, so a check of one would never finish.
InputFile open_keys(const std::string& path, KeyType type) {
  InputFile input = open_input(path);
  const std::string name = input.display_name();
  if (input.character_device) throw Error(name + ": is a character device, not a file of keys");
  if (input.regular) (void)whole_keys(name, input.size, type);
  return input;
}

// Feeds `consume` whole keys only: a pipe may end a chunk in the middle of a key, whose bytes are
// carried into the next chunk. A file whose size is not a whole number of keys is an Error.
template <class Consume>
std::uint64_t stream_keys(const InputFile& input, KeyType type, Consume&& consume) {
  const std::string name = input.display_name();
  const std::size_t width = key_width(type);

  ChunkReader reader(input, kCheckChunkBytes);
  std::byte carry[8];
  std::size_t carried = 0;
  std::uint64_t total = 0;
  for (std::span<const std::byte> chunk = reader.next(); !chunk.empty(); chunk = reader.next()) {
    total += chunk.size();
    if (carried > 0) {
      const std::size_t take = std::min(width - carried, chunk.size());
      std::memcpy(carry + carried, chunk.data(), take);
      carried += take;
      chunk = chunk.subspan(take);
      if (carried < width) continue;
      consume(carry, width);
      carried = 0;
    }
    const std::size_t whole = chunk.size() / width * width;
    if (whole > 0) consume(chunk.data(), whole);
    carried = chunk.size() - whole;
    std::memcpy(carry, chunk.data() + whole, carried);
  }
  return whole_keys(name, total, type);  // a stream that ended inside a key is an Error
}

}  // namespace

int run_check(const CheckOptions& options) {
  if (options.file == "-" && options.original == "-")
    throw Error("check: FILE and --input cannot both be standard input");
  // Both are opened before either is read, so that a bad --input is refused at once.
  const InputFile file = open_keys(options.file, options.type);
  std::optional<InputFile> original_file;
  if (options.original) original_file = open_keys(*options.original, options.type);
  const std::size_t width = key_width(options.type);
  OrderChecker order(options.type, options.order);
  KeyChecksum checksum;
  const std::uint64_t keys = stream_keys(file, options.type, [&](const std::byte* data, std::size_t bytes) {
    order.feed(data, bytes);
    checksum += checksum_keys(data, bytes, width);
  });
  const std::string name = file.display_name();
  const char* order_name = options.order == SortOrder::ascending ? "ascending" : "descending";
  const std::string type_name(key_type_name(options.type));

  std::string summary = name + ": ";
  bool ok = true;
  if (const auto at = order.first_disorder()) {
    ok = false;
    summary += "NOT in " + std::string(order_name) + " order: key " + std::to_string(*at) + " of " +
               std::to_string(keys) + " " + type_name + " keys is out of order";
  } else {
    summary += std::to_string(keys) + " " + type_name + " keys in " + order_name + " order";
  }
  summary += "; checksum " + checksum.hex();

  if (options.original) {
    KeyChecksum original;
    stream_keys(*original_file, options.type, [&](const std::byte* data, std::size_t bytes) {
      original += checksum_keys(data, bytes, width);
    });
    const std::string original_name = original_file->display_name();
    if (original == checksum) {
      summary += "; a permutation of " + original_name;
    } else {
      ok = false;
      summary += "; NOT a permutation of " + original_name + " (" + std::to_string(original.keys) +
                 " keys, checksum " + original.hex() + ")";
    }
  }
  std::printf("%s %s\n", ok ? "OK" : "FAIL", summary.c_str());
  std::fflush(stdout);
  return ok ? kExitOk : kExitCheckFailed;
}

}  // namespace rmgsort
