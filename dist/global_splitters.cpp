#include "dist/global_splitters.hpp"

#include <vector>

#include "dist/boundary_search.hpp"
#include "report/stopwatch.hpp"

namespace rmgsort::dist {

Destinations find_destinations(const Communicator& communicator, SliceReader& slice, std::uint64_t total,
                               const RecordLayout& layout, SortOrder order, SplitterReport& report) {
  Stopwatch watch;
  BoundarySearch search(total, communicator.size(), layout, order);
  while (!search.done()) {
    std::vector<std::uint64_t> counts(search.counters());
    slice.for_each_window([&](const std::byte* records, std::uint64_t, std::uint64_t count) {
      search.count(records, count, counts);
    });
    communicator.all_sum(counts);
    search.advance(counts);
    ++report.levels;
    report.counters += counts.size();
  }
  const std::vector<RankKey> keys = boundary_keys(search.boundaries());
  std::vector<std::uint64_t> earlier(keys.size());
  if (!keys.empty())
    slice.for_each_window([&](const std::byte* records, std::uint64_t, std::uint64_t count) {
      const std::vector<std::uint64_t> window = count_boundary_keys(records, count, layout, order, keys);
      for (std::size_t k = 0; k < keys.size(); ++k) earlier[k] += window[k];
    });
  communicator.exclusive_sum(earlier);
  report.seconds = watch.seconds();
  return Destinations(search.boundaries(), std::move(earlier), key_words(layout));
}

}  // namespace rmgsort::dist
