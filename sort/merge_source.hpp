// Where a merge window (sort/merge_window.hpp) gets its bytes: one of the merge's inputs, from its
// first data byte (a raw stream's bytes read to tell its format first, then the file or the stream
// read ahead through a ChunkReader), or a run an earlier pass wrote to a temporary file (its one
// round read back through SpillRoundChunks). Both read ahead while the merge works: a window copies
// what it takes, so the bytes need not be whole records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "io/input_file.hpp"
#include "io/spill_file.hpp"

namespace rmgsort {

class MergeSource {
 public:
  virtual ~MergeSource() = default;
  // The next bytes (at most the chunk size the source was made with; fewer at the end, and from a
  // stream); empty at the end. Valid until the next call. Throws rmgsort::Error naming the input or
  // the temporary file for a failed read.
  [[nodiscard]] virtual std::span<const std::byte> next() = 0;
};

// An input standing at its first data byte (a .npy file's data_offset past its header, a stream
// after the header it read), and HEAD, the bytes of a raw stream read already, which come first.
struct OpenedInput {
  InputFile file;
  std::vector<std::byte> head;
};

// INPUT's data in chunks of CHUNK_BYTES. Memory: two chunks for a regular file (the one handed out
// and the one read ahead), one for a stream.
[[nodiscard]] std::unique_ptr<MergeSource> input_source(OpenedInput input, std::size_t chunk_bytes);

// What a pass wrote to FILE (a SpillFile of one round, whose appending is over), in chunks of
// CHUNK_BYTES. FILE outlives the source. Memory: two chunks, and a page of the file's table.
[[nodiscard]] std::unique_ptr<MergeSource> run_source(const SpillFile& file, std::size_t chunk_bytes);

}  // namespace rmgsort
