// rmgsort merge's sort method: the concatenation of the inputs, each sorted already, sorted by sort's
// own machinery (app/sort_input.hpp, sort/sort_plan.hpp and its drivers). A stable sort of the
// concatenation is the stable merge in input order, so the output is the merge's byte for byte; it is
// the faster way where sort's plan takes the GPUs, or many runs of small keys (app/merge_method.hpp
// says where, measured). Each input is still checked for order, with merge's words and exit code 1
// (sort/merge_window.hpp's MergeDisorder): once read into memory, each input's records on their own
// (the in-memory and rounds paths), or, when the concatenation goes through spill files, by a pass
// of its own over each input first (read twice then). Regular files only: a stream's records are
// read with the others as one, so where it ends in memory is not known.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "app/commands.hpp"
#include "app/npy_output_headers.hpp"
#include "app/sort_input.hpp"
#include "sort/sort_plan.hpp"
#include "sort/sort_run.hpp"

namespace rmgsort {

struct MergeBySort {
  SortInput input;                // every input, opened as sort opens them
  std::vector<int> gpus_selected;  // the GPUs the plan chose from; outlives the plan's chooser
  SortPlan plan;                  // of the concatenation's size
};

// Opens OPTIONS.inputs (regular files) as sort does and plans the sort of their concatenation under
// HOST_MEMORY with THREADS threads (--gpus and --gpu-memory choosing the engine). Throws
// rmgsort::Error naming the input or option, as sort would.
[[nodiscard]] std::unique_ptr<MergeBySort> plan_merge_by_sort(const MergeOptions& options, std::uint64_t host_memory,
                                                              std::size_t threads);

// Sorts the concatenation into RUN's outputs (their .npy headers, as FORMATS gives them, written here
// and again at the end where FORMATS says; RUN's outputs were checked to take that), checking each
// input's order first as the header says. Throws MergeDisorder for an input out of order (nothing
// written but the headers then), rmgsort::Error for everything else.
[[nodiscard]] SortOutcome merge_by_sorting(MergeBySort& sorting, const NpyOutputFormats& formats,
                                           const MergeOptions& options, SortRun& run,
                                           std::uint64_t host_memory, std::size_t threads);

}  // namespace rmgsort
