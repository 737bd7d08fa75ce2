// Destinations of many records at once, on every thread: Destinations::next is stateful only for
// the records of a boundary's key, whose place among the records of that key decides their rank. So
// the records are cut into blocks; one pass (in parallel) gives every record whose key is no
// boundary's its rank and counts each block's records of each boundary key; an exclusive scan over
// the blocks gives each block the counts before it, and each block's records of boundary keys are
// then classified (in parallel) by a copy of the classifier started there. The result is the same
// as next() called record by record.
#pragma once

#include <cstdint>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "dist/destinations.hpp"

namespace rmgsort::dist {

// Records a block holds: large enough that a block's copy of the classifier (its boundaries, a few
// KiB at hundreds of ranks) costs nothing beside it.
inline constexpr std::uint64_t kClassifyBlockRecords = std::uint64_t{1} << 16;

// DESTINATIONS[i] = the rank of record i of the COUNT records at RECORDS, which follow, in input
// order, the records CLASSIFIER was given before; CLASSIFIER is left past the last of them. D: an
// unsigned type that holds every rank (std::uint8_t, std::uint16_t or std::uint32_t). When
// BLOCK_COUNTS is given (ceil(count / kClassifyBlockRecords) x RANKS of them), block_counts[b x ranks
// + r] = the records of block b that go to rank r.
template <class D>
void classify_records(Destinations& classifier, const std::byte* records, std::uint64_t count,
                      const RecordLayout& layout, SortOrder order, D* destinations,
                      std::uint32_t* block_counts = nullptr, int ranks = 0);

}  // namespace rmgsort::dist
