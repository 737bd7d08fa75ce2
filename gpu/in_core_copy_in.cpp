// 1. Copy in, all GPUs at once. The keys stay raw: the first pass encodes them as it reads. They
// go in pieces on a stream of their own, so that the first pass counts each piece while the next
// one copies. Records carried as pairs are staged in the second key and value buffers (free until
// the first scatter) and split into encoded keys and values in the first ones, on `main`.
#include "gpu/copy_in_pieces.hpp"
#include "gpu/in_core_state.hpp"
#include "gpu/record_pair_kernels.cuh"

namespace rmgsort {

template <class Copy>
void InCoreSorter::Impl::copy_each_chunk(const std::vector<std::uint64_t>& chunks, Copy&& copy) {
  std::uint64_t first = 0;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    GpuState& gpu = gpus[i];
    at(gpu.device, "copy in");
    ScopedDevice scope(gpu.device);
    gpu.current = 0;
    gpu.start.record(gpu.main.get());
    const cudaStream_t copied_on = copy(gpu, first, chunks[i]);
    gpu.copied_in.record(copied_on);
    first += chunks[i];
  }
}

void InCoreSorter::Impl::copy_in(const std::byte* host, const std::vector<std::uint64_t>& chunks, std::size_t width) {
  copied_on_incoming = true;
  piece_ends.assign(gpus.size(), {});
  copy_each_chunk(chunks, [&](GpuState& gpu, std::uint64_t first, std::uint64_t count) {
    std::vector<std::uint64_t>& ends = piece_ends[std::size_t(&gpu - gpus.data())];
    ends = copy_in_piece_ends(count, int(width));
    const cudaStream_t incoming = gpu.incoming.get();
    // After `start`, so after all that `main` joined at the end of the previous sort (its sort
    // streams, copies back and swap sends, which the host waited for): the buffer is free.
    RMGSORT_CUDA_TRY(cudaStreamWaitEvent(incoming, gpu.start.get(), 0));
    std::uint64_t begin = 0;
    for (std::size_t p = 0; p < ends.size(); ++p) {
      RMGSORT_CUDA_TRY(cudaMemcpyAsync(gpu.keys[0].as() + begin * width, host + (first + begin) * width,
                                       (ends[p] - begin) * width, cudaMemcpyHostToDevice, incoming));
      gpu.piece_copied[p].record(incoming);
      begin = ends[p];
    }
    return incoming;
  });
}

template <class Bits>
void InCoreSorter::Impl::copy_in_records(const std::byte* host, const std::vector<std::uint64_t>& chunks,
                                         const RecordLayout& layout, SortOrder order, bool positions_wanted) {
  const std::size_t size = layout.record_size;
  copied_on_incoming = false;
  piece_ends.assign(gpus.size(), {});
  copy_each_chunk(chunks, [&](GpuState& gpu, std::uint64_t first, std::uint64_t count) {
    const std::uint64_t bytes = count * size;
    const StagedRecords<std::byte> staged{gpu.keys[1].as(), std::min<std::uint64_t>(bytes, gpu.keys[1].bytes()),
                                          gpu.values[1].as()};
    RMGSORT_EXPECTS(bytes - staged.first_bytes <= gpu.values[1].bytes(), "a chunk's records fit the spare buffers");
    const std::byte* from = host + first * size;
    RMGSORT_CUDA_TRY(
        cudaMemcpyAsync(staged.first, from, staged.first_bytes, cudaMemcpyHostToDevice, gpu.main.get()));
    if (bytes > staged.first_bytes)
      RMGSORT_CUDA_TRY(cudaMemcpyAsync(staged.rest, from + staged.first_bytes, bytes - staged.first_bytes,
                                       cudaMemcpyHostToDevice, gpu.main.get()));
    split_records_async<Bits>({staged.first, staged.first_bytes, staged.rest}, count, layout, order, positions_wanted,
                              first, gpu.keys[0].as<Bits>(), gpu.values[0].as<std::uint64_t>(), gpu.main.get());
    return gpu.main.get();
  });
}

template void InCoreSorter::Impl::copy_in_records<std::uint32_t>(const std::byte*, const std::vector<std::uint64_t>&,
                                                                 const RecordLayout&, SortOrder, bool);
template void InCoreSorter::Impl::copy_in_records<std::uint64_t>(const std::byte*, const std::vector<std::uint64_t>&,
                                                                 const RecordLayout&, SortOrder, bool);

}  // namespace rmgsort
