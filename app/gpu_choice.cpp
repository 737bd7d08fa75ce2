#include "app/gpu_choice.hpp"

#include <memory>
#include <string>

#include "gpu/devices.hpp"
#include "report/size_parse.hpp"
#include "sort/small_input.hpp"

namespace rmgsort {

GpuEngineChooser choose_gpu_engine(GpuChoice choice, std::vector<int>& selected) {
  selected = choice.listed;
  // The GPUs' chooser, made once the GPUs are known: it remembers, across the plan's calls, GPUs
  // whose memory could not be had.
  auto gpus_chooser = std::make_shared<GpuEngineChooser>();
  return [choice = std::move(choice), &selected, gpus_chooser](
             const RecordLayout& layout, PositionSource positions, std::uint64_t keys, RoundSorting rounds,
             std::string& why_not) -> std::unique_ptr<SortEngine> {
    if (choice.spec.kind == GpuSpec::Kind::all) {
      const std::uint64_t bytes = keys * layout.record_size;
      const std::uint64_t small = cpu_first_input_bytes(choice.threads);
      if (keys > 0 && bytes < small) {
        why_not = "a small input (" + std::to_string(bytes) + " bytes, under " + format_bytes(small) + " with " +
                  std::to_string(choice.threads) + " threads): the CPU sorts it before the GPUs start; --gpus with "
                  "device numbers forces them";
        return nullptr;
      }
      if (keys == 0) {
        why_not = "no keys";
        return nullptr;
      }
      if (!*gpus_chooser) selected = resolve_gpus(choice.spec, cuda_device_count());
    }
    if (!*gpus_chooser) *gpus_chooser = gpu_engine_chooser(selected, choice.gpu_memory);
    return (*gpus_chooser)(layout, positions, keys, rounds, why_not);
  };
}

}  // namespace rmgsort
