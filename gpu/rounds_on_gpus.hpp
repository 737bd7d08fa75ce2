// Keys larger than the GPUs' memory, sorted from host memory to host memory by the GPUs alone, in
// two trips over PCIe and no pass of the CPU over the keys:
//   1. Partition. The keys go through the GPUs in chunks (each GPU takes every G-th chunk); a chunk is
//      encoded (core/key_order.hpp), sorted by its top 16 radix bits (two CUB passes) and copied back
//      to its place in `scratch`, with where each of its top digits starts (gpu/digit_starts_kernel.cuh).
//   2. Rounds. Consecutive top digits are packed into value-disjoint rounds (gpu/digit_rounds.hpp);
//      round r gathers its digits' piece of every chunk from `scratch` (one copy per chunk), is
//      sorted by CUB on the GPU that takes it (every G-th round: rounds need no exchange between
//      GPUs), decoded and copied to its sorted place in `keys`.
// Each GPU works through its chunks, then its rounds, with two buffer pairs in turn on three streams
// (copy in, sort, copy back): one job's copy back runs beside the next one's copy in, as PCIe is full
// duplex, and the sorts run beside both. Each trip moves every byte in and out once; there is no
// page-locking in it, so the keys and the scratch should be page-locked by the caller (copies from
// pageable memory are staged by the CUDA driver at a fraction of the link's rate).
//
// Why: the CPU partition of the rounds path (host/round_partition.hpp) reads the keys twice and
// writes them once at the host's copy rate, and the rounds' copies wait for it. On 2 H200s, 64 GB
// of u64 page-locked in advance took 1.84 s here (34.8 GB/s; each trip within 1.13x of PCIe's rate
// in both directions at once) against 6.50 s for the CPU partition's pipeline in the same run
// (bench_results/2026-11-28-rounds-on-gpus-h200x2.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/key_order.hpp"
#include "core/key_type.hpp"

namespace rmgsort {

// What a sort on the GPUs took: the first trip (partition) and the second (rounds), in seconds, and
// how many chunks and rounds each had.
struct RoundsOnGpusReport {
  double partition_seconds = 0;
  double rounds_seconds = 0;
  std::uint64_t chunks = 0;
  std::uint64_t rounds = 0;
  std::uint64_t largest_round = 0;
};

class RoundsOnGpus {
 public:
  // Device memory each GPU needs for rounds of up to `round_keys` keys of `width` bytes (4 or 8):
  // two pairs of key buffers, CUB's temporary storage, two arrays of digit starts. Asks CUB on the
  // current device.
  [[nodiscard]] static std::uint64_t device_bytes(std::uint64_t round_keys, std::size_t width);
  // The most keys a round may hold within `bytes` per GPU (0 when not even one key fits).
  [[nodiscard]] static std::uint64_t round_keys_within(std::uint64_t bytes, std::size_t width);

  // Allocates device_bytes(round_keys, width of `type`) on every GPU of `gpus` (a number key type;
  // round_keys >= 1). Throws rmgsort::Error naming the GPU when one has not the memory.
  RoundsOnGpus(const std::vector<int>& gpus, KeyType type, std::uint64_t round_keys);
  ~RoundsOnGpus();
  RoundsOnGpus(const RoundsOnGpus&) = delete;
  RoundsOnGpus& operator=(const RoundsOnGpus&) = delete;

  [[nodiscard]] std::uint64_t round_keys() const { return round_keys_; }

  // Called on sort()'s thread, in order, once keys [first, first + count) are sorted and final.
  using RoundSorted = std::function<void(std::uint64_t first, std::uint64_t count)>;

  // Sorts keys[0, count) (host memory) in `order` in place, through scratch (count keys' bytes of
  // host memory not overlapping them); `sorted`, when given, hears of each round as it lands.
  // Returns nullopt, with `keys` untouched (and `scratch` overwritten), when one top digit holds more
  // keys than a round: the caller sorts those keys another way. Synchronous. What fails (a CUDA
  // call, `sorted`) is thrown once no GPU touches the host memory any more.
  std::optional<RoundsOnGpusReport> sort(std::byte* keys, std::byte* scratch, std::uint64_t count, SortOrder order,
                                         const RoundSorted& sorted = {});

 private:
  struct Lane;
  template <class T>
  RoundsOnGpusReport sort_as(std::byte* keys, std::byte* scratch, std::uint64_t count, SortOrder order,
                             const RoundSorted& sorted, bool& planned);
  void drain() noexcept;

  KeyType type_;
  std::uint64_t round_keys_;
  std::vector<std::unique_ptr<Lane>> lanes_;
};

}  // namespace rmgsort
