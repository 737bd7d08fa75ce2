// The --gpus option: "all", "none" or a comma-separated list of device ordinals. Parsing is pure
// host code; resolving needs the number of devices present.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rmgsort {

struct GpuSpec {
  enum class Kind { all, none, list } kind = Kind::all;
  std::vector<int> ordinals;  // Kind::list only: distinct, in the order given
};

// Throws Error for anything but "all", "none" or distinct non-negative integers separated by commas.
[[nodiscard]] GpuSpec parse_gpu_spec(std::string_view text);

// The devices to sort on, given `present` devices: "all" takes every one (none present: an empty
// list, so the CPU sorts); a list naming a device that is not present is an Error.
[[nodiscard]] std::vector<int> resolve_gpus(const GpuSpec& spec, int present);

}  // namespace rmgsort
