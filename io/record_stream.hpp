// An input as chunks of whole records, in order: a regular file or a stream, optionally after a
// prefix of it already read (a stream sorted through spill files was read that far before it was
// known not to fit). A pipe may end a read, and a prefix may end, in the middle of a record; those
// bytes are carried into the next chunk, so every chunk holds whole records of `record_size` bytes
// (any size: a chunk's records do not depend on the key they hold).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/record_layout.hpp"
#include "io/chunk_reader.hpp"
#include "io/host_buffer.hpp"
#include "io/input_file.hpp"

namespace rmgsort {

// How the Error for an input that ends inside a record counts: the input's bytes ("NAME: N bytes
// are not a whole number of u64 keys (8 bytes each)", as a file of the wrong size is refused), or
// what follows the last whole record ("NAME: the input ends inside a key (N bytes after the last
// whole 8-byte key)", for a pass that learns of it only once it has handed on most of the input).
enum class CutRecordMessage { input_bytes, bytes_after_last };

class RecordStream {
 public:
  // Chunks of at most CHUNK_BYTES (at least one record; a multiple of the record size and of 4096
  // reads a regular file, and a stream's full reads, without copying them). PREFIX (the first bytes
  // of INPUT, read already) and INPUT outlive the stream. Memory: the ChunkReader's, and one more
  // chunk to re-cut into, allocated only when a prefix or a read ends inside a record.
  RecordStream(const InputFile& input, const RecordLayout& layout, std::size_t chunk_bytes,
               std::span<const std::byte> prefix = {}, CutRecordMessage cut = CutRecordMessage::input_bytes);

  // The next whole records: CHUNK_BYTES of them but at the end (a chunk of the reader that holds
  // whole records is handed on as it is); empty at the end. Valid until the next call. Throws
  // rmgsort::Error naming the input when it ends inside a record, or a read fails.
  [[nodiscard]] std::span<const std::byte> next();

  // Bytes of whole records returned by next() so far.
  [[nodiscard]] std::uint64_t bytes_returned() const { return bytes_returned_; }

 private:
  std::span<const std::byte> whole(std::span<const std::byte> records);
  std::span<const std::byte> recut();
  [[noreturn]] void throw_cut(std::size_t tail) const;

  const InputFile& input_;
  RecordLayout layout_;
  std::size_t chunk_bytes_;
  CutRecordMessage cut_;
  std::span<const std::byte> prefix_;   // not yet handed on
  ChunkReader reader_;
  std::span<const std::byte> pending_;  // of the reader's last chunk, not yet handed on
  HostBuffer staging_;                  // re-cut chunks (empty until needed)
  std::size_t carry_ = 0;               // bytes of a cut record, at staging_used_ in staging_
  std::size_t staging_used_ = 0;
  std::uint64_t bytes_returned_ = 0;
};

}  // namespace rmgsort
