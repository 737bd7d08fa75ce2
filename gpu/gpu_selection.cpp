#include "gpu/gpu_selection.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"

namespace rmgsort {

GpuSpec parse_gpu_spec(std::string_view text) {
  if (text == "all") return {GpuSpec::Kind::all, {}};
  if (text == "none") return {GpuSpec::Kind::none, {}};
  const auto malformed = [&](std::string_view why) {
    return Error("--gpus: '" + std::string(text) + "' " + std::string(why) +
                 " (expected all, none, or device numbers such as 0,1,3)");
  };
  GpuSpec spec{GpuSpec::Kind::list, {}};
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    int ordinal = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), ordinal);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || ordinal < 0)
      throw malformed("is not a device list");
    if (std::find(spec.ordinals.begin(), spec.ordinals.end(), ordinal) != spec.ordinals.end())
      throw malformed("names device " + std::to_string(ordinal) + " twice");
    spec.ordinals.push_back(ordinal);
    if (comma == text.size()) break;
    start = comma + 1;
  }
  return spec;
}

std::vector<int> resolve_gpus(const GpuSpec& spec, int present) {
  switch (spec.kind) {
    case GpuSpec::Kind::none: return {};
    case GpuSpec::Kind::all: {
      std::vector<int> all(std::size_t(std::max(present, 0)));
      for (int i = 0; i < present; ++i) all[std::size_t(i)] = i;
      return all;
    }
    case GpuSpec::Kind::list:
      for (int ordinal : spec.ordinals)
        if (ordinal >= present)
          throw Error("--gpus: GPU " + std::to_string(ordinal) + " was requested, but " +
                      (present == 0 ? std::string("no CUDA GPU is present")
                                    : "only " + std::to_string(present) + " GPU" + (present == 1 ? " is" : "s are") +
                                          " present (numbered 0 to " + std::to_string(present - 1) + ")"));
      return spec.ordinals;
  }
  return {};
}

}  // namespace rmgsort
