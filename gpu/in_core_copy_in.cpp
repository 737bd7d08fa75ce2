// 1. Copy in, all GPUs at once. The keys stay raw: the first pass encodes them as it reads.
#include "gpu/in_core_state.hpp"

namespace rmgsort {

void InCoreSorter::Impl::copy_in(const std::byte* host, const std::vector<std::uint64_t>& chunks, std::size_t width) {
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    GpuState& gpu = gpus[i];
    at(gpu.device, "copy in");
    ScopedDevice scope(gpu.device);
    gpu.current = 0;
    gpu.start.record(gpu.main.get());
    RMGSORT_CUDA_TRY(cudaMemcpyAsync(gpu.keys[0].as(), host + offset * width, chunks[i] * width,
                                     cudaMemcpyHostToDevice, gpu.main.get()));
    gpu.copied_in.record(gpu.main.get());
    offset += chunks[i];
  }
}

}  // namespace rmgsort
