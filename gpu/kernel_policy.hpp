// Launch geometry of the partitioning kernels, in one place (printed in --stats). Host and device.
#pragma once

#include <cstdint>

namespace rmgsort::kernel_policy {

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

// Blocks that cover `keys` keys of `key_bytes` bytes.
constexpr std::uint64_t blocks_for(std::uint64_t keys, int key_bytes) {
  const std::uint64_t per_block = key_bytes == 4 ? kKeysPerBlock<4> : kKeysPerBlock<8>;
  return (keys + per_block - 1) / per_block;
}

// Per-GPU chunks stay below 2^32 keys so that every count and offset inside a pass fits 32 bits.
inline constexpr std::uint64_t kMaxChunkKeys = (std::uint64_t{1} << 32) - 1;

}  // namespace rmgsort::kernel_policy
