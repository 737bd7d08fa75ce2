// Where each top digit begins in keys sorted by their top kRoundDigitBits (gpu/digit_rounds.hpp):
// the first trip's count of a chunk, read off the sorted chunk instead of counted by atomics.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace rmgsort {

// starts[d] = the first position of sorted[0, count) whose top kRoundDigitBits bits are >= d, for
// d in [0, kRoundDigits]: starts[kRoundDigits] == count, and digit d's keys are [starts[d],
// starts[d + 1]). `sorted` is ascending in its top bits. Enqueues on `stream` (asynchronous);
// checks the launch.
template <class Bits>
void digit_starts_async(const Bits* sorted, std::uint64_t count, std::uint64_t* starts, cudaStream_t stream);

}  // namespace rmgsort
