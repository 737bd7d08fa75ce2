// The CPU engine's sort of records (any layout) in memory, through record tags (host/record_tags.hpp):
// build the tags, sort them (host/tag_sort.hpp), refine the runs whose prefixes tie, gather.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"

namespace rmgsort {

// Host memory sort_records needs beside the records and their output: the tags and the radix
// sort's scratch, 8 bytes each per record.
[[nodiscard]] constexpr std::uint64_t record_sort_scratch_bytes(std::uint64_t count) { return 16 * count; }

// Sorts records[0, count) of LAYOUT in ORDER into OUT (count records; not overlapping RECORDS),
// stably, on the calling oneTBB arena; TAGS and SCRATCH hold count u64 each. Synchronous.
void sort_records(const std::byte* records, std::uint64_t count, const RecordLayout& layout, SortOrder order,
                  std::byte* out, std::uint64_t* tags, std::uint64_t* scratch);

}  // namespace rmgsort
