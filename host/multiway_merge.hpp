// The stable k-way merge of sorted runs in memory, in parallel: the classic parallel multiway merge.
// Splitters drawn from a sample of the runs cut every run by binary search, so that part t of the
// output is the merge of every run's t-th piece and the parts are merged independently, each by a
// tree of buffered 2-way merges (host/merge_tree.hpp). Records compare by their rank words in the layout's order
// (core/record_rank.hpp: bare floats by their radix bits, records' NaNs all equal); equal keys keep
// the order of the runs (all of run 0's first), and each run's own order.
//
// The splitters are records of the runs, ordered by (key, run, index in the run): in that order no
// two records are equal, so a part boundary may fall inside a run of equal keys and many equal keys
// split as evenly as distinct ones. With samples every g records of each run and at least k samples
// between two splitters, no part exceeds twice its share (each run adds at most g records beyond its
// samples in the part).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "host/merge_run.hpp"

namespace rmgsort {

// Where every run is cut into PARTS pieces: row t (0 .. parts) holds, for each run i, the number of
// its records that precede part t's first record: cuts[t * runs.size() + i]. Row 0 is all 0, row
// PARTS each run's count; every column grows. The parts hold about equal numbers of records (at most
// twice their share, a few more when the runs are short); some may be empty. Parallel (oneTBB).
[[nodiscard]] std::vector<std::uint64_t> split_runs(const RecordLayout& layout, SortOrder order,
                                                    std::span<const MergeRun> runs, std::size_t parts);

// Merges, of every run i, the records [from[i], to[i]) into TARGET, starting at its record FIRST (the
// target holds sum(to - from) records from there). One thread.
void merge_part(const RecordLayout& layout, SortOrder order, std::span<const MergeRun> runs,
                std::span<const std::uint64_t> from, std::span<const std::uint64_t> to, const MergeTarget& target,
                std::uint64_t first);

// Merges every record of RUNS into TARGET (sum of their counts), in about PARTS pieces merged in
// parallel (1: one thread).
void merge_runs(const RecordLayout& layout, SortOrder order, std::span<const MergeRun> runs, const MergeTarget& target,
                std::size_t parts);

// The parts worth splitting RECORDS into for THREADS threads: one per thread, fewer when they would
// hold less than a few thousand records each (the splitting then costs more than it gains).
[[nodiscard]] std::size_t merge_parts_for(std::uint64_t records, std::size_t threads);

}  // namespace rmgsort
