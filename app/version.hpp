// rmgsort --version: the version, the CUDA runtime and driver, and the GPUs rmgsort sees.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "gpu/devices.hpp"

namespace rmgsort {

// The lines after "rmgsort VERSION" for `summary`, each ending in a newline:
//   CUDA runtime 13.0 (linked in), GPU code for architectures 80-real 86-real 89-real 90-real 100-real 120
//   CUDA driver 13.0
//   GPU 0: NVIDIA H200, 139.80 GiB, compute capability 9.0
// or a line that says why rmgsort sorts on the CPU: built without CUDA, no CUDA driver, a driver too
// old for the runtime, no GPU.
[[nodiscard]] std::string cuda_version_text(const CudaSummary& summary);

// Whether GPU code built for `architectures` (CMake's list, space-separated: "86-real", "90-virtual",
// "120" for both) runs on compute capability major.minor: machine code for X.Y runs on X.Z, Z >= Y;
// PTX for X.Y on anything from X.Y up. nullopt where the list does not say ("native", "all").
[[nodiscard]] std::optional<bool> architectures_run_on(std::string_view architectures, int major, int minor);

// Writes "rmgsort VERSION" and then cuda_version_text(cuda_summary()) to standard output; returns the
// exit code. A CUDA failure other than a missing driver or GPU is thrown (after the first line).
[[nodiscard]] int print_version();

}  // namespace rmgsort
