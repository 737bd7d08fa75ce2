// The GPU sort's tuning, in one place: the partitioning kernels' geometry, the planner's ε, the
// bucket-sort limits and streams. PlannerConfig takes its defaults from here, the memory plan its
// largest chunk, --stats its "policy" object. Plain constants: host and device code both read them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rmgsort::gpu_policy {

// 8-bit digits: 256 buckets per pass, one per thread of a block, and at most 4 (32-bit) or 8
// (64-bit) passes.
inline constexpr int kDigitBits = 8;
inline constexpr int kDigits = 1 << kDigitBits;
// 256 threads: one per digit for the block histogram's write-out.
inline constexpr int kThreadsPerBlock = 256;
// Keys per thread: 32 (32-bit) / 16 (64-bit): 32 KiB of keys per block, the scatter's shared tile,
// so that each digit's run in a block averages 32 keys and the write-back coalesces. A chunk of
// 10^9 u32 keys makes ~30 500 blocks, whose histograms (256 x 4 B each) take 31 MB.
// (16/8 keys per thread: scatter of 10^9 u32 keys per GPU took 17.1 ms on an H200.)
template <int kKeyBytes>
inline constexpr int kKeysPerThread = kKeyBytes == 4 ? 32 : 16;
template <int kKeyBytes>
inline constexpr int kKeysPerBlock = kThreadsPerBlock * kKeysPerThread<kKeyBytes>;

// Keys of `key_bytes` bytes per block, and the blocks that cover `keys` of them.
constexpr std::uint64_t keys_per_block(int key_bytes) { return key_bytes == 4 ? kKeysPerBlock<4> : kKeysPerBlock<8>; }
constexpr std::uint64_t blocks_for(std::uint64_t keys, int key_bytes) {
  const std::uint64_t per_block = keys_per_block(key_bytes);
  return (keys + per_block - 1) / per_block;
}

// The copy in goes in at most kCopyInPieces pieces of at least kMinCopyInPieceBytes of keys
// (gpu/copy_in_pieces.hpp), and the first pass counts each piece's block histograms once it has
// arrived, while the next one copies: only the last piece's count is left after the copy. 4e9 u32
// and 2e9 u64 keys on one H200: 4.6 ms of histograms after a ~295 ms copy in, 0.88 ms in 8 pieces
// (bench_results/2026-11-25-in-core-histogram-beside-copy-in-h200.md). Records carried as pairs
// split each piece as it arrives: 10^9 (u64, u64) records, copy in and split 299-301 -> 291 ms,
// histogram 2.3 -> 0.45 ms (2026-11-25-records-pairs-split-in-pieces-h200.md).
inline constexpr std::uint64_t kCopyInPieces = 8;
inline constexpr std::uint64_t kMinCopyInPieceBytes = std::uint64_t{64} << 20;

// Per-GPU chunks stay below 2^32 keys so that every count and offset inside a pass fits 32 bits.
inline constexpr std::uint64_t kMaxChunkKeys = (std::uint64_t{1} << 32) - 1;

// ε, the spare keys at both ends of each GPU's buffers, as a fraction of the largest chunk:
// 1/200 = 0.5 % (thesis §4.2: best measured; uniform keys then need one pass). Kept as the
// reciprocal so that the largest chunk below is exact integer arithmetic.
inline constexpr std::uint64_t kEpsilonReciprocal = 200;
inline constexpr double kEpsilonFraction = 1.0 / double(kEpsilonReciprocal);
static_assert(kEpsilonReciprocal % 2 == 0, "the buffer's 2 ε is a whole fraction of the chunk");

// The largest chunk whose buffer, chunk + 2 ε = chunk x (R/2 + 1) / (R/2) for ε = 1/R, stays within
// kMaxChunkKeys.
inline constexpr std::uint64_t kMaxPlannedChunk =
    kMaxChunkKeys / (kEpsilonReciprocal / 2 + 1) * (kEpsilonReciprocal / 2);

// Neighbouring buckets of one pass smaller than this fraction of the largest chunk are fused into
// one sort (thesis: SBT = 1 %).
inline constexpr double kSmallBucketFraction = 0.01;
// A GPU with more sort items than this sorts its whole chunk at once instead (thesis: MAX_BRS).
inline constexpr std::size_t kMaxBucketSorts = 128;
// The concurrent bucket-sort streams per GPU (thesis §4.4: up to two buckets sorted at once), so
// that a small bucket's sort does not leave the GPU idle; the copies back have a stream of their own.
inline constexpr int kSortStreams = 2;

}  // namespace rmgsort::gpu_policy
