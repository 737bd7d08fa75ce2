#include "app/check_input.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "io/npy_input.hpp"

namespace rmgsort {
namespace {

// 64 MiB chunks: large enough for full-speed reads, small enough to check any file size.
constexpr std::size_t kCheckChunkBytes = std::size_t{64} << 20;

}  // namespace

std::size_t check_chunk_bytes(std::size_t record_size) {
  std::size_t step = record_size;
  while (step % 4096 != 0) step *= 2;               // record_size * 2^k, a multiple of 4096 ...
  if (step > kCheckChunkBytes) step = record_size;  // ... unless that is too large
  return std::max(step, kCheckChunkBytes / step * step);
}

CheckInput open_check_file(const std::string& path, std::string_view what) {
  CheckInput input{open_input(path), std::nullopt, {}};
  refuse_character_device(input.file, what, NullDevice::accepted);  // /dev/null: empty, as for sort
  return input;
}

CheckInput open_check_input(const std::string& path, std::string_view what) {
  CheckInput input = open_check_file(path, what);
  read_check_header(input);
  return input;
}

void read_check_header(CheckInput& input) {
  // The reading sort does: a regular file's data offset set past the header, a stream left at its
  // first data byte, a raw stream's first bytes handed back.
  NpyInput npy = read_npy_header(input.file);
  input.npy = std::move(npy.header);
  input.raw_prefix = std::move(npy.stream_head);
}

void check_npy_data_count(const CheckInput& input, std::uint64_t records, bool more) {
  const NpyHeader& header = *input.npy;
  if (!more && records == header.count) return;
  throw Error(input.name() + ": the .npy header's shape says " + std::to_string(header.count) + " items of " +
              std::to_string(header.item_size) + " bytes, but the data " +
              (more ? "goes on after them" : "holds " + std::to_string(records)));
}

}  // namespace rmgsort
