// What one GPU needs for a chunk, from exact sizes: the double buffer of chunk + 2 epsilon keys,
// CUB's temporary storage (queried, not guessed) and the histogram tables. Used by plan_in_core
// and by the sorter when it allocates, so both agree to the byte.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "gpu/in_core_sort.hpp"

namespace rmgsort {

struct GpuLayout {
  std::uint64_t chunk_keys = 0;
  std::uint64_t epsilon_keys = 0;
  std::uint64_t buffer_keys = 0;         // chunk + 2 epsilon
  std::uint64_t block_count_slots = 0;   // blocks of one pass's parts, at most: chunk's blocks + g
  std::uint64_t scan_temporary_bytes = 0;
  std::uint64_t sort_temporary_bytes = 0;  // one bucket sort (two run at once)
  GpuMemoryNeed need;
};

// Queries CUB on the current device. value_bytes: 0, or kPairValueBytes for pairs.
[[nodiscard]] GpuLayout gpu_layout(KeyType type, std::uint64_t chunk_keys, int gpus, std::size_t value_bytes);

// Bytes left unplanned on each GPU when --gpu-memory is not given: for the CUDA runtime's and
// libraries' own allocations beside ours.
inline constexpr std::uint64_t kGpuMemoryMargin = std::uint64_t{512} << 20;

// What one GPU has free now, and how much of it a sorter planned again now may take: the free
// memory less kGpuMemoryMargin, at most --gpu-memory when that is given.
struct GpuFreeMemory {
  int device = 0;
  std::uint64_t free = 0;
  std::uint64_t usable = 0;
};

// Reads it on each of `gpus`; Error when a GPU cannot tell (a device fault).
[[nodiscard]] std::vector<GpuFreeMemory> gpu_free_memory(const std::vector<int>& gpus,
                                                         std::optional<std::uint64_t> gpu_memory_bytes);

}  // namespace rmgsort
