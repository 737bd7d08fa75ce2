// The CPU sort of record tags (host/record_tags.hpp): a radix sort that knows a tag's low index_bits
// hold its position.
#pragma once

#include <cstdint>

namespace rmgsort {

// Sorts tags[0, count) ascending, as build_record_tags wrote them (positions ascending);
// scratch holds count tags and may alias nothing else. Runs on the current oneTBB arena. Synchronous.
//
// Equal prefixes (tag >> index_bits) are already in position order, so a stable sort by the
// prefix alone sorts the tags: radix passes cover only the prefix bits in which the tags differ,
// never the index bits below them (host/radix_sort.hpp's sort of whole u64 keys digs through
// those too: for 2^27 uniform keys, insertion sorts of 16 keys where an in-cache LSD pass would do).
// Out-of-place MSD passes while a range is larger than a core's cache, then LSD passes in cache.
void sort_tags(std::uint64_t* tags, std::uint64_t count, int index_bits, std::uint64_t* scratch);

}  // namespace rmgsort
