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
// within gpu_memory) records a round; nullptr with `why_not` set when there is no GPU or no record
// (the CPU then sorts). Device errors, and GPU memory too small for one key per GPU, are thrown.
using GpuEngineChooser = std::function<std::unique_ptr<SortEngine>(
    const RecordLayout& layout, PositionSource positions, std::uint64_t keys, std::string& why_not)>;

// The chooser for `gpus` (none: the CPU always sorts), within gpu_memory per GPU (default: free
// memory less a margin, gpu/in_core_sort.hpp).
[[nodiscard]] GpuEngineChooser gpu_engine_chooser(std::vector<int> gpus, std::optional<std::uint64_t> gpu_memory);

}  // namespace rmgsort
