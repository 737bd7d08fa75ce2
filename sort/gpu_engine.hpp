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

// The GPUs' engine for `keys` records of `layout`, planned for min(keys, the most that fit the GPUs
// within gpu_memory) records a round, its device memory allocated; nullptr with `why_not` set when
// there is no GPU or no record, or when the GPUs' memory could not be had (the CPU then sorts).
// Device errors, and GPU memory too small for one key per GPU when the plan is first made, are
// thrown.
using GpuEngineChooser = std::function<std::unique_ptr<SortEngine>(
    const RecordLayout& layout, PositionSource positions, std::uint64_t keys, std::string& why_not)>;

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
