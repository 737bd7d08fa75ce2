// The splitters of the distributed sort, found together by every rank: the levels of
// dist/boundary_search.hpp counted over each rank's slice and summed with MPI_Allreduce, then the
// records of each boundary's key on lower ranks (MPI_Exscan), from which each rank's records get
// their destinations (dist/destinations.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "dist/boundary_candidates.hpp"
#include "dist/communicator.hpp"
#include "dist/destinations.hpp"
#include "dist/slice_reader.hpp"

namespace rmgsort::dist {

struct SplitterReport {
  int levels = 0;                   // histogram levels (allreduces)
  std::uint64_t counters = 0;       // counters summed over every level
  int slice_passes = 0;             // passes over the slice (the others count collected keys)
  double seconds = 0;
};

// Collective. SLICE: this rank's records of LAYOUT, its slice of the TOTAL records of every rank (global
// input positions [part_start(total, P, rank), ...)), read once a level until the keys in the
// boundaries' buckets fit CANDIDATE_BYTES on every rank, then once more to collect them
// (dist/boundary_candidates.hpp), or once more at the end. Returns the classifier of the slice's
// records, to be given them in input order.
[[nodiscard]] Destinations find_destinations(const Communicator& communicator, SliceReader& slice,
                                             std::uint64_t total, const RecordLayout& layout, SortOrder order,
                                             SplitterReport& report,
                                             std::uint64_t candidate_bytes = BoundaryCandidates::kDefaultBytes);

}  // namespace rmgsort::dist
