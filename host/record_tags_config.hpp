// Tuning constants of the record tag sort (host/record_tags.hpp), in one place. Measured on the
// 2-core machine without GPU (Intel Xeon, 2 MiB L2 per core, 260 MiB L3), 2^27 records of (u64 key, u64
// payload), uniform keys, unless said otherwise.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rmgsort::record_tags_config {

// Records per task of the tag passes and the refinement's scan.
inline constexpr std::uint64_t kScanGrain = std::uint64_t{1} << 16;

// Records whose rank word 0 is sampled for the prefix's shift before the first pass.
inline constexpr std::uint64_t kShiftSample = 1024;

// Records per task of the gather.
inline constexpr std::uint64_t kGatherGrain = std::uint64_t{1} << 14;

// The gather fetches the record this many tags ahead of the one it copies, into L2 (prefetcht1):
// 2^27 random 16-byte records, 2 threads: 0.97 s fetching into L1 at 16 or 32 ahead (no fetch:
// 1.35 s), 0.88 s into L2 at 32 or 64 ahead. Non-temporal stores of the output: 1.08 s. A copy of
// a compile-time size instead of memcpy's: within 2 %, so there is none.
inline constexpr std::uint64_t kPrefetch = 32;

// The refinement looks for tied prefixes this many neighbours at a time.
inline constexpr std::uint64_t kTieBlock = 16;

// Runs of equal prefixes up to this length are put in key order by insertion sort, up to
// kSequentialRun by std::sort, longer ones by tbb::parallel_sort (a run can hold every record of
// the round when the keys agree on the prefix's bits and differ below them).
inline constexpr std::uint64_t kInsertionSortRun = 16;
inline constexpr std::uint64_t kSequentialRun = std::uint64_t{1} << 14;

// A tag's position takes at most this many bits, so that its prefix keeps at least 16.
inline constexpr int kMaxIndexBits = 48;
inline constexpr std::uint64_t kMaxTaggedRecords = std::uint64_t{1} << kMaxIndexBits;

}  // namespace rmgsort::record_tags_config

// --- The tag sort (host/tag_sort.hpp) ---------------------------------------------------------------
namespace rmgsort::record_tags_config {

// Bits per digit of an LSD pass, and the fewest of a parallel MSD pass: 256 buckets keep the
// scatter's write streams within L1.
inline constexpr int kTagDigitBits = 8;

// A parallel MSD pass takes up to this many bits, as many as leave buckets of kSequentialTags / 2
// tags for evenly spread keys: 2^27 pairs in one pass from memory to 4096 cache-sized buckets.
inline constexpr int kMaxParallelDigitBits = 12;

// A sequential MSD pass takes at most this many bits (2048 32-bit counters: 8 KiB, in L1).
inline constexpr int kMaxSequentialTagDigitBits = 11;

// A cache-sized range whose prefixes differ in at most this many bits is finished by LSD passes.
inline constexpr int kLsdMaxTagBits = 24;

// Ranges of at most this many tags (1 MiB) are sorted by one thread, in its L2.
inline constexpr std::uint64_t kSequentialTags = std::uint64_t{1} << 17;

// A sequential MSD pass over a larger range makes buckets of at most this many tags (16 KiB: with
// their scratch, in a 48 KiB L1). One thread, 2^15 pairs in L2, uniform keys: 390 us at 2^11 tags,
// 410 us at 2^12, 403 us at 2^13.
inline constexpr std::uint64_t kL1Tags = std::uint64_t{1} << 11;

// A sequential MSD pass over a range in L1 makes buckets of about 2^kLeafBucketBits tags. One
// thread, 2^15 pairs in L2, uniform keys: 480 us at 4 a bucket, 410 us at 8, 472 us at 16.
inline constexpr int kLeafBucketBits = 3;

// Keys sampled from a range before a parallel pass to choose between a radix digit and a
// logarithmic one (host/stable_radix_sort.hpp's LogDigit).
inline constexpr std::uint64_t kLogSample = 1024;

// Ranges of at most this many tags are put in order by their ranks (branch-free), up to
// kInsertionSortTags by insertion sort. One thread, 2^15 pairs in L2, uniform keys, 8 a bucket:
// 550 us by insertion sort alone, 407 us ranking up to 12, 410 us up to 16, 443 us up to 32.
inline constexpr std::uint64_t kRankSortTags = 16;

// Ranges of at most this many tags are finished by insertion sort.
inline constexpr std::uint64_t kInsertionSortTags = 32;

// A parallel pass hands each task at least this many tags, and makes up to kTagTasksPerThread
// tasks per thread for load balance.
inline constexpr std::uint64_t kTagsPerTask = std::uint64_t{1} << 16;
inline constexpr std::uint64_t kTagTasksPerThread = 4;

// A parallel pass over at least this many tags (2 MiB, beyond L2) writes its lines
// with non-temporal stores; smaller ranges are read again from cache by the next pass.
inline constexpr std::uint64_t kStreamingTags = std::uint64_t{1} << 18;

}  // namespace rmgsort::record_tags_config
