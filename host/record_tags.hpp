// Sorting records (any layout but a bare number key) through tags: each record of a round gets a
// 64-bit tag, the leading bits of its key rank (core/record_rank.hpp) above its position in the
// round; the tags are sorted as plain u64 keys by either engine (the CPU radix sort, or the GPUs'
// in-core sort); runs of tags whose prefixes tie but whose keys differ are put in key order; then
// the records are gathered in tag order. Positions make every tag unique, so the result is stable
// (equal keys keep their input order) whatever the stability of the u64 sort, and the records'
// bytes move once, in the gather.
//
// The prefix: the round's records are first scanned for the rank bits in which they differ (the
// first rank word that is not the same in every record, and its highest differing bit); the prefix
// is the 64 - index_bits bits from there down. When it holds every differing bit of every word
// (32-bit keys always; 64-bit keys whose round spans a narrower range) the tags are exact and need
// no refinement.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"

namespace rmgsort {

struct TagPlan {
  int index_bits = 0;   // the low bits of a tag: the record's position in the round
  int word = 0;         // the rank word the prefix is cut from
  int shift = 0;        // prefix = (rank word >> shift), its low 64 - index_bits bits
  bool exact = true;    // the prefix holds every rank bit in which the records differ: no refinement
};

// Host memory a tag sort of COUNT records needs beside the records and their output: the tags.
[[nodiscard]] constexpr std::uint64_t record_tag_bytes(std::uint64_t count) { return count * 8; }

// tags[i] = prefix(rank of record i) << index_bits | i, for records[0, count). Parallel (oneTBB).
TagPlan build_record_tags(const std::byte* records, std::uint64_t count, const RecordLayout& layout, SortOrder order,
                          std::uint64_t* tags);

// After tags[0, count) were sorted ascending: every run of equal prefixes whose records' keys
// differ is put in key order, equal keys by position. Nothing when plan.exact. Parallel.
void refine_record_tags(std::uint64_t* tags, std::uint64_t count, const TagPlan& plan, const std::byte* records,
                        const RecordLayout& layout, SortOrder order);

// The record position a tag holds.
[[nodiscard]] constexpr std::uint64_t tag_position(std::uint64_t tag, const TagPlan& plan) {
  return plan.index_bits == 0 ? 0 : tag & ((std::uint64_t{1} << plan.index_bits) - 1);
}

// out[j] = records[tag_position(tags[j])] for j < count (record_size bytes each). Parallel.
void gather_records(const std::uint64_t* tags, std::uint64_t count, const TagPlan& plan, const std::byte* records,
                    std::size_t record_size, std::byte* out);

}  // namespace rmgsort
