// Tuning constants of the record tag sort (host/record_tags.hpp), in one place. Measured on the
// 2-core machine without GPU (Intel Xeon, 2 MiB L2 per core, 260 MiB L3), 2^27 records of (u64 key, u64
// payload), uniform keys, unless said otherwise.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rmgsort::record_tags_config {

// Records per task of the tag passes and the refinement's scan.
inline constexpr std::uint64_t kScanGrain = std::uint64_t{1} << 16;

// Records per task of the gather.
inline constexpr std::uint64_t kGatherGrain = std::uint64_t{1} << 14;

// The gather fetches the record this many tags ahead of the one it copies.
inline constexpr std::uint64_t kPrefetch = 16;

// Runs of equal prefixes up to this length are put in key order by insertion sort, up to
// kSequentialRun by std::sort, longer ones by tbb::parallel_sort (a run can hold every record of
// the round when the keys agree on the prefix's bits and differ below them).
inline constexpr std::uint64_t kInsertionSortRun = 16;
inline constexpr std::uint64_t kSequentialRun = std::uint64_t{1} << 14;

// A tag's position takes at most this many bits, so that its prefix keeps at least 16.
inline constexpr int kMaxIndexBits = 48;
inline constexpr std::uint64_t kMaxTaggedRecords = std::uint64_t{1} << kMaxIndexBits;

}  // namespace rmgsort::record_tags_config
