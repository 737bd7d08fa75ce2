// 4. Bucket sorts on reduced bit ranges, each bucket copied back as soon as it is sorted; two
// streams, so one bucket sorts while the previous one is copied. Waits for every GPU's copies back.
#include <cub/device/device_radix_sort.cuh>

#include "gpu/in_core_state.hpp"
#include "gpu/key_transform_kernels.cuh"

namespace rmgsort {
namespace {

// One bucket of the keys `gpu` received, on its sort stream `s`: sorted by the bits partitioning
// left (none when it consumed them all), decoded, and copied to `host`, the place of the GPU's
// first received key.
template <class T>
void sort_and_copy_back(GpuState& gpu, const BucketSort& sort, std::size_t s, std::byte* host, SortOrder order) {
  using Bits = RadixBits<T>;
  Bits* received = gpu.keys[std::size_t(1 - gpu.current)].as<Bits>();
  Bits* spare = gpu.keys[std::size_t(gpu.current)].as<Bits>();
  cudaStream_t stream = gpu.sort[s].get();
  Bits* result = received + sort.offset;
  if (sort.end_bit > 0 && sort.keys > 1) {
    cub::DoubleBuffer<Bits> buffers(received + sort.offset, spare + sort.offset);
    std::size_t temporary_bytes = gpu.layout.sort_temporary_bytes;
    RMGSORT_CUDA_TRY(cub::DeviceRadixSort::SortKeys(gpu.sort_temporary[s].as(), temporary_bytes, buffers, sort.keys,
                                                    0, sort.end_bit, stream));
    result = buffers.Current();
  }
  if (!encoding_is_identity<T>(order)) decode_keys_async<T>(result, sort.keys, order, stream);
  RMGSORT_CUDA_TRY(cudaMemcpyAsync(host + sort.offset * sizeof(T), result, sort.keys * sizeof(T),
                                   cudaMemcpyDeviceToHost, stream));
}

}  // namespace

template <class T>
void InCoreSorter::Impl::sort_buckets(std::byte* host, const PartitionPlanner& planner, SortOrder order,
                                      InCoreStats& stats) {
  for (std::size_t j = 0; j < gpus.size(); ++j) {
    GpuState& gpu = gpus[j];
    at(gpu.device, "bucket sorts and copy back");
    ScopedDevice scope(gpu.device);
    const std::uint64_t base = planner.boundaries()[j];
    const std::vector<BucketSort> sorts = planner.sort_plan(int(j));
    for (auto& stream : gpu.sort) RMGSORT_CUDA_TRY(cudaStreamWaitEvent(stream.get(), gpu.swap_done.get(), 0));
    for (std::size_t k = 0; k < sorts.size(); ++k)
      sort_and_copy_back<T>(gpu, sorts[k], k % gpu_policy::kSortStreams, host + base * sizeof(T), order);
    for (std::size_t s = 0; s < gpu.sort.size(); ++s) {
      gpu.sort_stream_done[s].record(gpu.sort[s].get());
      RMGSORT_CUDA_TRY(cudaStreamWaitEvent(gpu.main.get(), gpu.sort_stream_done[s].get(), 0));
    }
    gpu.sorted.record(gpu.main.get());
    stats.gpus[j].bucket_sorts = sorts.size();
    stats.gpus[j].keys_received = planner.boundaries()[j + 1] - base;
  }
  for (GpuState& gpu : gpus) {
    at(gpu.device, "bucket sorts and copy back");
    gpu.main.synchronize();
  }
}

#define RMGSORT_INSTANTIATE_BUCKET_SORTS(T) \
  template void InCoreSorter::Impl::sort_buckets<T>(std::byte*, const PartitionPlanner&, SortOrder, InCoreStats&);
RMGSORT_IN_CORE_KEY_TYPES(RMGSORT_INSTANTIATE_BUCKET_SORTS)

}  // namespace rmgsort
