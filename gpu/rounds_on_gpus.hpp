// Keys (or records carried as pairs) larger than the GPUs' memory, sorted from host memory to host
// memory by the GPUs alone, in two trips over PCIe and no pass of the CPU over them:
//   1. Partition. The records go through the GPUs in chunks (each GPU takes every G-th chunk); a
//      chunk's keys are encoded (core/key_order.hpp; records are split into pairs), the chunk is
//      sorted stably by its top 16 radix bits (two CUB passes) and copied back, as it came, to its
//      place in `scratch`, with where each of its top digits starts (gpu/digit_starts_kernel.cuh).
//   2. Rounds. Consecutive top digits are packed into value-disjoint rounds (gpu/digit_rounds.hpp);
//      round r gathers its digits' piece of every chunk from `scratch` (one copy per chunk), is
//      sorted stably by CUB on the GPU that takes it (every G-th round: rounds need no exchange
//      between GPUs), decoded and copied to its sorted place in `records`. Pieces are gathered in
//      chunk order, so equal keys keep their input order. A digit holding more records than a
//      round is gathered to its place and partitioned again by the next 16 bits, the same two trips
//      over its part of the records and the scratch (down to the last bits: one key value, left in
//      input order).
// Each GPU works through its chunks, then its rounds, with two buffer pairs in turn on three streams
// (copy in, sort, copy back): one job's copy back runs beside the next one's copy in, as PCIe is full
// duplex, and the sorts run beside both. Each trip moves every byte in and out once; there is no
// page-locking in it, so the keys and the scratch should be page-locked by the caller (copies from
// pageable memory are staged by the CUDA driver at a fraction of the link's rate).
//
// Host memory beside the records and the scratch: kRoundDigits + 1 u64 digit starts per chunk of
// the first trip (512 KiB each, page-locked), and one copy per chunk for each round of the second.
//
// rmgsort sort does not run it: from a file, the page-locking of both buffers (~23 GB/s, released at
// ~35-55 GB/s on H200 hosts) costs more than the CPU partition it would save, which page-locks one
// buffer beside its own work. It is for callers whose memory stays page-locked between sorts.
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
#include <vector>

#include "core/key_order.hpp"
#include "core/key_type.hpp"
#include "core/record_layout.hpp"

namespace rmgsort {

// What a sort on the GPUs took: the first trip (partition) and the second (rounds, heavy rounds
// partitioned again included), in seconds, and how many chunks (of the first level) and rounds (of
// every level) there were.
struct RoundsOnGpusReport {
  double partition_seconds = 0;
  double rounds_seconds = 0;
  std::uint64_t chunks = 0;
  std::uint64_t rounds = 0;
  std::uint64_t largest_round = 0;
  std::uint64_t heavy_rounds = 0;  // rounds of one digit heavier than a round, partitioned again
  int levels = 0;                  // digits partitioned by, at the deepest (1 unless a round was heavy)
};

class RoundsOnGpus {
 public:
  // What it sorts: bare number keys, and records carried as pairs (core/record_pair.hpp: a key and
  // up to 8 more bytes, moved with the key by a stable sort), as the in-core sort does.
  [[nodiscard]] static bool sorts(const RecordLayout& layout);
  // Device memory each GPU needs for rounds of up to `round_keys` records of `layout`: two slots of
  // key (and value) buffer pairs, CUB's temporary storage, two arrays of digit starts. Asks CUB on
  // the current device.
  [[nodiscard]] static std::uint64_t device_bytes(std::uint64_t round_keys, const RecordLayout& layout);
  // The most records a round may hold within `bytes` per GPU (0 when not even one fits).
  [[nodiscard]] static std::uint64_t round_keys_within(std::uint64_t bytes, const RecordLayout& layout);

  // Allocates device_bytes(round_keys, layout) on every GPU of `gpus` (sorts(layout); round_keys >=
  // 1). Throws rmgsort::Error naming the GPU when one has not the memory.
  RoundsOnGpus(const std::vector<int>& gpus, const RecordLayout& layout, std::uint64_t round_keys);
  ~RoundsOnGpus();
  RoundsOnGpus(const RoundsOnGpus&) = delete;
  RoundsOnGpus& operator=(const RoundsOnGpus&) = delete;

  [[nodiscard]] std::uint64_t round_keys() const { return round_keys_; }
  [[nodiscard]] const RecordLayout& layout() const { return layout_; }

  // Called on sort()'s thread, in order, once records [first, first + count) are sorted and final.
  using RoundSorted = std::function<void(std::uint64_t first, std::uint64_t count)>;

  // Sorts records[0, count) (host memory, of the layout) stably in `order` in place, through
  // scratch (count records' bytes of host memory not overlapping them); `sorted`, when given, hears
  // of each round as it lands. One sort at a time. Synchronous. What fails (a CUDA call, `sorted`)
  // is thrown once no GPU touches the host memory any more.
  RoundsOnGpusReport sort(std::byte* records, std::byte* scratch, std::uint64_t count, SortOrder order,
                          const RoundSorted& sorted = {});

  // One GPU's buffers, streams and events (gpu/rounds_on_gpus_lane.cuh).
  struct Lane;

 private:
  // The two trips over records[0, count), whose keys share every bit above bit shift + 16: the
  // partition by bits [shift, shift + 16), the rounds, and each heavy round again by the next digit.
  // `sorted` hears of rounds at first_record + their place.
  template <class Items>
  RoundsOnGpusReport trips(const Items& items, std::byte* records, std::byte* scratch, std::uint64_t count,
                           int shift, std::uint64_t first_record, const RoundSorted& sorted);
  void drain() noexcept;

  RecordLayout layout_;
  std::uint64_t round_keys_;
  std::vector<std::unique_ptr<Lane>> lanes_;
};

}  // namespace rmgsort
