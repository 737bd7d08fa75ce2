// `rmgsort sort` on the GPUs: the in-core stage planned for the input (or for the largest round
// that fits the GPUs, when the input is sorted in rounds), run on page-locked host memory. In a
// build without CUDA it never takes an input.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/stats.hpp"
#include "core/key_order.hpp"
#include "core/key_type.hpp"

namespace rmgsort {

class GpuEngine {
 public:
  // The engine for `keys` keys on `gpus`, planned for min(keys, the most that fit the GPUs within
  // gpu_memory) keys a round; nullptr with `why_not` set when there is no GPU or no key (the CPU
  // then sorts). Device errors, and GPU memory too small for one key per GPU, are thrown.
  static std::unique_ptr<GpuEngine> choose(KeyType type, const std::vector<int>& gpus, std::uint64_t keys,
                                           std::optional<std::uint64_t> gpu_memory, std::string& why_not);
  virtual ~GpuEngine() = default;

  // The most keys one sort() takes.
  [[nodiscard]] virtual std::uint64_t round_keys() const = 0;
  // Page-locks the memory the next sorts take their keys from (which replaces what was pinned
  // before). Its pages are populated from every core first (io/host_buffer.hpp: populate_pages says
  // why). Memory not pinned here sorts too: the sorter page-locks it for the one sort() call.
  virtual void pin(std::byte* data, std::size_t bytes) = 0;
  // Places host memory that is not touched yet on the NUMA node(s) of the selected GPUs (nothing on a
  // machine of one node: host/numa_placement.hpp).
  virtual void place(std::byte* data, std::size_t bytes) const = 0;
  // Allocates the devices' buffers (timed apart from the sort, as the benchmark reports it).
  virtual void allocate() = 0;
  virtual void sort(std::byte* keys, std::uint64_t count, SortOrder order) = 0;
  // The device memory allocate() took on each GPU, in the order of the selected GPUs (zeros before
  // it was called). Everything is allocated once, so this is also each GPU's peak.
  [[nodiscard]] virtual std::vector<std::uint64_t> device_bytes_allocated() const = 0;
  // Per-GPU, per-phase times, bytes per link, passes and buckets of the last sort, and every
  // sort's device time.
  [[nodiscard]] virtual JsonObject stats() const = 0;
};

}  // namespace rmgsort
