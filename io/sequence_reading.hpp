// The readers of an InputSequence (io/input_sequence.hpp), each the concatenation's counterpart of
// one for a single input: a regular sequence into memory part by part with io_uring (read_file), a
// stream's prefix into a growing buffer (read_stream_prefix), and chunks of whole records in order
// for a pass that reads everything (RecordStream per part of a regular sequence; a stream's bytes
// after its prefix).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "io/host_buffer.hpp"
#include "io/input_sequence.hpp"
#include "io/record_stream.hpp"
#include "io/uring_reader.hpp"

namespace rmgsort {

// Reads all of the regular sequence INPUT (input.size() bytes) into DST, one part after the other
// with read_file(), each into DST at the part's start in the concatenation. ON_BLOCK gets offsets
// in the concatenation (blocks never span parts). DST's capacity: input.size() rounded up to 4096.
// A part that starts 4096-aligned in DST may be read with O_DIRECT, whose last block may fill the
// rest of its 4096 bytes: that lands in the next part's place, read afterwards, or in DST's spare
// capacity. Throws as read_file() does, naming the part.
ReadStats read_sequence_file(const InputSequence& input, std::byte* dst, const ReadOptions& options = {},
                             const BlockCallback& on_block = {});

// The stream INPUT read to its end or to LIMIT_BYTES + 1 bytes, whichever comes first: COMPLETE
// tells which; BYTES_READ is the buffer's size. When it is false the stream continues, for
// input.read() to go on with. The buffer grows by doubling (mremap), as read_stream_prefix()'s;
// ON_READ hears of every read's bytes (at most io_tuning::kReadStepBytes), for progress.
[[nodiscard]] HostBuffer read_sequence_prefix(InputSequence& input, std::uint64_t limit_bytes,
                                              std::uint64_t& bytes_read, bool& complete,
                                              const std::function<void(std::size_t)>& on_read = {});

// Every record of INPUT in order, in chunks of whole records of at most CHUNK_BYTES (at least one
// record): a regular sequence's parts each through a RecordStream (io_uring, read ahead); a stream's
// PREFIX (its first bytes, read already; they may end inside a record) and then the rest of it.
class SequenceRecords {
 public:
  // INPUT and PREFIX outlive the reader. Memory: one part's RecordStream at a time, or one chunk for
  // a stream.
  SequenceRecords(InputSequence& input, const RecordLayout& layout, std::size_t chunk_bytes,
                  std::span<const std::byte> prefix = {});
  ~SequenceRecords();

  // The next whole records, empty at the end; valid until the next call. Throws rmgsort::Error naming
  // the part that fails (a read, a stream's records or .npy length).
  [[nodiscard]] std::span<const std::byte> next();

 private:
  std::span<const std::byte> next_of_file();
  std::span<const std::byte> next_of_stream();

  InputSequence& input_;
  RecordLayout layout_;
  std::size_t chunk_bytes_;
  std::span<const std::byte> prefix_;   // whole records of the prefix not yet handed on
  std::span<const std::byte> carried_;  // the prefix's bytes after its last whole record
  std::size_t part_ = 0;                // regular: the part whose stream comes next
  std::optional<InputFile> part_file_;  // the part part_stream_ reads, when opened again; empty between parts
  std::unique_ptr<RecordStream> part_stream_;
  HostBuffer chunk_;                    // a stream's chunk (empty until needed)
};

}  // namespace rmgsort
