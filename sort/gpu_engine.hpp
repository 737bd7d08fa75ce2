// The GPUs as a sort engine: the in-core stage planned for the input (or for the largest round that
// fits the GPUs, when the input is sorted in rounds), run on page-locked host memory. In a build
// without CUDA there is none.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sort/sort_engine.hpp"

namespace rmgsort {

// How the rounds of bare keys more than the GPUs hold will be sorted. one_at_a_time: each round
// with all of the GPUs' memory (the spill path, which sorts a round at a time). overlapped: two
// sorters of half the memory each (SortEngine::concurrent_sorts), sorting alternate rounds, so that
// one round's copy back overlaps the next one's copy in (the rounds path in memory).
enum class RoundSorting { one_at_a_time, overlapped };

// The GPUs' engine for `keys` records of `layout`, planned for min(keys, the most that fit the GPUs
// within gpu_memory) records a round (bare keys beyond that with RoundSorting::overlapped: two
// sorters of the most that fit half of it), its device memory allocated; nullptr with `why_not` set
// when there is no GPU or no record, or when the GPUs' memory could not be had (the CPU then
// sorts). Device errors, and GPU memory too small for one key per GPU when the plan is first made,
// are thrown.
using GpuEngineChooser =
    std::function<std::unique_ptr<SortEngine>(const RecordLayout& layout, PositionSource positions,
                                              std::uint64_t keys, RoundSorting rounds, std::string& why_not)>;

// Where a notice to the user goes: one line, "rmgsort: ...", without its newline.
using Notice = std::function<void(const std::string& line)>;

// The chooser for `gpus` (none: the CPU always sorts), within gpu_memory per GPU (default: free
// memory less a margin, gpu/memory_plan.cuh). The devices' buffers are allocated as the engine is
// chosen, so that the plan it reports is one that holds its memory. When another process has taken
// memory since the plan read it, the engine is planned again once from what is free then (smaller
// rounds: the sort plan is made from the engine it gets); when even that cannot be allocated, the
// chooser returns nullptr and chooses the CPU for the rest of the run. Either is told through
// `notice` (default: standard error). An engine chosen before must be destroyed before the next one
// is chosen, or its memory is not free for the next.
[[nodiscard]] GpuEngineChooser gpu_engine_chooser(std::vector<int> gpus, std::optional<std::uint64_t> gpu_memory,
                                                  Notice notice = {});

}  // namespace rmgsort
