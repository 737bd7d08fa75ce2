#include "gpu/pass_parts.hpp"

#include "gpu/gpu_policy.hpp"

namespace rmgsort {

PassParts pass_parts(std::span<const SpanningBucket> spanning, std::size_t gpus, int key_bytes) {
  PassParts parts;
  parts.on_gpu.resize(gpus);
  parts.rows = spanning.size() * gpus;
  for (std::size_t i = 0; i < gpus; ++i) {
    std::uint64_t slot = 0;
    for (std::size_t s = 0; s < spanning.size(); ++s) {
      const GpuRange range = spanning[s].on_gpu[i];
      if (range.keys == 0) continue;
      const std::uint64_t blocks = gpu_policy::blocks_for(range.keys, key_bytes);
      parts.on_gpu[i].push_back(PassPart{s * gpus + i, range, spanning[s].digit_shift, blocks, slot});
      slot += blocks * gpu_policy::kDigits;
    }
  }
  return parts;
}

std::vector<std::vector<std::uint64_t>> digit_histograms(const PassParts& parts, const std::uint32_t* digit_starts) {
  constexpr int kDigits = gpu_policy::kDigits;
  std::vector<std::vector<std::uint64_t>> histograms(parts.rows, std::vector<std::uint64_t>(kDigits, 0));
  for (const std::vector<PassPart>& on_gpu : parts.on_gpu) {
    for (const PassPart& part : on_gpu) {
      const std::uint32_t* first = digit_starts + part.row * kDigits;
      std::vector<std::uint64_t>& histogram = histograms[part.row];
      for (int d = 0; d < kDigits; ++d)
        histogram[std::size_t(d)] = (d + 1 < kDigits ? first[d + 1] : std::uint32_t(part.range.keys)) - first[d];
    }
  }
  return histograms;
}

}  // namespace rmgsort
