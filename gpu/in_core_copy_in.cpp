// 1. Copy in, all GPUs at once, in pieces on a stream of their own (copy_in_pieces.hpp), so that the
// first pass counts each piece's keys while the next one copies. Bare keys stay raw: the first pass
// encodes them as it reads. Records carried as pairs are staged in the second key and value buffers
// (free until the first scatter) and each piece is split into encoded keys and values in the first
// ones, on a stream of its own, as soon as it has arrived.
#include "gpu/copy_in_pieces.hpp"
#include "gpu/in_core_state.hpp"
#include "gpu/record_pair_kernels.cuh"

namespace rmgsort {
namespace {

// Stages bytes [begin, end) of the records at `from` (one copy per staging run the range touches).
void copy_to_staged(StagedRecords<std::byte> staged, const std::byte* from, std::uint64_t begin, std::uint64_t end,
                    cudaStream_t stream) {
  for (const StagedCopy<std::byte>& copy : staged_copies(staged, begin, end))
    RMGSORT_CUDA_TRY(cudaMemcpyAsync(copy.to, from + copy.chunk_offset, copy.bytes, cudaMemcpyHostToDevice, stream));
}

}  // namespace

template <class Copy>
void InCoreSorter::Impl::copy_each_chunk(const std::vector<std::uint64_t>& chunks, Copy&& copy) {
  std::uint64_t first = 0;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    GpuState& gpu = gpus[i];
    at(gpu.device, "copy in");
    ScopedDevice scope(gpu.device);
    gpu.current = 0;
    gpu.start.record(gpu.main.get());
    // After `start`, so after all that `main` joined at the end of the previous sort (its sort
    // streams, copies back and swap sends, which the host waited for): the buffers are free.
    RMGSORT_CUDA_TRY(cudaStreamWaitEvent(gpu.incoming.get(), gpu.start.get(), 0));
    gpu.copy_in_end = copy(gpu, first, chunks[i]);
    gpu.copied_in.record(gpu.copy_in_end);
    first += chunks[i];
  }
}

void InCoreSorter::Impl::copy_in(const std::byte* host, const std::vector<std::uint64_t>& chunks, std::size_t width) {
  piece_ends.assign(gpus.size(), {});
  copy_each_chunk(chunks, [&](GpuState& gpu, std::uint64_t first, std::uint64_t count) {
    std::vector<std::uint64_t>& ends = piece_ends[std::size_t(&gpu - gpus.data())];
    ends = copy_in_piece_ends(count, int(width));
    const cudaStream_t incoming = gpu.incoming.get();
    std::uint64_t begin = 0;
    for (std::size_t p = 0; p < ends.size(); ++p) {
      RMGSORT_CUDA_TRY(cudaMemcpyAsync(gpu.keys[0].as() + begin * width, host + (first + begin) * width,
                                       (ends[p] - begin) * width, cudaMemcpyHostToDevice, incoming));
      gpu.piece_ready[p].record(incoming);
      begin = ends[p];
    }
    return incoming;
  });
}

template <class Bits>
void InCoreSorter::Impl::copy_in_records(const std::byte* host, const std::vector<std::uint64_t>& chunks,
                                         const RecordLayout& layout, SortOrder order, bool positions_wanted) {
  const std::size_t size = layout.record_size;
  piece_ends.assign(gpus.size(), {});
  copy_each_chunk(chunks, [&](GpuState& gpu, std::uint64_t first, std::uint64_t count) {
    const std::uint64_t bytes = count * size;
    const StagedRecords<std::byte> staged{gpu.keys[1].as(), std::min<std::uint64_t>(bytes, gpu.keys[1].bytes()),
                                          gpu.values[1].as()};
    RMGSORT_EXPECTS(bytes - staged.first_bytes <= gpu.values[1].bytes(), "a chunk's records fit the spare buffers");
    std::vector<std::uint64_t>& ends = piece_ends[std::size_t(&gpu - gpus.data())];
    ends = copy_in_piece_ends(count, int(sizeof(Bits)));  // pieces of whole blocks of the keys split out
    const std::byte* from = host + first * size;
    const cudaStream_t incoming = gpu.incoming.get(), splitting = gpu.splitting.get();
    std::uint64_t begin = 0;
    for (std::size_t p = 0; p < ends.size(); ++p) {
      copy_to_staged(staged, from, begin * size, ends[p] * size, incoming);
      gpu.piece_copied[p].record(incoming);
      // (After `start` too: the copy waited for it.)
      RMGSORT_CUDA_TRY(cudaStreamWaitEvent(splitting, gpu.piece_copied[p].get(), 0));
      split_records_async<Bits>(staged_from(staged, begin * size), ends[p] - begin, layout, order, positions_wanted,
                                first + begin, gpu.keys[0].as<Bits>() + begin,
                                gpu.values[0].as<std::uint64_t>() + begin, splitting);
      gpu.piece_ready[p].record(splitting);
      begin = ends[p];
    }
    // A GPU without records ends on `incoming`, which waited for `start`.
    return ends.empty() ? incoming : splitting;
  });
}

template void InCoreSorter::Impl::copy_in_records<std::uint32_t>(const std::byte*, const std::vector<std::uint64_t>&,
                                                                 const RecordLayout&, SortOrder, bool);
template void InCoreSorter::Impl::copy_in_records<std::uint64_t>(const std::byte*, const std::vector<std::uint64_t>&,
                                                                 const RecordLayout&, SortOrder, bool);

}  // namespace rmgsort
