// `rmgsort sort` on the GPUs: whether the in-core stage can take the input, and running it on the
// buffer the input was read into. In a build without CUDA it never takes an input.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/stats.hpp"
#include "host/key_order.hpp"
#include "host/key_type.hpp"

namespace rmgsort {

class GpuEngine {
 public:
  // The engine for `keys` keys on `gpus`, or nullptr with `why_not` set when they do not fit the
  // GPUs' memory (the CPU then sorts). Device errors are thrown.
  static std::unique_ptr<GpuEngine> choose(KeyType type, const std::vector<int>& gpus, std::uint64_t keys,
                                           std::optional<std::uint64_t> gpu_memory, std::string& why_not);
  virtual ~GpuEngine() = default;

  // Page-locks the buffer the input will be read into (once, before reading).
  virtual void pin(std::byte* data, std::size_t bytes) = 0;
  // Allocates the devices' buffers (timed apart from the sort, as the benchmark reports it).
  virtual void allocate() = 0;
  virtual void sort(std::byte* keys, std::uint64_t count, SortOrder order) = 0;
  // Per-GPU, per-phase times, bytes per link, passes and buckets of the last sort.
  [[nodiscard]] virtual JsonObject stats() const = 0;
};

}  // namespace rmgsort
