// The sorter's setup, once per sorter: every GPU's buffers, streams and events, peer access between
// every pair that supports it, and the pinned digit starts of one pass.
#include "gpu/in_core_state.hpp"

namespace rmgsort {
namespace {

// The buffers of the plan's layout, on the current device (gpu.device). A failure (another process
// may have taken the memory since the plan read it) throws Error naming the GPU; the buffers
// allocated so far go with `gpu`.
void allocate(GpuState& gpu, const InCorePlan& plan) {
  const std::size_t g = plan.gpus.size();
  gpu.layout = gpu_layout(plan.type, plan.chunk_keys, int(g), plan.value_bytes);
  RMGSORT_FAULT_BEFORE_ALLOCATION(gpu.device, gpu.layout.need.total());  // a test's (gpu/fault_injection.hpp)
  const std::uint64_t key_bytes = gpu.layout.buffer_keys * key_width(plan.type);
  gpu.keys[0] = DeviceBuffer(key_bytes, "the key buffer");
  gpu.keys[1] = DeviceBuffer(key_bytes, "the second key buffer");
  if (plan.value_bytes > 0) {
    const std::uint64_t value_bytes = gpu.layout.buffer_keys * plan.value_bytes;
    gpu.values[0] = DeviceBuffer(value_bytes, "the value buffer");
    gpu.values[1] = DeviceBuffer(value_bytes, "the second value buffer");
  }
  gpu.block_counts = DeviceBuffer(gpu.layout.block_count_slots * sizeof(std::uint32_t), "block histograms");
  gpu.scan_temporary = DeviceBuffer(gpu.layout.scan_temporary_bytes, "the histogram scan");
  for (auto& temporary : gpu.sort_temporary)
    temporary = DeviceBuffer(gpu.layout.sort_temporary_bytes, "bucket sort storage");
  for (std::size_t j = 0; j < g; ++j) {
    gpu.to_gpu.emplace_back();
    gpu.sent_to.emplace_back();
  }
}

// Peer access between every pair that supports it; returns the others ("src->dst"), which the
// driver stages through host memory.
std::vector<std::string> enable_peer_access(const std::vector<GpuState>& gpus) {
  std::vector<std::string> staged_pairs;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    for (std::size_t j = 0; j < gpus.size(); ++j) {
      if (i == j || gpus[i].device == gpus[j].device) continue;
      int can = 0;
      RMGSORT_CUDA_TRY(cudaDeviceCanAccessPeer(&can, gpus[i].device, gpus[j].device));
      if (!can) {
        staged_pairs.push_back(std::to_string(gpus[i].device) + "->" + std::to_string(gpus[j].device));
        continue;
      }
      ScopedDevice scope(gpus[i].device);
      const cudaError_t status = cudaDeviceEnablePeerAccess(gpus[j].device, 0);
      if (status == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();
      } else {
        RMGSORT_CUDA_TRY(status);
      }
    }
  }
  return staged_pairs;
}

}  // namespace

InCoreSorter::Impl::Impl(const InCorePlan& p) : plan(p) {
  const std::size_t g = plan.gpus.size();
  const int key_bits = int(8 * key_width(plan.type));
  ScopedDevice restore(plan.gpus[0]);  // leaves the caller's current device as it was
  gpus.reserve(g);                     // GpuState is built in place and never moves
  for (std::size_t i = 0; i < g; ++i) {
    GpuState& gpu = gpus.emplace_back(plan.gpus[i]);
    ScopedDevice scope(gpu.device);
    allocate(gpu, plan);
  }
  staged_pairs = enable_peer_access(gpus);
  digit_start_slots = PartitionPlanner::max_spanning_buckets(int(g), key_bits, gpu_policy::kDigitBits) * g;
  digit_starts = PinnedHostBuffer(digit_start_slots * gpu_policy::kDigits * sizeof(std::uint32_t));
}

}  // namespace rmgsort
