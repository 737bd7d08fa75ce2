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
// it, on a thread of their own, but the keys take twice the memory and the writer needs cores. On a
// 16-core H200 host, /dev/shm to /dev/shm, in pages against reserved: 2^30 u64 keys on 16 threads
// 3.62-4.23 s against 3.15-4.18 s (3.92 against 3.48 s on average over five turns), with --threads 8
// (the other cores idle) 5.28-5.47 s against 3.92-4.04 s; 2^28 keys confined to 4 cores (taskset)
// 2.33-2.66 s against 2.42-2.71 s, to 2 cores 3.03-3.33 s against 3.98-4.12 s, reserved there
// without the writer's cores of its own (bench_results/2026-12-02-cpu-output-reservation-h200.md).
inline constexpr unsigned kMinThreadsToSortBeside = 8;
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
// get a reservation instead, from kMinThreadsToSortBeside threads on, when twice their bytes are
// within the plan's --host-memory.
[[nodiscard]] OutputMemory output_memory_for(const SortPlan& plan, const InputSequence& input, const OutputFile* output,
                                             const NpyOutputFormats& formats, const SortRun& run, unsigned threads);

}  // namespace rmgsort
