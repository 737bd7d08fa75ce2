// The in-core RMG sort (thesis §3-§4): sorts one round of keys held in host memory on the selected
// GPUs and returns it sorted in the same host memory. Everything it needs on the devices and in
// pinned host memory is planned before it starts (plan_in_core) and allocated once, when the
// sorter is built; sort() allocates nothing and can be called for many rounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/key_order.hpp"
#include "core/key_type.hpp"
#include "core/record_layout.hpp"

namespace rmgsort {

// Bytes one GPU needs for a round of up to `round_keys` keys, by purpose.
struct GpuMemoryNeed {
  std::uint64_t key_buffers = 0;       // the double buffer: 2 x (chunk + 2 epsilon) keys
  std::uint64_t value_buffers = 0;     // pairs (sort_records): the values' double buffer, as the keys'
  std::uint64_t cub_temporary = 0;     // cub::DeviceRadixSort temporary storage, largest bucket sort
  std::uint64_t histograms = 0;        // block-local histograms (reused by every pass) and bucket tables
  [[nodiscard]] std::uint64_t total() const { return key_buffers + value_buffers + cub_temporary + histograms; }
};

struct InCorePlan {
  KeyType type = KeyType::u32;  // the keys' type; pairs: their radix bits' (pair_key_type())
  std::size_t value_bytes = 0;  // kPairValueBytes when the sorter carries records as pairs, else 0
  std::vector<int> gpus;
  std::uint64_t round_keys = 0;   // the most keys one sort() accepts
  std::uint64_t chunk_keys = 0;   // per GPU: ceil(round_keys / g)
  std::vector<GpuMemoryNeed> need;  // per selected GPU
};

// How many keys of `type` (with a value of `value_bytes` each: 0, or kPairValueBytes for pairs) fit
// on `gpus` within `gpu_memory_bytes` per GPU (default: each GPU's free memory minus a safety
// margin), and what each GPU then needs. Creates the devices' contexts but allocates nothing.
// Throws Error naming the GPU when even one key per GPU does not fit.
[[nodiscard]] InCorePlan plan_in_core(KeyType type, const std::vector<int>& gpus,
                                      std::optional<std::uint64_t> gpu_memory_bytes, std::size_t value_bytes = 0);

// The plan for exactly `round_keys` keys (it must fit the GPUs' memory as read now; Error otherwise).
[[nodiscard]] InCorePlan plan_in_core_for(KeyType type, const std::vector<int>& gpus, std::uint64_t round_keys,
                                          std::optional<std::uint64_t> gpu_memory_bytes,
                                          std::size_t value_bytes = 0);

// FITTED (plan_in_core's) for a round of `round_keys` <= its own: the needs grow with the round, so
// it fits wherever FITTED did. Reads no free memory: planning compares with one reading only, and
// memory taken by another process since is for the allocation to meet.
[[nodiscard]] InCorePlan shrink_in_core_plan(const InCorePlan& fitted, std::uint64_t round_keys);

// Per-GPU and per-phase times of one sort() (CUDA events), and what moved where.
struct InCoreStats {
  struct Gpu {
    int device = 0;
    double copy_in_ms = 0;
    std::vector<double> histogram_ms;  // one per pass (size == passes); the first pass counts beside
                                       // the copy in: there, the time after the copy's end
    std::vector<double> exchange_ms;   // one per pass: histogram done to scatter start (waiting for
                                       // every GPU's histogram, and the host planner)
    std::vector<double> scatter_ms;    // one per pass (~0 where every part fell in one digit)
    double swap_ms = 0;
    double sort_and_copy_back_ms = 0;  // bucket sorts overlapped with the copies back, from the end of
                                       // the GPU's sends (its first sorts start earlier, as keys arrive)
    double first_copy_back_ms = 0;     // from the swap's start to the end of the first bucket's copy
                                       // back: under swap_ms when the copies back begin during the swap
    std::uint64_t keys_received = 0;
    std::size_t bucket_sorts = 0;
  };
  std::vector<Gpu> gpus;
  int passes = 0;
  std::size_t buckets = 0;
  std::vector<std::vector<std::uint64_t>> bytes_between;  // [src][dst] swapped bytes (diagonal: local)
  std::vector<std::string> staged_pairs;  // GPU pairs without peer access, swapped through host memory
  double total_ms = 0;
};

class InCoreSorter {
 public:
  // Allocates every device and pinned buffer of `plan` (Error naming the GPU on failure) and enables
  // peer access between every pair of selected GPUs that supports it.
  explicit InCoreSorter(const InCorePlan& plan);
  ~InCoreSorter();
  InCoreSorter(const InCoreSorter&) = delete;
  InCoreSorter& operator=(const InCoreSorter&) = delete;

  [[nodiscard]] const InCorePlan& plan() const;

  // Sorts keys[0, count) of the plan's type in `order`, in place. `keys` is host memory; the sorter
  // page-locks it for the call unless its first byte is already page-locked (PinnedRegistration of
  // the whole buffer makes that free for buffers reused across rounds). A round smaller than the
  // plan is split into ceil(count / g)-key chunks. count > plan().round_keys throws Error. An empty
  // round reports passes 0, no per-pass times, and the devices. Synchronous.
  InCoreStats sort(std::byte* keys, std::uint64_t count, SortOrder order);

  // Sorts records[0, count) of `layout` in `order`, stably, in place, carrying each record as a
  // pair (core/record_pair.hpp: sorted_as_pairs(layout, positions != nullptr), and a plan with
  // kPairValueBytes values of type pair_key_type(layout)). With `positions` (bare keys), each
  // record's position in records[0, count) is written there in output order (host memory of
  // count u64; page-locked for full speed). Page-locking and limits as sort().
  InCoreStats sort_records(std::byte* records, std::uint64_t count, const RecordLayout& layout, SortOrder order,
                           std::uint64_t* positions = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Page-locks (cudaHostRegister) an existing host buffer for fast copies to and from every GPU, for
// as long as the returned handle lives.
class PinnedRegistration {
 public:
  PinnedRegistration() = default;
  // With a `device`, makes it the current device of the thread that registers, and of the one that
  // releases: a thread that has made no CUDA call would otherwise start GPU 0's context (memory on a
  // GPU the run may not use). Without, the current device's.
  PinnedRegistration(void* data, std::size_t bytes, int device = -1);
  ~PinnedRegistration();
  PinnedRegistration(PinnedRegistration&& other) noexcept;
  PinnedRegistration& operator=(PinnedRegistration&& other) noexcept;

 private:
  void* data_ = nullptr;
  int device_ = -1;
};

}  // namespace rmgsort
