// What a sort in memory does with an output on a memory file system (tmpfs), whose pages are memory
// and whose writes cost the allocation of those pages: sorts in them (io/output_pages.hpp), or
// reserves them beside the read and the sort for the writes made while it sorts
// (io/output_reservation.hpp). Nothing for any other output.
#pragma once

#include <memory>

#include "app/npy_output_headers.hpp"
#include "io/input_sequence.hpp"
#include "io/output_file.hpp"
#include "io/output_pages.hpp"
#include "io/output_reservation.hpp"
#include "sort/sort_plan.hpp"
#include "sort/sort_run.hpp"

namespace rmgsort {

namespace output_memory_config {
// From this many sorting threads on, the CPU sorts bare keys in memory of its own and writes them
// while it sorts, into pages reserved beside the read and the sort, rather than in the output's own
// pages: there, the read allocates the pages, before the sort; reserved, they are allocated during
// it, on a thread of their own, but the keys take twice the memory and the writer needs cores of
// its own. On a 16-core H200 host, /dev/shm to /dev/shm, 2^30 u64 keys, in pages against reserved:
// on all 16 cores 3.62-4.52 s against 3.15-4.91 s (4.02 against 3.67 s on average over seven turns);
// confined to 8 cores (taskset) 4.89-5.09 s against 5.39-5.52 s, the sort on 6 threads beside the
// writer's 2 taking 4.7 s against 3.0-3.3 s on 8; 2^28 keys on 4 and 2 cores, the pages as fast or
// faster (bench_results/2026-12-02-cpu-output-reservation-h200.md). Hence 16, not 8.
inline constexpr unsigned kMinThreadsToSortBeside = 16;
}  // namespace output_memory_config

struct OutputMemory {
  std::unique_ptr<OutputPages> pages;              // the keys' home: read there, sorted there
  std::unique_ptr<OutputReservation> reservation;  // the output's pages allocated ahead of its writes
};

// For a file's PLAN into OUTPUT (null: none but standard output, or --index-output alone), sorted on
// THREADS threads. Pages are the keys' home for a file sorted in memory, at once or in rounds, by an
// engine that sorts where the records lie (bare keys; records sorted as pairs), into no output but
// one file on a memory file system staged for this run (a file with no name, or a fresh temporary
// name): memory no other process writes to or cuts short while it is sorted. Never standard
// output's file, which others hold open: a write into it under the sort would break the sort (a
// hang or a crash), a truncation raise SIGBUS, and a run killed mid-sort would leave its keys
// unsorted there. Bare keys that the CPU sorts in memory and would write while sorting (no --verify)
// get a reservation instead, from kMinThreadsToSortBeside threads on, when the output's pages fit
// beside the plan's peak within --host-memory, and the output is on a tmpfs (not ramfs) where a
// thread could be started to reserve them.
[[nodiscard]] OutputMemory output_memory_for(const SortPlan& plan, const InputSequence& input, const OutputFile* output,
                                             const NpyOutputFormats& formats, const SortRun& run, unsigned threads);

}  // namespace rmgsort
