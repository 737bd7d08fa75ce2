// Sorting inputs larger than --host-memory (thesis §6): one streaming pass reads the input, groups
// each chunk's keys by round (round boundaries from a sample, with a margin) and appends the chunk
// to the pass's one spill file in --temp-dir (io/spill_file.hpp: anonymous, so nothing can outlive
// the process); then each round is read back from its segments, sorted in memory and handed on in
// order. A round that still holds more keys than fit is partitioned again the same way (a round of
// one repeated value is already sorted and is copied through). Open spill files: one per pass on
// the current path of passes, a few on any realistic input, however skewed.
//
// Memory besides the two round buffers (and the caller's): at most 5 chunk_bytes at any time: two
// chunks being grouped by round (one classified, one appended); the pass's reader, two chunks (a
// file's io_uring reader, a stream's reader and its re-cut keys, or a round's double buffer), or
// before it the sample (at most two chunks); and the spill tables, half a chunk for the page being
// filled and at most as much for the page columns a round is read through. A pass lets its reader
// go before its rounds are finished, so the passes above the current one hold only their spill
// files' descriptors and a few bytes per round.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/key_order.hpp"
#include "core/key_type.hpp"

namespace rmgsort {

struct InputFile;

// Where the keys come from: a regular file (sampled at random offsets), or a stream whose first
// `prefix` bytes were read already (sampled from that prefix).
struct SpillSource {
  const InputFile* input = nullptr;
  std::span<const std::byte> prefix;  // streams only; then the rest of `input`
};

struct SpillJob {
  KeyType type = KeyType::u32;
  SortOrder order = SortOrder::ascending;
  std::string temp_dir;
  std::uint64_t round_keys = 0;  // the most keys sort_round takes (the round buffers' size)
  std::size_t chunk_bytes = 0;   // the streaming pass's read size (a multiple of 4096 and the key width)
  // round_buffers() returns two buffers of round_keys keys, used in turn: a round handed on stays
  // untouched until the next round has been handed on (the writer writes one while the next sorts).
  // Called once, when the first round is about to be read back (the caller may free memory the
  // streaming pass no longer needs, such as a stream's prefix, and then allocate these).
  std::function<std::array<std::byte*, 2>()> round_buffers;
  std::function<void(std::span<const std::byte> input_keys)> on_input;  // each chunk of the input, in order
  std::function<void(std::byte* keys, std::uint64_t count)> sort_round;
  std::function<void(std::span<const std::byte> sorted_keys)> sorted;  // in order
  // Optional: the rounds finished (handed on) out of those known, after each partitioning pass and
  // each round. A round partitioned again is replaced in the total by its own non-empty rounds.
  std::function<void(std::uint64_t done, std::uint64_t total)> on_rounds;
};

struct SpillReport {
  std::uint64_t keys = 0;
  std::uint64_t spilled_bytes = 0;     // written to spill files, every level
  int levels = 0;                      // partitioning passes deep (1: the input's only)
  double spill_seconds = 0;            // reading, classifying and writing spill files
  std::vector<std::uint64_t> round_keys;  // per round handed on
  std::vector<double> round_sort_seconds;
};

// Sorts every key of `source` through spill files; throws rmgsort::Error naming the file or
// --temp-dir on a failure (e.g. "--temp-dir /tmp: spill file: write failed: No space left on device").
SpillReport spill_sort(const SpillJob& job, const SpillSource& source);

}  // namespace rmgsort
