// What every driver (sort/in_memory_sort.hpp, sort/rounds_sort.hpp, sort/spill_files_sort.hpp) is
// given besides its plan, and what it returns.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "report/progress.hpp"
#include "sort/spill_sort.hpp"
#include "report/stopwatch.hpp"
#include "core/key_order.hpp"
#include "host/round_partition.hpp"
#include "sort/sort_engine.hpp"

namespace rmgsort {

struct SortRun {
  SortOrder order = SortOrder::ascending;
  bool verify = false;       // check order and checksum before anything is committed
  // --unique: only the first record of each run of equal keys is written (sort/unique_filter.hpp).
  // The drivers hand on memory of their own that nothing reads again but the writers (the round
  // buffers, the partition buffer, the engine's output buffers, the keys sorted in place), so the
  // records kept are moved together where they lie before they are written.
  bool unique = false;
  int output_fd = -1;        // where the sorted records are written; -1: nowhere (--index-output alone)
  std::string output_name;   // the output as the writers name it in their errors
  int index_fd = -1;         // --index-output: where the records' input positions are written; -1: none
  std::string index_name;
  Progress* progress = nullptr;
  // Writes what precedes the records in the outputs (a .npy header), once the input is known to be
  // what it says; empty when nothing is left to write. Set only for a stream sorted through spill
  // files: their driver calls it after the streaming pass, which read the stream to its end and so
  // checked each part's length against its .npy header (io/input_sequence.hpp): a refused stream
  // writes nothing, not even to a pipe. (Every other input is read and checked whole, or is a file
  // whose size was checked, before its caller writes the heads.)
  std::function<void()> write_heads;
  // The output's pages are allocated ahead of its writes, beside the read and the sort
  // (io/output_reservation.hpp): a writer need not populate them itself.
  bool output_reserved = false;

  // What a writer of BYTES of sorted records may reserve on its disk ahead of them: nothing under
  // --unique, which keeps an unknown part of them (all of BYTES reserved would refuse a disk that
  // holds what is kept: ENOSPC).
  [[nodiscard]] std::uint64_t reservable(std::uint64_t bytes) const { return unique ? 0 : bytes; }
};

// The times of the phases after reading (which is timed by whoever reads).
struct PhaseTimes {
  double allocate = 0, partition = 0, sort = 0, verify = 0, write = 0;
};

// The in-memory rounds: the partition's report, and each round's keys and sort time.
struct RoundsReport {
  RoundPartitionStats partition;
  double partition_seconds = 0;          // the whole partition_into_rounds call
  std::vector<std::uint64_t> round_keys;  // per round
  std::vector<double> round_sort_seconds;
};

struct SortOutcome {
  std::uint64_t bytes = 0;     // sorted (and written, less the duplicates --unique dropped)
  std::uint64_t duplicates_dropped = 0;  // records --unique left out
  // Bytes of the sorted records (counted before --unique) written while the sort still ran (in
  // memory: the CPU's bare keys, sort/sorted_prefix_writer.hpp); times.write is then the write's
  // time after the sort returned.
  std::uint64_t written_while_sorting = 0;
  // Sorted in the output file's own pages, which the input was read or partitioned into
  // (io/output_pages.hpp): nothing was written after the sort.
  bool sorted_in_output_file = false;
  std::string verify_failure;  // why --verify failed; "" when it passed or was not asked for
  PhaseTimes times;
  std::optional<RoundsReport> rounds;  // sorted in rounds in memory
  std::optional<SpillReport> spill;    // sorted through spill files
};

// Allocates `engine`'s host memory for sorts of up to `keys` keys. On the GPUs (whose device memory
// was allocated when the plan chose them) that is page-locked host memory, a phase of its own
// (times.allocate, lapped off `phase`; on the progress line when `progress` is given); the CPU's
// sort buffer is untouched memory, left to the phase that follows.
inline void allocate_engine(SortEngine& engine, std::uint64_t keys, Stopwatch& phase, PhaseTimes& times,
                            Progress* progress) {
  if (engine.devices().empty()) {
    engine.allocate(keys);
    return;
  }
  if (progress != nullptr) progress->phase("pinning host memory for the GPUs", 0);
  engine.allocate(keys);
  times.allocate = phase.lap();
}

}  // namespace rmgsort
