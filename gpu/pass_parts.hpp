// One partitioning pass, described once for its histograms and for its scatter, which must walk
// the same parts with the same blocks and block-count slots: per GPU, its parts of the planner's
// spanning buckets. Pure host code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gpu/partition_planner.hpp"

namespace rmgsort {

// One spanning bucket's part on one GPU.
struct PassPart {
  std::size_t row = 0;       // s * gpus + gpu for spanning bucket s: its histogram for the planner,
                             // its row of digit starts in pinned memory
  GpuRange range;            // in the GPU's current buffer; never empty
  int digit_shift = 0;       // the bucket's digit: (radix >> digit_shift) & (kDigits - 1)
  std::uint64_t blocks = 0;  // of the partitioning kernels over the part
  std::uint64_t slot = 0;    // its first block count in block_counts: the GPU's parts before it
                             // take [0, slot), blocks x kDigits each
};

struct PassParts {
  std::vector<std::vector<PassPart>> on_gpu;  // per GPU, in spanning order; empty parts left out
  std::size_t rows = 0;                       // spanning buckets x GPUs
};

[[nodiscard]] PassParts pass_parts(std::span<const SpanningBucket> spanning, std::size_t gpus, int key_bytes);

// The planner's histograms, one per row (all zero where a GPU holds none of the bucket), from the
// parts' digit starts: digit_starts[row * kDigits + d] is where digit d's keys begin in the part.
[[nodiscard]] std::vector<std::vector<std::uint64_t>> digit_histograms(const PassParts& parts,
                                                                       const std::uint32_t* digit_starts);

}  // namespace rmgsort
