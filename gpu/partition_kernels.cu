#include "gpu/partition_kernels.cuh"

#include <cub/block/block_scan.cuh>

#include <algorithm>

#include "gpu/cuda_check.hpp"
#include "gpu/kernel_policy.hpp"

namespace rmgsort {
namespace {

using namespace kernel_policy;

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

// Thread t of block b reads keys b * kKeysPerBlock + t + j * kThreadsPerBlock (coalesced). Skew
// (thesis §4.1): a thread counts the run of its first digit in a register and adds it once, so
// all-equal digits cost one shared atomic per thread instead of one per key.
template <class Bits, class Encoding>
__global__ void __launch_bounds__(kThreadsPerBlock)
    block_histograms_kernel(const Bits* keys, std::uint32_t count, int shift, std::uint32_t* block_counts) {
  constexpr int kPerThread = kKeysPerThread<sizeof(Bits)>;
  __shared__ std::uint32_t histogram[kDigits];
  histogram[threadIdx.x] = 0;
  __syncthreads();
  const std::uint64_t base = std::uint64_t(blockIdx.x) * kKeysPerBlock<sizeof(Bits)> + threadIdx.x;
  unsigned run_digit = kDigits;  // none yet
  std::uint32_t run = 0;
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const std::uint64_t i = base + std::uint64_t(j) * kThreadsPerBlock;
    if (i < count) {
      const unsigned digit = digit_of(Encoding::apply(keys[i]), shift);
      if (digit == run_digit) {
        ++run;
      } else if (run_digit == kDigits) {
        run_digit = digit;
        run = 1;
      } else {
        atomicAdd(&histogram[digit], 1u);
      }
    }
  }
  if (run > 0) atomicAdd(&histogram[run_digit], run);
  __syncthreads();
  block_counts[std::uint64_t(threadIdx.x) * gridDim.x + blockIdx.x] = histogram[threadIdx.x];
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

  const unsigned digit_of_thread = threadIdx.x;
  const std::uint64_t at = std::uint64_t(digit_of_thread) * gridDim.x + blockIdx.x;
  const std::uint32_t begin = block_offsets[at];
  // The exclusive scan runs digit-major over all blocks, so this block's keys of this digit end
  // where the next entry begins — (digit, block + 1), or (digit + 1, 0) after the last block — and
  // the very last entry's keys end at `count`.
  const std::uint64_t entries = std::uint64_t(kDigits) * gridDim.x;
  const std::uint32_t end = at + 1 < entries ? block_offsets[at + 1] : count;
  std::uint32_t start = 0;
  BlockScan(scan_storage).ExclusiveSum(end - begin, start);
  block_start[digit_of_thread] = start;
  next_in_tile[digit_of_thread] = start;
  global_start[digit_of_thread] = begin;
  __syncthreads();

  const std::uint64_t first = std::uint64_t(blockIdx.x) * kTile;
  const std::uint64_t remaining = std::uint64_t(count) - first;
  const std::uint32_t valid = remaining < std::uint64_t(kTile) ? std::uint32_t(remaining) : std::uint32_t(kTile);
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
      if (local < valid) {
        const unsigned digit = digit_of(key[j], shift);
        tile[claim_rank(&next_in_tile[digit], digit)] = key[j];
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

template <class T, SortOrder kOrder, bool kEncode>
__global__ void transform_kernel(RadixBits<T>* keys, std::uint64_t count) {
  using Order = KeyOrder<T, kOrder>;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    if constexpr (kEncode) {
      keys[i] = Order::encode(__builtin_bit_cast(T, keys[i]));
    } else {
      keys[i] = __builtin_bit_cast(RadixBits<T>, Order::decode(keys[i]));
    }
  }
}

template <class T, bool kEncode>
void transform_async(void* keys, std::uint64_t count, SortOrder order, cudaStream_t stream) {
  if (count == 0) return;
  // A grid-stride loop with a few blocks per SM's worth of threads: memory-bound either way.
  const unsigned blocks = unsigned(std::min<std::uint64_t>((count + 1023) / 1024, 132u * 16u));
  auto* bits = static_cast<RadixBits<T>*>(keys);
  if (order == SortOrder::ascending) {
    transform_kernel<T, SortOrder::ascending, kEncode><<<blocks, 1024, 0, stream>>>(bits, count);
  } else {
    transform_kernel<T, SortOrder::descending, kEncode><<<blocks, 1024, 0, stream>>>(bits, count);
  }
  RMGSORT_CUDA_CHECK_LAUNCH(stream);
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
void block_histograms_async(const RadixBits<T>* keys, std::uint32_t count, int shift, KeyInput input,
                            std::uint32_t* block_counts, cudaStream_t stream) {
  using Bits = RadixBits<T>;
  const auto blocks = unsigned(blocks_for(count, sizeof(Bits)));
  if (blocks == 0) return;
  with_encoding<T>(input, [&]<class Encoding>(Encoding) {
    block_histograms_kernel<Bits, Encoding><<<blocks, kThreadsPerBlock, 0, stream>>>(keys, count, shift, block_counts);
  });
  RMGSORT_CUDA_CHECK_LAUNCH(stream);
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

template <class T>
void encode_keys_async(void* keys, std::uint64_t count, SortOrder order, cudaStream_t stream) {
  transform_async<T, true>(keys, count, order, stream);
}
template <class T>
void decode_keys_async(void* keys, std::uint64_t count, SortOrder order, cudaStream_t stream) {
  transform_async<T, false>(keys, count, order, stream);
}

#define RMGSORT_INSTANTIATE_TRANSFORMS(T)                                                                  \
  template void block_histograms_async<T>(const RadixBits<T>*, std::uint32_t, int, KeyInput, std::uint32_t*, \
                                          cudaStream_t);                                                    \
  template void scatter_async<T>(const RadixBits<T>*, std::uint32_t, int, KeyInput, const std::uint32_t*,     \
                                 RadixBits<T>*, cudaStream_t);                                              \
  template void encode_keys_async<T>(void*, std::uint64_t, SortOrder, cudaStream_t);                         \
  template void decode_keys_async<T>(void*, std::uint64_t, SortOrder, cudaStream_t);
RMGSORT_INSTANTIATE_TRANSFORMS(std::uint32_t)
RMGSORT_INSTANTIATE_TRANSFORMS(std::uint64_t)
RMGSORT_INSTANTIATE_TRANSFORMS(std::int32_t)
RMGSORT_INSTANTIATE_TRANSFORMS(std::int64_t)
RMGSORT_INSTANTIATE_TRANSFORMS(float)
RMGSORT_INSTANTIATE_TRANSFORMS(double)

}  // namespace rmgsort
