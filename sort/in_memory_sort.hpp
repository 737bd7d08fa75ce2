// The in-memory path: keys that one sort of the engine takes, sorted at once where they lie, checked
// when --verify asks, then written whole (with --unique, the first record of each run of equal keys);
// or, on an engine that tells its finished prefix and without --verify, written while they are sorted
// (sort/sorted_prefix_writer.hpp); or, when they lie in the output's own pages (io/output_pages.hpp),
// not written at all: the output ends after the records --unique kept.
#pragma once

#include "sort/read_keys.hpp"
#include "sort/sort_engine.hpp"
#include "sort/sort_run.hpp"

namespace rmgsort {

// Sorts keys.data()[0, keys.bytes) with `engine` (allocated here) and writes them to run.output_fd;
// on a --verify failure returns the reason and writes nothing.
[[nodiscard]] SortOutcome sort_in_memory(SortEngine& engine, KeysInMemory& keys, const SortRun& run);

}  // namespace rmgsort
