#include "dist/global_splitters.hpp"

#include <optional>
#include <vector>

#include "dist/boundary_candidates.hpp"
#include "dist/boundary_search.hpp"
#include "report/stopwatch.hpp"

namespace rmgsort::dist {

Destinations find_destinations(const Communicator& communicator, SliceReader& slice, std::uint64_t total,
                               const RecordLayout& layout, SortOrder order, SplitterReport& report,
                               std::uint64_t candidate_bytes) {
  Stopwatch watch;
  BoundarySearch search(total, communicator.size(), layout, order);
  std::optional<BoundaryCandidates> candidates;
  while (!search.done()) {
    std::vector<std::uint64_t> counts(search.counters());
    if (candidates) {
      candidates->count(search, counts);
    } else {
      slice.for_each_window([&](const std::byte* records, std::uint64_t, std::uint64_t count) {
        search.count(records, count, counts);
      });
      ++report.slice_passes;
    }
    const std::vector<std::uint64_t> mine = candidates ? std::vector<std::uint64_t>() : counts;
    communicator.all_sum(counts);
    search.advance(counts);
    ++report.levels;
    report.counters += counts.size();
    // The keys in the new buckets, collected once every rank's fit the bound: the later levels need
    // no pass over the slice. (Every rank takes the same decision, from the same maximum.)
    if (!candidates && !search.done() &&
        BoundaryCandidates::fit(layout, communicator.all_max(search.held(mine)), candidate_bytes)) {
      candidates.emplace(search, slice, layout);
      ++report.slice_passes;
    }
  }
  const std::vector<RankKey> keys = boundary_keys(search.boundaries());
  std::vector<std::uint64_t> earlier(keys.size());
  if (candidates) {
    earlier = candidates->count_keys(keys);
  } else if (!keys.empty()) {
    slice.for_each_window([&](const std::byte* records, std::uint64_t, std::uint64_t count) {
      const std::vector<std::uint64_t> window = count_boundary_keys(records, count, layout, order, keys);
      for (std::size_t k = 0; k < keys.size(); ++k) earlier[k] += window[k];
    });
    ++report.slice_passes;
  }
  communicator.exclusive_sum(earlier);
  report.seconds = watch.seconds();
  return Destinations(search.boundaries(), std::move(earlier), key_words(layout));
}

}  // namespace rmgsort::dist
