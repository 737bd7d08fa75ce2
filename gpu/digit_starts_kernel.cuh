// Where each digit begins in keys sorted by it (gpu/digit_rounds.hpp): the first trip's count of a
// chunk, read off the sorted chunk instead of counted by atomics.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace rmgsort {

// A key's digit is its bits [shift, shift + kRoundDigitBits). starts[d] = the first position of
// sorted[0, count) whose digit is >= d, for d in [0, kRoundDigits]: starts[kRoundDigits] == count, and
// digit d's keys are [starts[d], starts[d + 1]). The keys are ascending in their digits: sorted by
// them, and sharing every bit above them. Enqueues on `stream` (asynchronous); checks the launch.
template <class Bits>
void digit_starts_async(const Bits* sorted, std::uint64_t count, int shift, std::uint64_t* starts,
                        cudaStream_t stream);

}  // namespace rmgsort
