// The least a chunk of records read from a file may be, for the plans that size chunks (the spill
// path's, sort/sort_plan.cpp; the merge's, sort/merge_plan.cpp): whole pages, so that a regular
// file can be read straight into it, and at least one record.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace rmgsort {

inline constexpr std::uint64_t kChunkAlignment = 4096;

[[nodiscard]] constexpr std::uint64_t round_up_to_chunk_alignment(std::uint64_t bytes) {
  return (bytes + kChunkAlignment - 1) / kChunkAlignment * kChunkAlignment;
}

// The least chunk holding a record of RECORD_BYTES, and never less than LEAST (whole pages too).
[[nodiscard]] constexpr std::uint64_t smallest_chunk(std::uint64_t least, std::size_t record_bytes) {
  return std::max(least, round_up_to_chunk_alignment(record_bytes));
}

}  // namespace rmgsort
