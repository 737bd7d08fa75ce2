// The host-side brain of the in-core RMG sort (thesis §3.1-3.3): which buckets the GPUs must
// partition further, where every bucket goes in the one all-to-all key swap, and how each GPU then
// sorts its buckets. Pure host code: it sees only per-GPU histograms, never keys.
//
// Model. Keys are encoded radix bits (key_order.hpp) of `key_bits` bits. GPU i starts with a chunk
// of chunk_keys[i] keys. After each partitioning pass, every GPU holds its keys grouped by bucket,
// buckets in global order: GPU i's part of bucket b starts at the sum of its parts of the buckets
// before b. The striped order — by bucket, then by GPU — gives every key a global position; GPU j
// receives positions [boundary(j), boundary(j + 1)) in the swap.
//
// Boundaries. GPU j's ideal first position is the sum of the chunks before it. Each GPU's buffers
// have ε spare keys at both ends (ε = 0.5 % of the largest chunk), so a boundary may move to a
// bucket border within ε of it: a bucket that overflows a GPU by at most ε stays whole (it is
// left- or right-reducible). A bucket containing a boundary that cannot move is a spanning bucket
// and is partitioned by the next digit in the next pass. A spanning bucket whose bits are all
// consumed holds one value, so it is split exactly at the ideal boundary (a last-pass spanning
// bucket), which balances the load perfectly.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gpu/gpu_policy.hpp"

namespace rmgsort {

struct PlannerConfig {
  int key_bits = 32;  // 32 or 64
  // The rest default to the GPU policy's (gpu_policy.hpp says why each); tests vary them.
  int digit_bits = gpu_policy::kDigitBits;
  double epsilon_fraction = gpu_policy::kEpsilonFraction;  // ε, of the largest chunk
  // Neighbouring buckets of one pass smaller than this fraction of the largest chunk are fused.
  double small_bucket_fraction = gpu_policy::kSmallBucketFraction;
  // A GPU with more sort items than this sorts its whole chunk at once instead.
  std::size_t max_bucket_sorts = gpu_policy::kMaxBucketSorts;
  // The first pass runs even when nothing spans (one GPU): its buckets shorten the sorts' bit
  // ranges and let copy-back overlap sorting.
  bool always_first_pass = true;
};

// A part of one GPU's buffer: keys [offset, offset + keys).
struct GpuRange {
  std::uint64_t offset = 0;
  std::uint64_t keys = 0;
};

// What the GPUs partition in the next pass: one bucket, its part on every GPU, and the digit.
struct SpanningBucket {
  std::vector<GpuRange> on_gpu;  // indexed by GPU; keys == 0 where a GPU holds none of it
  int digit_shift = 0;           // digit = (radix >> digit_shift) & (2^digit_bits - 1)
};

// One copy of the swap: keys of `src_gpu` at src_offset go to `dst_gpu` at dst_offset.
struct KeyTransfer {
  int src_gpu = 0;
  int dst_gpu = 0;
  std::uint64_t src_offset = 0;
  std::uint64_t dst_offset = 0;
  std::uint64_t keys = 0;
};

// One sort on a GPU after the swap: keys [offset, offset + keys) by bits [0, end_bit).
// end_bit == 0: every bit was consumed by partitioning, the keys are only copied back.
struct BucketSort {
  std::uint64_t offset = 0;
  std::uint64_t keys = 0;
  int end_bit = 0;
};

// A round of n keys on `gpus` GPUs: ceil(n / gpus) keys each, the last GPUs fewer (or none when
// there are fewer keys than GPUs). The first entry is the largest.
[[nodiscard]] std::vector<std::uint64_t> equal_chunks(std::uint64_t n, std::size_t gpus);

class PartitionPlanner {
 public:
  PartitionPlanner(std::span<const std::uint64_t> chunk_keys, const PlannerConfig& config);

  [[nodiscard]] int gpus() const { return int(chunk_keys_.size()); }
  [[nodiscard]] std::uint64_t total_keys() const { return total_keys_; }
  [[nodiscard]] std::uint64_t epsilon_keys() const { return epsilon_; }
  // Keys every GPU's buffers must hold: the largest chunk plus ε at both ends.
  [[nodiscard]] std::uint64_t buffer_keys() const { return max_chunk_ + 2 * epsilon_; }
  // Passes done so far; no pass is ever needed beyond key_bits / digit_bits.
  [[nodiscard]] int passes_done() const { return passes_done_; }
  [[nodiscard]] std::size_t bucket_count() const { return buckets_.size(); }

  // The buckets to partition in the next pass (empty: partitioning is complete).
  [[nodiscard]] const std::vector<SpanningBucket>& spanning() const { return spanning_; }
  [[nodiscard]] bool done() const { return spanning_.empty(); }

  // Records the pass over spanning(): histograms[s * gpus() + gpu] holds 2^digit_bits counts of
  // spanning bucket s on that GPU. Each spanning bucket is replaced by its non-empty sub-buckets.
  // Throws Error if the counts do not add up to the bucket's part on each GPU.
  void refine(std::span<const std::vector<std::uint64_t>> histograms);

  // Where GPU j's received keys begin in the global order: boundaries()[j], j = 0..gpus().
  [[nodiscard]] const std::vector<std::uint64_t>& boundaries() const { return boundaries_; }
  // The swap, once done(): every key moves exactly once (also to its own GPU, out of place).
  [[nodiscard]] std::vector<KeyTransfer> swap_plan() const;
  // The sorts of GPU `gpu` after the swap, in key order, covering its received keys exactly.
  [[nodiscard]] std::vector<BucketSort> sort_plan(int gpu) const;

  // Upper bound on spanning buckets over all passes (thesis §3.2.4): (g - 1)(p - 1) + 1.
  [[nodiscard]] static std::size_t max_spanning_buckets(int gpus, int key_bits, int digit_bits);

 private:
  struct Bucket {
    std::uint64_t prefix = 0;  // the top `consumed_bits` radix bits shared by all its keys
    int consumed_bits = 0;
    std::uint64_t total = 0;
  };

  std::uint64_t count(std::size_t bucket, int gpu) const { return counts_[bucket * chunk_keys_.size() + std::size_t(gpu)]; }
  void place_boundaries();  // boundaries_ and spanning_ from buckets_

  PlannerConfig config_;
  std::vector<std::uint64_t> chunk_keys_;
  std::uint64_t total_keys_ = 0;
  std::uint64_t max_chunk_ = 0;
  std::uint64_t epsilon_ = 0;
  int passes_done_ = 0;
  std::vector<Bucket> buckets_;        // in global order
  std::vector<std::uint64_t> counts_;  // bucket-major: counts_[b * gpus + gpu]
  std::vector<std::size_t> spanning_buckets_;  // indices into buckets_, ascending
  std::vector<SpanningBucket> spanning_;
  std::vector<std::uint64_t> boundaries_;
};

}  // namespace rmgsort
