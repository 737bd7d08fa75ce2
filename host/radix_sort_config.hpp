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

// Ranges of at most this many keys are sorted by one thread in its cache, between the range and a
// buffer of the thread's own (CacheSorter); larger ones by in-place block passes. 2^16 keys =
// 256-512 KiB: a core's L2 (2^16 to 2^20 measured within 10 % of each other with the
// out-of-place passes; 2^15, 2^16, 2^17 within 3 % with the in-place ones, 2^26 uniform u64).
inline constexpr std::size_t kSequentialKeys = std::size_t{1} << 16;

// The in-place pass moves keys in blocks of this many bytes; a stripe buffers one per bucket. 2^26
// uniform u64, 2 threads (a loaded machine, two alternating rounds): 1 KiB 2.03-2.11 s, 2 KiB
// 1.91-2.00 s, 4 KiB 2.01-2.03 s, 8 KiB 2.20-2.26 s.
inline constexpr std::size_t kBlockBytes = 2048;
inline constexpr std::size_t kStripeBufferBytes = (std::size_t{1} << kDigitBits) * kBlockBytes;

// The widest digit of an LSD pass in a cache-sized range (2048 32-bit counters a pass: 8 KiB, in
// L1): a range's LSD passes are as few as such digits take, the bits shared evenly among them, so
// that the top window of a range of 4096 to 65536 keys (18 to 22 bits) takes two passes, not
// three of kDigitBits. In memory, 2 threads (2-core machine), before -> after in turns, M keys/s:
// u64 uniform 2^28 182-188 -> 201-208, 2^26 208-216 -> 207-210 (two passes both ways), normal
// 2^27 162-196 -> 207-211, f64 uniform 2^27 133 -> 141-143, u32 uniform 2^28 255-295 -> 264-309
// (bench_results/2026-11-28-cpu-sort-wider-lsd-digits-2core.md; its second table: the range's first
// read finding the differing bits without counting a digit, +1 to +13 %).
inline constexpr int kMaxLsdDigitBits = 11;

// Cache-sized ranges of at least this many keys whose keys differ in more than kLsdMaxBits bits
// are sorted by LSD passes over the highest of them, then by insertion within the short runs
// sharing those (CacheSorter::sort_top_window), instead of by an MSD digit and an insertion sort
// per ~16-key bucket, which took ~70 % of a 2^26 uniform u64 sort (its ranges of ~1024 keys still
// differ in 48 bits): 2 threads, 136-145 -> 261-286 M keys/s. Below it, two LSD passes' 256-entry
// counts cost more than they save (512 itself not tuned).
inline constexpr std::size_t kTopWindowMinKeys = 512;

// Ranges of at most this many keys are finished by insertion sort.
inline constexpr std::size_t kInsertionSortKeys = 32;

// An in-place pass gives each stripe (a task, with its own 256 block buffers) at least this many
// keys, so that the buffers' cleanup stays small beside it (2^18 keys: 1-2 MiB against the
// buffers' 512 KiB), and a range as many stripes as its share of the threads (at least one): the
// passes that run at once hold about two stripe buffers a thread, however the input is skewed.
inline constexpr std::size_t kKeysPerTask = std::size_t{1} << 18;

// Keys sampled from a range before a parallel pass to choose between a radix digit and a
// logarithmic one (host/radix_digits.hpp), as the stable sort of pairs does.
inline constexpr std::size_t kLogSampleKeys = 1024;

}  // namespace rmgsort::radix_config
