// The two questions a merge of inputs larger than memory asks of the windows it holds of them
// (sort/merge_window.hpp): are the records just loaded in order, and how much of every window can
// be merged now, before more is loaded. Both compare keys as the merge does (host/multiway_merge.hpp:
// rank words in the layout's order, ties to the earlier input).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "host/merge_run.hpp"

namespace rmgsort {

// How many leading records of each window may be merged now. RUNS: the records of every input
// loaded and not yet merged, in input order; ENDED[i] != 0 when run i holds all that is left of input
// i (a window of an input that has not ended holds at least one record). The records taken precede,
// in the stable merge order, every record not taken and every record not yet loaded, so merging them
// now and the rest later gives the merge of the whole inputs.
//
// Let m be the smallest last key among the windows of inputs that go on, and j the first such window
// whose last key is m. Then window j is taken whole (what follows it ranks with m or after), a window
// before j up to its last key <= m (its next records rank after m, or it ended), and one after j up to
// its last key < m (its equal keys wait for those of j still unread). When every input ended, all is
// taken. So a round takes at least window j.
[[nodiscard]] std::vector<std::uint64_t> mergeable_prefix(const RecordLayout& layout, SortOrder order,
                                                          std::span<const MergeRun> runs,
                                                          std::span<const std::uint8_t> ended);

// The index of the first of N records (STRIDE bytes apart from RECORDS) whose key ranks before the
// previous record's, or nullopt when they are in order. PREVIOUS_KEY, when not null, is the key (its
// key_size bytes) of the record before the first, which record 0 is compared with. Parallel (oneTBB)
// for large N; the answer is the smallest such index however the work is split.
[[nodiscard]] std::optional<std::uint64_t> first_descent(const RecordLayout& layout, SortOrder order,
                                                         const std::byte* records, std::uint64_t n, std::size_t stride,
                                                         const std::byte* previous_key);

}  // namespace rmgsort
