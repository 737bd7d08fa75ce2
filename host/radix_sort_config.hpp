// Tuning constants of the CPU radix sort, in one place (printed in --stats). Measured on the
// 2-core machine without GPU (AMD EPYC, 1 MiB L2 per core), uniform keys, unless said otherwise.
#pragma once

#include <cstddef>

namespace rmgsort::radix_config {

// Bits per digit of a parallel MSD pass and of an LSD pass: 256 buckets keep the scatter's write
// streams within L1 (256 x 64 B lines).
inline constexpr int kDigitBits = 8;

// A sequential MSD pass sizes its digit to the range, aiming at ~2^kKeysPerBucketLog2 keys per
// bucket, so that buckets end in insertion sort rather than in another pass; at most 11 bits
// (2048 32-bit counters: 8 KiB, in L1). 10^7 uniform u64, 2 threads: 0.41 s with fixed 8-bit
// digits, most of it per-bucket cost of near-empty buckets.
inline constexpr int kKeysPerBucketLog2 = 4;
inline constexpr int kMaxSequentialDigitBits = 11;

// A cache-sized range whose keys differ in at most this many bits is finished by LSD passes over
// just those bits: no buckets, so no per-bucket cost. 2^26 uniform u32: 0.62 s with MSD passes
// down to single keys, 0.36 s with LSD on the last 16 bits.
inline constexpr int kLsdMaxBits = 24;

// Ranges of at most this many keys are sorted by one thread; larger ones are split among threads.
// 2^16 keys = 256-512 KiB: a core's L2 (2^16 to 2^20 measured within 10 % of each other).
inline constexpr std::size_t kSequentialKeys = std::size_t{1} << 16;

// Ranges of at most this many keys are finished by insertion sort.
inline constexpr std::size_t kInsertionSortKeys = 32;

// A parallel pass hands each task at least this many keys (amortises its 256-counter histogram),
// and makes up to kTasksPerThread tasks per thread for load balance under work stealing.
inline constexpr std::size_t kKeysPerTask = std::size_t{1} << 16;
inline constexpr std::size_t kTasksPerThread = 4;

}  // namespace rmgsort::radix_config
