// --unique (GNU sort -u): of each run of equal keys in the sorted output, only the first record,
// which, the sort being stable, is the run's first in input order. Keys are equal as the sort ranks
// them (core/record_rank.hpp's words under the layout's NaN rule): records' NaN keys are all equal,
// so one NaN record is kept; bare float keys order their NaNs by bit pattern, so only bit-identical
// NaNs are duplicates; -0.0 and +0.0 rank apart, so both are kept.
//
// Record i of a sorted sequence starts a run exactly when its key differs from record i - 1's (the
// relation is an equivalence): the decision is local, so rounds are filtered one after the other
// (the first record of a round against the last of the round before), and a round in parallel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "sort/sort_engine.hpp"

namespace rmgsort {

class UniqueFilter {
 public:
  UniqueFilter(const RecordLayout& layout, SortOrder order);

  // RECORDS[0, count) are the next records of the sorted sequence (the records of LAYOUT, following
  // every round given before): moves those that start a run of equal keys to the front, in order,
  // and POSITIONS[i] with record i when POSITIONS is not null; returns how many. In place, no memory
  // beyond a word per 64 Ki records and move_down()'s scratch (host/move_down.hpp): each block of
  // records is compacted in itself in parallel, then the blocks are moved together.
  [[nodiscard]] std::uint64_t keep_firsts(std::byte* records, std::uint64_t* positions, std::uint64_t count);

  // The same for a sorted round: its records kept, moved to its front, and their positions (when it
  // has them). The round's memory is the caller's to change, typed const for the writers
  // (SortRun::unique says why the drivers' rounds are).
  [[nodiscard]] SortedRound keep_firsts(const SortedRound& round);

  // Records left out so far.
  [[nodiscard]] std::uint64_t dropped() const { return dropped_; }

 private:
  RecordLayout layout_;
  SortOrder order_;
  std::vector<std::byte> last_;  // the last record given (empty before the first): the run it ends may go on
  std::uint64_t dropped_ = 0;
};

}  // namespace rmgsort
