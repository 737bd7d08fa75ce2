#include "gpu/partition_kernels.cuh"

#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>

#include "core/error.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/gpu_policy.hpp"

namespace rmgsort {
namespace {

using namespace gpu_policy;

template <class Bits>
__device__ unsigned digit_of(Bits key, int shift) {
  return unsigned(key >> shift) & unsigned(kDigits - 1);
}

// Encodings the kernels are instantiated with: none (keys already encoded), or KeyOrder's.
template <class Bits>
struct AlreadyEncoded {
  __device__ static Bits apply(Bits key) { return key; }
};
template <class T, SortOrder kOrder>
struct EncodeRaw {
  __device__ static RadixBits<T> apply(RadixBits<T> raw) { return KeyOrder<T, kOrder>::encode(__builtin_bit_cast(T, raw)); }
};

// A thread's count of the digit it saw last, added to the shared histogram once per run. Skew
// (thesis §4.1): all-equal digits cost one shared atomic per thread instead of one per key.
struct DigitRun {
  unsigned digit = kDigits;  // none yet
  std::uint32_t length = 0;
  __device__ void add(unsigned d, std::uint32_t* histogram) {
    if (d == digit) {
      ++length;
    } else {
      if (length > 0) atomicAdd(&histogram[digit], length);
      digit = d;
      length = 1;
    }
  }
  __device__ void flush(std::uint32_t* histogram) const {
    if (length > 0) atomicAdd(&histogram[digit], length);
  }
};

// Block b (first_block + blockIdx.x, of total_blocks over keys[0, count)) counts keys
// [b * kKeysPerBlock, (b + 1) * kKeysPerBlock), the same tiles the scatter moves. A full tile whose
// start is 16-byte aligned (every tile of a whole-chunk pass, whether counted at once or piece by
// piece as the copy in arrives) is read with 16-byte vector loads, all issued before any key is
// counted: with scalar loads interleaved with the atomics the kernel took 2.0 ms for 10^9 u32 keys
// on an H200, about twice the time of reading them. Other tiles (the last, or parts of later
// passes) read one key per load.
template <class Bits, class Encoding>
__global__ void __launch_bounds__(kThreadsPerBlock)
    block_histograms_kernel(const Bits* keys, std::uint32_t count, int shift, std::uint32_t* block_counts,
                            std::uint32_t first_block, std::uint32_t total_blocks) {
  constexpr int kPerThread = kKeysPerThread<sizeof(Bits)>;
  constexpr int kTile = kKeysPerBlock<sizeof(Bits)>;
  __shared__ std::uint32_t histogram[kDigits];
  histogram[threadIdx.x] = 0;
  __syncthreads();
  const std::uint32_t block = first_block + blockIdx.x;
  const std::uint64_t first = std::uint64_t(block) * kTile;
  const bool full_tile = first + kTile <= count;
  const bool aligned = reinterpret_cast<std::uintptr_t>(keys) % sizeof(uint4) == 0;
  DigitRun run;
  if (full_tile && aligned) {
    constexpr int kPerVector = int(sizeof(uint4) / sizeof(Bits));
    constexpr int kVectors = kPerThread / kPerVector;
    const auto* vectors = reinterpret_cast<const uint4*>(keys + first);
    uint4 loaded[kVectors];
#pragma unroll
    for (int j = 0; j < kVectors; ++j) loaded[j] = vectors[threadIdx.x + j * kThreadsPerBlock];
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      Bits lane_keys[kPerVector];
      memcpy(lane_keys, &loaded[j], sizeof(uint4));
#pragma unroll
      for (int k = 0; k < kPerVector; ++k) run.add(digit_of(Encoding::apply(lane_keys[k]), shift), histogram);
    }
  } else {
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const std::uint64_t i = first + threadIdx.x + std::uint64_t(j) * kThreadsPerBlock;
      if (i < count) run.add(digit_of(Encoding::apply(keys[i]), shift), histogram);
    }
  }
  run.flush(histogram);
  __syncthreads();
  block_counts[std::uint64_t(threadIdx.x) * total_blocks + block] = histogram[threadIdx.x];
}

// Each digit's first position in the block's tile and in `out`, from the scanned block histograms
// (shared by both scatters): the exclusive scan runs digit-major over all blocks, so this block's
// keys of this digit end where the next entry begins — (digit, block + 1), or (digit + 1, 0) after
// the last block — and the very last entry's keys end at `count`.
template <class BlockScan>
__device__ void digit_starts(const std::uint32_t* block_offsets, std::uint32_t count,
                             typename BlockScan::TempStorage& scan_storage, std::uint32_t* block_start,
                             std::uint32_t* global_start) {
  const unsigned digit_of_thread = threadIdx.x;
  const std::uint64_t at = std::uint64_t(digit_of_thread) * gridDim.x + blockIdx.x;
  const std::uint32_t begin = block_offsets[at];
  const std::uint64_t entries = std::uint64_t(kDigits) * gridDim.x;
  const std::uint32_t end = at + 1 < entries ? block_offsets[at + 1] : count;
  std::uint32_t start = 0;
  BlockScan(scan_storage).ExclusiveSum(end - begin, start);
  block_start[digit_of_thread] = start;
  global_start[digit_of_thread] = begin;
}

// Rank of this lane's key among the keys of its digit in the block. A warp whose lanes all hold
// one digit (skewed data) claims its 32 positions with one shared atomic; otherwise each lane
// claims its own (uniform data rarely collides). __match_any_sync per key cost more than it saved.
__device__ std::uint32_t claim_rank(std::uint32_t* counter_of_digit, unsigned digit) {
  const unsigned active = __activemask();
  const unsigned lane = threadIdx.x & 31u;
  const int leader = __ffs(active) - 1;
  const unsigned leader_digit = __shfl_sync(active, digit, leader);
  if (__all_sync(active, digit == leader_digit)) {
    std::uint32_t base = 0;
    if (int(lane) == leader) base = atomicAdd(counter_of_digit, std::uint32_t(__popc(active)));
    base = __shfl_sync(active, base, leader);
    return base + std::uint32_t(__popc(active & ((1u << lane) - 1u)));
  }
  return atomicAdd(counter_of_digit, 1u);
}

// Pre-scatter in shared memory, then write-back by digit runs (thesis §4.2): keys are placed in a
// shared tile grouped by digit, and the tile is written out so that consecutive threads write
// consecutive positions of one digit's run (coalesced). The block's count of each digit is the
// difference of neighbouring scanned offsets, so the tile's digit starts are known before any key
// is read and each key goes to the tile as soon as it is ranked: keys are not held in registers
// (holding all 32 took 119 registers a thread, 2 blocks per SM, 9.5 ms for 10^9 u32 keys).
template <class Bits, class Encoding>
__global__ void __launch_bounds__(kThreadsPerBlock)
    scatter_kernel(const Bits* keys, std::uint32_t count, int shift, const std::uint32_t* block_offsets, Bits* out) {
  constexpr int kPerThread = kKeysPerThread<sizeof(Bits)>;
  constexpr int kTile = kKeysPerBlock<sizeof(Bits)>;
  constexpr int kBatch = 8;  // keys loaded together: loads in flight without many registers
  static_assert(kPerThread % kBatch == 0);
  using BlockScan = cub::BlockScan<std::uint32_t, kThreadsPerBlock>;
  __shared__ Bits tile[kTile];
  __shared__ std::uint32_t next_in_tile[kDigits];  // the next free tile position of each digit
  __shared__ std::uint32_t block_start[kDigits];   // each digit's first tile position
  __shared__ std::uint32_t global_start[kDigits];  // each digit's first position in `out`
  __shared__ typename BlockScan::TempStorage scan_storage;

  digit_starts<BlockScan>(block_offsets, count, scan_storage, block_start, global_start);
  next_in_tile[threadIdx.x] = block_start[threadIdx.x];
  __syncthreads();

  const std::uint64_t first = std::uint64_t(blockIdx.x) * kTile;
  const std::uint64_t remaining = std::uint64_t(count) - first;
  const std::uint32_t valid = remaining < std::uint64_t(kTile) ? std::uint32_t(remaining) : std::uint32_t(kTile);
  const auto place = [&](Bits key) {
    const unsigned digit = digit_of(key, shift);
    tile[claim_rank(&next_in_tile[digit], digit)] = key;
  };
  if (valid == std::uint32_t(kTile) && reinterpret_cast<std::uintptr_t>(keys) % sizeof(uint4) == 0) {
    // A full, aligned tile (as in the histogram): 16-byte loads, kBatch keys in flight per thread.
    constexpr int kPerVector = int(sizeof(uint4) / sizeof(Bits));
    constexpr int kBatchVectors = kBatch / kPerVector;
    const auto* vectors = reinterpret_cast<const uint4*>(keys + first);
#pragma unroll 1
    for (int batch = 0; batch < kPerThread / kPerVector; batch += kBatchVectors) {
      uint4 loaded[kBatchVectors];
#pragma unroll
      for (int j = 0; j < kBatchVectors; ++j) loaded[j] = vectors[threadIdx.x + (batch + j) * kThreadsPerBlock];
#pragma unroll
      for (int j = 0; j < kBatchVectors; ++j) {
        Bits lane_keys[kPerVector];
        memcpy(lane_keys, &loaded[j], sizeof(uint4));
#pragma unroll
        for (int k = 0; k < kPerVector; ++k) place(Encoding::apply(lane_keys[k]));
      }
    }
  } else {
#pragma unroll 1
    for (int batch = 0; batch < kPerThread; batch += kBatch) {
      Bits key[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const std::uint32_t local = threadIdx.x + std::uint32_t(batch + j) * kThreadsPerBlock;
        if (local < valid) key[j] = Encoding::apply(keys[first + local]);
      }
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const std::uint32_t local = threadIdx.x + std::uint32_t(batch + j) * kThreadsPerBlock;
        if (local < valid) place(key[j]);
      }
    }
  }
  __syncthreads();
  for (std::uint32_t position = threadIdx.x; position < valid; position += kThreadsPerBlock) {
    const Bits k = tile[position];
    const unsigned digit = digit_of(k, shift);
    out[global_start[digit] + (position - block_start[digit])] = k;
  }
}

// The scatter of pairs: keys (already encoded) and their u64 values, stably: the keys of one digit
// leave a block in the order they came. CUB's match-based block rank (the one its onesweep sort
// uses) ranks a tile held warp-striped, each warp a contiguous run, so ranks follow input order;
// keys and values then go to shared tiles at their ranks and are written back by digit runs, as in
// scatter_kernel. The tiles (keys, then the values of 1/kValueParts of the tile at a time) are
// dynamic shared memory, pair_tile_bytes(): a GPU whose blocks may not take the whole value tile
// (compute capability 8.6, 8.9 and 12.x allow 99 KiB; u32 pairs need 96 KiB + the static part)
// stages the values in two halves, the block's keys staying in place.
template <class Bits, int kValueParts>
__global__ void __launch_bounds__(kThreadsPerBlock)
    scatter_pairs_kernel(const Bits* keys, const std::uint64_t* values, std::uint32_t count, int shift,
                         const std::uint32_t* block_offsets, Bits* out_keys, std::uint64_t* out_values) {
  constexpr int kPerThread = kKeysPerThread<sizeof(Bits)>;
  constexpr int kTile = kKeysPerBlock<sizeof(Bits)>;
  constexpr int kPart = kTile / kValueParts;
  static_assert(kTile % kValueParts == 0);
  using BlockScan = cub::BlockScan<std::uint32_t, kThreadsPerBlock>;
  using BlockRank = cub::BlockRadixRankMatch<kThreadsPerBlock, kDigitBits, false>;
  extern __shared__ std::uint64_t pair_tiles[];
  auto* value_tile = pair_tiles;
  auto* key_tile = reinterpret_cast<Bits*>(pair_tiles + kPart);
  __shared__ std::uint32_t block_start[kDigits];
  __shared__ std::uint32_t global_start[kDigits];
  __shared__ union {
    typename BlockScan::TempStorage scan;
    typename BlockRank::TempStorage rank;
  } storage;

  digit_starts<BlockScan>(block_offsets, count, storage.scan, block_start, global_start);
  __syncthreads();

  const std::uint64_t first = std::uint64_t(blockIdx.x) * kTile;
  const std::uint64_t remaining = std::uint64_t(count) - first;
  const std::uint32_t valid = remaining < std::uint64_t(kTile) ? std::uint32_t(remaining) : std::uint32_t(kTile);
  // Keys past the end read as all ones: the last digit, ranked after every real key (stable), so
  // their ranks are >= valid.
  Bits key[kPerThread];
  cub::LoadDirectWarpStriped(int(threadIdx.x), keys + first, key, int(valid), ~Bits(0));
  int rank[kPerThread];
  BlockRank(storage.rank).RankKeys(key, rank, cub::ShiftDigitExtractor<Bits>(std::uint32_t(shift), kDigitBits));
#pragma unroll
  for (int j = 0; j < kPerThread; ++j)
    if (rank[j] < int(valid)) key_tile[rank[j]] = key[j];
  std::uint64_t value[kPerThread];
  cub::LoadDirectWarpStriped(int(threadIdx.x), values + first, value, int(valid));
#pragma unroll
  for (int part = 0; part < kValueParts; ++part) {
    const int low = part * kPart;
#pragma unroll
    for (int j = 0; j < kPerThread; ++j)
      if (rank[j] >= low && rank[j] < low + kPart && rank[j] < int(valid)) value_tile[rank[j] - low] = value[j];
    __syncthreads();
    const std::uint32_t end = valid < std::uint32_t(low + kPart) ? valid : std::uint32_t(low + kPart);
    for (std::uint32_t position = std::uint32_t(low) + threadIdx.x; position < end; position += kThreadsPerBlock) {
      const Bits k = key_tile[position];
      const unsigned digit = digit_of(k, shift);
      const std::uint32_t to = global_start[digit] + (position - block_start[digit]);
      out_keys[to] = k;
      out_values[to] = value_tile[position - std::uint32_t(low)];
    }
    if (part + 1 < kValueParts) __syncthreads();  // the next part's values overwrite this part's
  }
}

template <class Bits, int kValueParts>
constexpr std::size_t pair_tile_bytes() {
  return std::size_t(kKeysPerBlock<sizeof(Bits)>) * sizeof(Bits) +
         std::size_t(kKeysPerBlock<sizeof(Bits)>) / kValueParts * sizeof(std::uint64_t);
}

// The most shared memory a block of the current device may opt in to.
int max_block_shared_memory() {
  int device = 0;
  RMGSORT_CUDA_TRY(cudaGetDevice(&device));
  int bytes = 0;
  RMGSORT_CUDA_TRY(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return bytes;
}

template <class Bits, int kValueParts>
void launch_scatter_pairs(unsigned blocks, const Bits* keys, const std::uint64_t* values, std::uint32_t count,
                          int shift, const std::uint32_t* block_offsets, Bits* out_keys, std::uint64_t* out_values,
                          cudaStream_t stream) {
  constexpr std::size_t kTileBytes = pair_tile_bytes<Bits, kValueParts>();
  // Above the 48 KiB a kernel gets unasked; set once per device and kernel, cheap to repeat.
  RMGSORT_CUDA_TRY(cudaFuncSetAttribute(scatter_pairs_kernel<Bits, kValueParts>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, int(kTileBytes)));
  scatter_pairs_kernel<Bits, kValueParts><<<blocks, kThreadsPerBlock, kTileBytes, stream>>>(
      keys, values, count, shift, block_offsets, out_keys, out_values);
}

}  // namespace

// Calls launch(Encoding{}) with the kernels' encoding for `input`.
template <class T, class Launch>
void with_encoding(KeyInput input, Launch&& launch) {
  switch (input) {
    case KeyInput::encoded: return launch(AlreadyEncoded<RadixBits<T>>{});
    case KeyInput::raw_ascending: return launch(EncodeRaw<T, SortOrder::ascending>{});
    case KeyInput::raw_descending: return launch(EncodeRaw<T, SortOrder::descending>{});
  }
}

template <class T>
void block_histograms_of_blocks_async(const RadixBits<T>* keys, std::uint32_t count, int shift, KeyInput input,
                                      std::uint32_t* block_counts, std::uint32_t first_block, std::uint32_t blocks,
                                      cudaStream_t stream) {
  using Bits = RadixBits<T>;
  const auto total_blocks = std::uint32_t(blocks_for(count, sizeof(Bits)));
  RMGSORT_EXPECTS(std::uint64_t(first_block) + blocks <= total_blocks, "histograms of blocks the keys have");
  if (blocks == 0) return;
  with_encoding<T>(input, [&]<class Encoding>(Encoding) {
    block_histograms_kernel<Bits, Encoding>
        <<<blocks, kThreadsPerBlock, 0, stream>>>(keys, count, shift, block_counts, first_block, total_blocks);
  });
  RMGSORT_CUDA_CHECK_LAUNCH(stream);
}

template <class T>
void block_histograms_async(const RadixBits<T>* keys, std::uint32_t count, int shift, KeyInput input,
                            std::uint32_t* block_counts, cudaStream_t stream) {
  const auto blocks = std::uint32_t(blocks_for(count, sizeof(RadixBits<T>)));
  block_histograms_of_blocks_async<T>(keys, count, shift, input, block_counts, 0, blocks, stream);
}

template <class T>
void scatter_async(const RadixBits<T>* keys, std::uint32_t count, int shift, KeyInput input,
                   const std::uint32_t* block_offsets, RadixBits<T>* out, cudaStream_t stream) {
  using Bits = RadixBits<T>;
  const auto blocks = unsigned(blocks_for(count, sizeof(Bits)));
  if (blocks == 0) return;
  with_encoding<T>(input, [&]<class Encoding>(Encoding) {
    scatter_kernel<Bits, Encoding><<<blocks, kThreadsPerBlock, 0, stream>>>(keys, count, shift, block_offsets, out);
  });
  RMGSORT_CUDA_CHECK_LAUNCH(stream);
}

template <class Bits>
void scatter_pairs_async(const Bits* keys, const std::uint64_t* values, std::uint32_t count, int shift,
                         const std::uint32_t* block_offsets, Bits* out_keys, std::uint64_t* out_values,
                         cudaStream_t stream, int value_parts) {
  RMGSORT_EXPECTS(value_parts >= 0 && value_parts <= 2, "a pair scatter stages its values whole or in halves");
  const auto blocks = unsigned(blocks_for(count, sizeof(Bits)));
  if (blocks == 0) return;
  if (value_parts == 0) {
    cudaFuncAttributes whole{};
    RMGSORT_CUDA_TRY(cudaFuncGetAttributes(&whole, scatter_pairs_kernel<Bits, 1>));
    const bool fits = whole.sharedSizeBytes + pair_tile_bytes<Bits, 1>() <= std::size_t(max_block_shared_memory());
    value_parts = fits ? 1 : 2;
  }
  if (value_parts == 1)
    launch_scatter_pairs<Bits, 1>(blocks, keys, values, count, shift, block_offsets, out_keys, out_values, stream);
  else
    launch_scatter_pairs<Bits, 2>(blocks, keys, values, count, shift, block_offsets, out_keys, out_values, stream);
  RMGSORT_CUDA_CHECK_LAUNCH(stream);
}
template void scatter_pairs_async<std::uint32_t>(const std::uint32_t*, const std::uint64_t*, std::uint32_t, int,
                                                 const std::uint32_t*, std::uint32_t*, std::uint64_t*, cudaStream_t,
                                                 int);
template void scatter_pairs_async<std::uint64_t>(const std::uint64_t*, const std::uint64_t*, std::uint32_t, int,
                                                 const std::uint32_t*, std::uint64_t*, std::uint64_t*, cudaStream_t,
                                                 int);

#define RMGSORT_INSTANTIATE_PARTITION_KERNELS(T)                                                                  \
  template void block_histograms_async<T>(const RadixBits<T>*, std::uint32_t, int, KeyInput, std::uint32_t*, \
                                          cudaStream_t);                                                    \
  template void block_histograms_of_blocks_async<T>(const RadixBits<T>*, std::uint32_t, int, KeyInput,      \
                                                    std::uint32_t*, std::uint32_t, std::uint32_t, cudaStream_t); \
  template void scatter_async<T>(const RadixBits<T>*, std::uint32_t, int, KeyInput, const std::uint32_t*,     \
                                 RadixBits<T>*, cudaStream_t);

RMGSORT_INSTANTIATE_PARTITION_KERNELS(std::uint32_t)
RMGSORT_INSTANTIATE_PARTITION_KERNELS(std::uint64_t)
RMGSORT_INSTANTIATE_PARTITION_KERNELS(std::int32_t)
RMGSORT_INSTANTIATE_PARTITION_KERNELS(std::int64_t)
RMGSORT_INSTANTIATE_PARTITION_KERNELS(float)
RMGSORT_INSTANTIATE_PARTITION_KERNELS(double)

}  // namespace rmgsort
