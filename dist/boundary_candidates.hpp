// The splitters' later levels in memory: once the boundaries' buckets hold few records, a rank
// collects the keys of its records in them (one pass over its slice) and counts every later level
// over those keys alone, and the boundary keys' records too (dist/destinations.hpp's
// count_boundary_keys): every record of a boundary's key lies in its bucket. The counts are those
// of the slice (the records outside the buckets count in no level), so the boundaries are the
// same. A u64 search of 2 ranks took 5 passes over the slice (4 levels and the boundary key's count),
// now 2 (the first level and the one that collects): 1.29 -> 0.56 s for 15 M keys a rank
// (bench_results/2026-11-24-distributed-cpu-2core.md).
//
// The keys are held as rank words (key_words() 64-bit words a key), in one part per thread that
// collected them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "dist/boundary_search.hpp"
#include "dist/rank_key.hpp"
#include "dist/slice_reader.hpp"

namespace rmgsort::dist {

class BoundaryCandidates {
 public:
  // The most bytes the keys of a rank may take, unless the caller gives another bound: 64 MiB, the
  // exchange's two staging buffers (dist/share_exchange.hpp), which are not yet allocated while the
  // splitters are found. A u64 key of 4e9 over 2 ranks lies in a first-level bucket of about 61 000
  // keys; one heavy key (or a few) fills its bucket and keeps the search on the slice.
  static constexpr std::uint64_t kDefaultBytes = std::uint64_t{64} << 20;

  // Whether keys of LAYOUT that SEARCH's buckets hold, at most MOST_HELD records on any rank
  // (BoundarySearch::held() at its largest), fit BYTES.
  [[nodiscard]] static bool fit(const RecordLayout& layout, std::uint64_t most_held, std::uint64_t bytes) {
    return most_held <= bytes / (8 * std::uint64_t(key_words(layout)));
  }

  // Collects the keys of SLICE's records that lie in SEARCH's buckets: one pass, in parallel.
  BoundaryCandidates(const BoundarySearch& search, SliceReader& slice, const RecordLayout& layout);
  // The same for the COUNT records at RECORDS.
  BoundaryCandidates(const BoundarySearch& search, const std::byte* records, std::uint64_t count,
                     const RecordLayout& layout);

  [[nodiscard]] std::uint64_t size() const;
  // SEARCH's level (a later level than the one that collected) counted over the keys
  // (BoundarySearch::count()).
  void count(const BoundarySearch& search, std::span<std::uint64_t> counts) const;
  // How many keys equal each of KEYS (ascending): count_boundary_keys() of the slice.
  [[nodiscard]] std::vector<std::uint64_t> count_keys(const std::vector<RankKey>& keys) const;

 private:
  void add(const BoundarySearch& search, const std::byte* records, std::uint64_t count, std::size_t record_size);

  int words_;
  std::vector<std::vector<std::uint64_t>> parts_;
};

}  // namespace rmgsort::dist
