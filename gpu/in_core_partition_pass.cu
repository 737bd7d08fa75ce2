// 2. One partitioning pass over the planner's spanning buckets (thesis §4.1-4.2): every GPU's block
// histograms of its parts, scanned in place into scatter offsets; the exchange, where the host
// waits for every GPU's digit starts and turns them into the planner's histograms; the scatter of
// each part into the other buffer; then the planner's refinement, on the host while the GPUs
// scatter. The passes end with wait_for_last_scatter().
#include <cub/device/device_scan.cuh>

#include <algorithm>

#include "gpu/in_core_state.hpp"
#include "gpu/key_transform_kernels.cuh"

namespace rmgsort {

template <class T>
void InCoreSorter::Impl::partition_pass(PartitionPlanner& planner, KeyInput input, SortOrder order,
                                        const std::vector<std::uint64_t>& chunks) {
  const int pass = planner.passes_done();
  const PassParts parts = pass_parts(planner.spanning(), gpus.size(), int(sizeof(T)));
  RMGSORT_EXPECTS(parts.rows <= digit_start_slots, "at most s_max spanning buckets");
  enqueue_histograms<T>(parts, pass, input);
  const std::vector<std::vector<std::uint64_t>> histograms = wait_for_histograms(parts, pass);
  enqueue_scatters<T>(parts, histograms, pass, input, order, chunks);
  planner.refine(histograms);
}

// Histograms of every part: block counts, scanned in place into scatter offsets; the digit starts
// (each digit's first block's offset) go to the host for the planner. The first pass counts each
// piece of the copy in as it arrives (its keys in keys[0]: bare keys copied, pairs split); its
// histogram time is then what is left after the copy (histogram_start on the stream where the copy
// ended, after the last piece), and `main` joins that stream at that last event before the
// scatter, so that every event recorded there has completed by the time the host has waited for
// `main` (also on a GPU without keys, whose histograms wait for nothing).
template <class T>
void InCoreSorter::Impl::enqueue_histograms(const PassParts& parts, int pass, KeyInput input) {
  using Bits = RadixBits<T>;
  auto* starts = digit_starts.as<std::uint32_t>();
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    GpuState& gpu = gpus[i];
    at(gpu.device, "histogram of pass " + std::to_string(pass + 1));
    ScopedDevice scope(gpu.device);
    const bool after_copy_in = pass == 0;
    const bool arriving = after_copy_in && !piece_ends[i].empty();
    const Event& histogram_start = gpu.histogram_start[std::size_t(pass)];
    histogram_start.record(after_copy_in ? gpu.copy_in_end : gpu.main.get());
    for (const PassPart& part : parts.on_gpu[i]) {
      std::uint32_t* counts = gpu.block_counts.as<std::uint32_t>() + part.slot;
      const Bits* keys = gpu.keys[std::size_t(gpu.current)].as<Bits>() + part.range.offset;
      if (arriving && part.range.offset == 0 && part.range.keys == piece_ends[i].back()) {
        count_arriving_pieces<T>(gpu, part, piece_ends[i], input);
      } else {
        if (arriving) RMGSORT_CUDA_TRY(cudaStreamWaitEvent(gpu.main.get(), gpu.copied_in.get(), 0));
        block_histograms_async<T>(keys, std::uint32_t(part.range.keys), part.digit_shift, input, counts,
                                  gpu.main.get());
      }
      std::size_t temporary_bytes = gpu.layout.scan_temporary_bytes;
      RMGSORT_CUDA_TRY(cub::DeviceScan::ExclusiveSum(gpu.scan_temporary.as(), temporary_bytes, counts, counts,
                                                     part.blocks * gpu_policy::kDigits, gpu.main.get()));
      RMGSORT_CUDA_TRY(cudaMemcpy2DAsync(starts + part.row * gpu_policy::kDigits, sizeof(std::uint32_t), counts,
                                         part.blocks * sizeof(std::uint32_t), sizeof(std::uint32_t),
                                         gpu_policy::kDigits, cudaMemcpyDeviceToHost, gpu.main.get()));
    }
    if (after_copy_in) RMGSORT_CUDA_TRY(cudaStreamWaitEvent(gpu.main.get(), histogram_start.get(), 0));
    gpu.histogram_done[std::size_t(pass)].record(gpu.main.get());
  }
}

template <class T>
void InCoreSorter::Impl::count_arriving_pieces(GpuState& gpu, const PassPart& part,
                                               const std::vector<std::uint64_t>& ends, KeyInput input) {
  const int key_bytes = int(sizeof(T));
  std::uint32_t* counts = gpu.block_counts.as<std::uint32_t>() + part.slot;
  const RadixBits<T>* keys = gpu.keys[std::size_t(gpu.current)].as<RadixBits<T>>();
  std::uint64_t begin = 0;
  for (std::size_t p = 0; p < ends.size(); ++p) {
    RMGSORT_CUDA_TRY(cudaStreamWaitEvent(gpu.main.get(), gpu.piece_ready[p].get(), 0));
    // Every piece but the last ends on a block, so that its blocks read only keys that arrived.
    const auto first_block = std::uint32_t(gpu_policy::blocks_for(begin, key_bytes));
    const auto end_block = std::uint32_t(gpu_policy::blocks_for(ends[p], key_bytes));
    block_histograms_of_blocks_async<T>(keys, std::uint32_t(part.range.keys), part.digit_shift, input, counts,
                                        first_block, end_block - first_block, gpu.main.get());
    begin = ends[p];
  }
}

// The exchange: waits for every GPU's histograms (and, in the first pass, its copy in).
std::vector<std::vector<std::uint64_t>> InCoreSorter::Impl::wait_for_histograms(const PassParts& parts, int pass) {
  for (GpuState& gpu : gpus) {
    at(gpu.device, "copy in or histogram of pass " + std::to_string(pass + 1));
    gpu.main.synchronize();
  }
  return digit_histograms(parts, digit_starts.as<std::uint32_t>());
}

// Scatter each part into the other buffer, unless all its keys share the digit (thesis §4.2: then
// the part is already partitioned). A part that is not the whole chunk is copied back, so that
// each GPU's keys stay in one buffer.
template <class T>
void InCoreSorter::Impl::enqueue_scatters(const PassParts& parts,
                                          const std::vector<std::vector<std::uint64_t>>& histograms, int pass,
                                          KeyInput input, SortOrder order, const std::vector<std::uint64_t>& chunks) {
  using Bits = RadixBits<T>;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    GpuState& gpu = gpus[i];
    at(gpu.device, "scatter of pass " + std::to_string(pass + 1));
    ScopedDevice scope(gpu.device);
    gpu.scatter_start[std::size_t(pass)].record(gpu.main.get());
    for (const PassPart& part : parts.on_gpu[i]) {
      const GpuRange range = part.range;
      const std::vector<std::uint64_t>& histogram = histograms[part.row];
      const bool one_digit = std::find(histogram.begin(), histogram.end(), range.keys) != histogram.end();
      if (!one_digit) {
        const auto from = std::size_t(gpu.current), to = std::size_t(1 - gpu.current);
        Bits* in = gpu.keys[from].as<Bits>();
        Bits* out = gpu.keys[to].as<Bits>();
        const std::uint32_t* offsets = gpu.block_counts.as<std::uint32_t>() + part.slot;
        auto* values_in = gpu.values[from].as<std::uint64_t>();
        auto* values_out = gpu.values[to].as<std::uint64_t>();
        if (carries_values()) {
          scatter_pairs_async<Bits>(in + range.offset, values_in + range.offset, std::uint32_t(range.keys),
                                    part.digit_shift, offsets, out + range.offset, values_out + range.offset,
                                    gpu.main.get());
        } else {
          scatter_async<T>(in + range.offset, std::uint32_t(range.keys), part.digit_shift, input, offsets,
                           out + range.offset, gpu.main.get());
        }
        if (range.offset == 0 && range.keys == chunks[i]) {
          gpu.current = 1 - gpu.current;  // the whole chunk moved: flip instead of copying back
        } else {
          RMGSORT_CUDA_TRY(cudaMemcpyAsync(in + range.offset, out + range.offset, range.keys * sizeof(T),
                                           cudaMemcpyDeviceToDevice, gpu.main.get()));
          if (carries_values())
            RMGSORT_CUDA_TRY(cudaMemcpyAsync(values_in + range.offset, values_out + range.offset,
                                             range.keys * sizeof(std::uint64_t), cudaMemcpyDeviceToDevice,
                                             gpu.main.get()));
        }
      } else if (input != KeyInput::encoded) {
        // A first pass that moved nothing left raw keys: encode them in place (skewed data only).
        encode_keys_async<T>(gpu.keys[std::size_t(gpu.current)].as<Bits>() + range.offset, range.keys, order,
                             gpu.main.get());
      }
    }
    gpu.scatter_done[std::size_t(pass)].record(gpu.main.get());
  }
}

void InCoreSorter::Impl::wait_for_last_scatter() {
  for (GpuState& gpu : gpus) {
    at(gpu.device, "scatter of the last pass");
    gpu.main.synchronize();
  }
}

#define RMGSORT_INSTANTIATE_PARTITION_PASS(T) \
  template void InCoreSorter::Impl::partition_pass<T>(PartitionPlanner&, KeyInput, SortOrder, \
                                                      const std::vector<std::uint64_t>&);
RMGSORT_IN_CORE_KEY_TYPES(RMGSORT_INSTANTIATE_PARTITION_PASS)

}  // namespace rmgsort
