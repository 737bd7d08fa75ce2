// Launch geometry of the partitioning kernels, in one place (printed in --stats). Host and device.
#pragma once

#include <cstdint>

namespace rmgsort::kernel_policy {

inline constexpr int kDigitBits = 8;
inline constexpr int kDigits = 1 << kDigitBits;
// 256 threads: one per digit for the block histogram's write-out.
inline constexpr int kThreadsPerBlock = 256;
// Keys per thread: 16 (32-bit) / 8 (64-bit): 16 KiB of keys per block, so a chunk of 10^9 u32
// keys makes ~61 000 blocks whose histograms (256 x 4 B each) take 62 MB.
template <int kKeyBytes>
inline constexpr int kKeysPerThread = kKeyBytes == 4 ? 16 : 8;
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
