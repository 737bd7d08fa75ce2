// The spill path's classification of a chunk of records into rounds (sort/spill_sort.hpp): the rounds
// are ranges of one rank word of the key (core/record_rank.hpp) between splitters chosen from a
// sample (host/splitters.hpp), as the records stream past too many to count first. Each chunk's
// records are grouped by round for one append to the pass's spill file, and the pass learns each
// round's record count and the range of the word in it (whether it fits a sort, or holds one value of
// the word, or must be partitioned again, and over what range). The counting sort is the round
// partition's (host/chunk_buckets.hpp).
//
// Stable: each round's records keep their input order (the chunk's blocks in order, each block's
// records in order). On the input's pass a record may leave with its input position appended
// (RecordLayout::with_position, for --index-output).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <vector>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "host/splitters.hpp"

namespace rmgsort {

// What a pass learned of one round's records: how many, and the lowest and highest value of the rank
// word they were classified by.
struct RoundExtent {
  std::uint64_t records = 0;
  std::uint64_t lowest = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t highest = 0;
  void add(const RoundExtent& other) {
    records += other.records;
    lowest = std::min(lowest, other.lowest);
    highest = std::max(highest, other.highest);
  }
};

class SpillClassifier {
 public:
  // Records of LAYOUT in ORDER, into the rounds of SPLITTERS over rank word WORD (< the key's rank
  // words; SPLITTERS outlive the classifier). With APPEND_POSITION each record leaves with its input
  // position after it, a u64 little-endian. The loop is chosen here, once, for the layout's rank
  // type: no switch per record; a bare key moves by a copy of its constant width, as it always has.
  SpillClassifier(const RecordLayout& layout, SortOrder order, int word, const Splitters<std::uint64_t>& splitters,
                  bool append_position = false);

  // Bytes a record takes as it leaves: the layout's record size, plus 8 with its position.
  [[nodiscard]] std::size_t record_bytes_out() const { return bytes_out_; }

  // Groups the records of CHUNK (whole records) by round into GROUPED (room for the chunk's records
  // as they leave, record_bytes_out() each; not overlapping CHUNK), in parallel; adds what it found
  // to EXTENTS (one per round). FIRST_POSITION: the input position of the chunk's first record (with
  // APPEND_POSITION). Returns where each round's records end in GROUPED, in bytes (the last: all the
  // chunk's records as they leave).
  std::vector<std::uint64_t> classify(std::span<const std::byte> chunk, std::byte* grouped,
                                      std::vector<RoundExtent>& extents, std::uint64_t first_position = 0) const;

 private:
  using Classify = std::function<std::vector<std::uint64_t>(std::span<const std::byte>, std::byte*,
                                                            std::vector<RoundExtent>&, std::uint64_t)>;

  std::size_t bytes_in_;
  std::size_t bytes_out_;
  std::size_t rounds_;
  Classify classify_;  // the loop for the layout's rank type and record move
};

}  // namespace rmgsort
