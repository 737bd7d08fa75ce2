#include "gpu/digit_starts_kernel.cuh"

#include "gpu/cuda_check.hpp"
#include "gpu/digit_rounds.hpp"

namespace rmgsort {
namespace {

constexpr unsigned kThreads = 256;

// One thread per digit: a binary search of the sorted keys' top bits (65 537 searches of ~30 steps
// over a chunk of up to 2^32 keys: microseconds beside the chunk's copies).
template <class Bits>
__global__ void digit_starts_kernel(const Bits* sorted, std::uint64_t count, int shift, std::uint64_t* starts) {
  const std::uint64_t digit = std::uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (digit > kRoundDigits) return;
  std::uint64_t low = 0, high = count;
  while (low < high) {
    const std::uint64_t middle = low + (high - low) / 2;
    if ((std::uint64_t(sorted[middle] >> shift) & (kRoundDigits - 1)) < digit) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  starts[digit] = low;
}

}  // namespace

template <class Bits>
void digit_starts_async(const Bits* sorted, std::uint64_t count, int shift, std::uint64_t* starts,
                        cudaStream_t stream) {
  const unsigned blocks = unsigned((kRoundDigits + 1 + kThreads - 1) / kThreads);
  digit_starts_kernel<Bits><<<blocks, kThreads, 0, stream>>>(sorted, count, shift, starts);
  RMGSORT_CUDA_CHECK_LAUNCH(stream);
}

template void digit_starts_async<std::uint32_t>(const std::uint32_t*, std::uint64_t, int, std::uint64_t*, cudaStream_t);
template void digit_starts_async<std::uint64_t>(const std::uint64_t*, std::uint64_t, int, std::uint64_t*, cudaStream_t);

}  // namespace rmgsort
