#include "dist/parallel_destinations.hpp"

#include <tbb/parallel_for.h>

#include <vector>

#include "dist/rank_key.hpp"

namespace rmgsort::dist {
namespace {

// Records per block: large enough that a block's copy of the classifier (its boundaries, a few
// KiB at hundreds of ranks) costs nothing beside it.
constexpr std::uint64_t kBlockRecords = std::uint64_t{1} << 16;

}  // namespace

void classify_records(Destinations& classifier, const std::byte* records, std::uint64_t count,
                      const RecordLayout& layout, SortOrder order, std::uint32_t* destinations) {
  const std::size_t blocks = std::size_t((count + kBlockRecords - 1) / kBlockRecords);
  const std::size_t keys = classifier.keys().size();
  const std::size_t size = layout.record_size;
  const auto block_end = [&](std::size_t b) { return std::min(count, (b + 1) * kBlockRecords); };
  // starts[b]: the counts of each boundary key before block b.
  std::vector<std::vector<std::uint64_t>> starts(blocks + 1, std::vector<std::uint64_t>(keys));
  starts[0] = classifier.seen();
  if (keys > 0) {
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
      const std::uint64_t first = b * kBlockRecords;
      starts[b + 1] = count_boundary_keys(records + first * size, block_end(b) - first, layout, order, classifier.keys());
    });
    for (std::size_t b = 1; b <= blocks; ++b)
      for (std::size_t k = 0; k < keys; ++k) starts[b][k] += starts[b - 1][k];
  } else {
    starts[blocks] = starts[0];
  }
  const KeyShape shape = key_shape(layout);
  visit_rank(layout, order, [&](const auto& rank) {
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
      Destinations block = classifier;
      block.set_seen(starts[b]);
      for (std::uint64_t i = b * kBlockRecords; i < block_end(b); ++i)
        destinations[i] = std::uint32_t(block.next(rank_key(rank, records + i * size, shape)));
    });
  });
  classifier.set_seen(std::move(starts[blocks]));
}

}  // namespace rmgsort::dist
