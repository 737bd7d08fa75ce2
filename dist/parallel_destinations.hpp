// Destinations of many records at once, on every thread: Destinations::next is stateful only for
// the records of a boundary's key, whose place among the records of that key decides their rank. So
// the records are cut into blocks; each block's records of each boundary key are counted (in
// parallel), an exclusive scan over the blocks gives each block the counts before it, and each block
// is then classified on its own (in parallel) by a copy of the classifier started there. The result
// is the same as next() called record by record.
#pragma once

#include <cstdint>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "dist/destinations.hpp"

namespace rmgsort::dist {

// DESTINATIONS[i] = the rank of record i of the COUNT records at RECORDS, which follow, in input
// order, the records CLASSIFIER was given before; CLASSIFIER is left past the last of them.
void classify_records(Destinations& classifier, const std::byte* records, std::uint64_t count,
                      const RecordLayout& layout, SortOrder order, std::uint32_t* destinations);

}  // namespace rmgsort::dist
