// Which GPUs a sort uses, found only when its plan asks: --gpus none never starts the CUDA driver,
// nor does --gpus all for an input the CPU sorts first (sort/small_input.hpp), since starting the
// driver alone takes a few hundred milliseconds on a GPU machine. A device list is resolved (and
// checked against the GPUs present) before anything is read, and always sorts on its GPUs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "gpu/gpu_selection.hpp"
#include "sort/gpu_engine.hpp"

namespace rmgsort {

struct GpuChoice {
  GpuSpec spec;                             // --gpus
  std::vector<int> listed;                  // a device list, resolved; empty otherwise
  std::optional<std::uint64_t> gpu_memory;  // --gpu-memory
  std::size_t threads = 1;                  // the CPU's, for the small-input threshold
};

// The plan's chooser of the GPUs' engine under `choice`. `selected` receives the GPUs it chose
// from (for --stats' gpus_selected): the list, or those present when --gpus all looked for them;
// it must outlive the chooser.
[[nodiscard]] GpuEngineChooser choose_gpu_engine(GpuChoice choice, std::vector<int>& selected);

}  // namespace rmgsort
