// Sorting inputs larger than --host-memory (thesis §6), or records that fit memory but not one sort
// of the engine: one streaming pass reads the input, groups each chunk's records by round (round
// boundaries from a sample, with a margin) and appends the chunk to the pass's one spill file, in
// --temp-dir or in memory (io/spill_file.hpp: anonymous, so nothing can outlive the process); then
// each round is read back from its segments, sorted in memory and handed on in order.
//
// Rounds are ranges of one 64-bit rank word of the key (core/record_rank.hpp): numbers have one,
// bytes:N keys ceil(N / 8). A round that still holds more records than fit is partitioned again: by
// the same word where its records differ in it; by the next word where they all share it (most
// significant word first), and only when that was the last word is it one repeated key, already in
// input order, copied through in pieces. Stable: records keep their input order through every
// classification, spill file and pass; sort_round must keep it too. Open spill files: one per pass
// on the current path of passes, a few per rank word on any realistic input, however skewed.
//
// Memory besides the two round buffers (and the caller's): at most 5 chunk_bytes at any time: two
// chunks being grouped by round (one classified, one appended; their records, positions appended,
// fit chunk_bytes: the input is read in chunks narrower by as much); the pass's reader, two chunks (a
// file's io_uring reader, a stream's reader and its re-cut records, or a round's double buffer; none
// for a round in memory, whose chunks are lent where they lie), or
// before it the sample (at most two chunks of rank words, and a piece of at most 64 KiB or one
// record); and the spill tables, half a chunk for the page being filled and at most as much for the
// page columns a round is read through. A pass lets its reader go before its rounds are finished, so
// the passes above the current one hold only their spill files' descriptors and a few bytes per
// round. In memory the spill files themselves are memory too: memory_bytes at every depth, their
// tables (a few KiB) apart.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "io/temp_dir.hpp"

namespace rmgsort {

class InputSequence;

// Where the records come from: the inputs' concatenation (io/input_sequence.hpp), regular (sampled
// at random offsets) or a stream whose first `prefix` bytes were read already (sampled from that
// prefix).
struct SpillSource {
  InputSequence* input = nullptr;
  std::span<const std::byte> prefix;  // streams only; then the rest of `input`
};

struct SpillJob {
  RecordLayout layout = RecordLayout::bare_key(KeyType::u32);  // the input's records
  SortOrder order = SortOrder::ascending;
  // Appends to each input record its 0-based position in the input, a u64 little-endian (for
  // --index-output): the rounds, spill files and records handed to sort_round and `sorted` then have
  // layout.with_position() (the key where it was).
  bool append_position = false;
  // The spill files' directory; none: anonymous memory, for the records of a regular input that
  // fit memory: memory_bytes, reserved before the first chunk, which must be exactly the input's
  // records as spilled (the plan's spill_memory); passes over a round reuse its bytes
  // (io/spill_file.hpp SpillMemory), so that is all the spill in memory takes at any depth.
  std::optional<TempDir> temp_dir;
  std::uint64_t memory_bytes = 0;
  std::uint64_t round_keys = 0;  // the most records sort_round takes (the round buffers' size)
  std::size_t chunk_bytes = 0;   // the streaming pass's chunk: at least one record as spilled
  // round_buffers() returns two buffers of round_keys records as spilled, used in turn: a round
  // handed on from one stays untouched until the next round has been handed on (the writer writes
  // one while the next sorts). Called once, when the first round is about to be read back (the
  // caller may free memory the streaming pass no longer needs, such as a stream's prefix, and then
  // allocate these).
  std::function<std::array<std::byte*, 2>()> round_buffers;
  std::function<void(std::span<const std::byte> input_records)> on_input;  // each chunk of the input, in order
  // Sorts the COUNT records at RECORDS (in a round buffer), stably, and returns where they lie
  // sorted: in place (bare keys), or in a buffer of the caller's own that stays untouched until the
  // next round has been handed on.
  std::function<std::span<const std::byte>(std::byte* records, std::uint64_t count)> sort_round;
  std::function<void(std::span<const std::byte> sorted_records)> sorted;  // in order
  // Optional: the rounds finished (handed on) out of those known, after each partitioning pass and
  // each round. A round partitioned again is replaced in the total by its own non-empty rounds.
  std::function<void(std::uint64_t done, std::uint64_t total)> on_rounds;

  // The records as spilled, sorted and handed on.
  [[nodiscard]] RecordLayout spilled_layout() const { return append_position ? layout.with_position() : layout; }
};

struct SpillReport {
  std::uint64_t keys = 0;              // records handed on
  std::uint64_t spilled_bytes = 0;     // written to spill files, every level
  int levels = 0;                      // partitioning passes deep (1: the input's only), every word
  double spill_seconds = 0;            // reading, classifying and writing spill files
  std::vector<std::uint64_t> round_keys;  // records per round handed on
  std::vector<double> round_sort_seconds;
};

// Sorts every record of `source` through spill files; throws rmgsort::Error naming the file, --temp-dir
// or the memory on a failure (e.g. "--temp-dir /tmp: spill file: write failed: No space left on
// device", "spill memory: cannot allocate N bytes of host memory: ...").
SpillReport spill_sort(const SpillJob& job, const SpillSource& source);

}  // namespace rmgsort
