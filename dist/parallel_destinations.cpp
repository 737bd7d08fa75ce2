#include "dist/parallel_destinations.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "dist/rank_key.hpp"

namespace rmgsort::dist {
namespace {

// Classifies records [begin, end) with BLOCK (started there), counting each rank's records into
// COUNTS when given: keys of one word as plain integers.
template <class D, class Rank>
void classify_block(Destinations& block, const Rank& rank, const std::byte* records, std::uint64_t begin,
                    std::uint64_t end, std::size_t size, KeyShape shape, bool one_word, D* destinations,
                    std::uint32_t* counts) {
  if (one_word) {
    for (std::uint64_t i = begin; i < end; ++i)
      destinations[i] = D(block.next_word(rank_key_word(rank, records + i * size, shape)));
  } else {
    for (std::uint64_t i = begin; i < end; ++i) destinations[i] = D(block.next(rank_key(rank, records + i * size, shape)));
  }
  if (counts != nullptr)
    for (std::uint64_t i = begin; i < end; ++i) ++counts[destinations[i]];
}

}  // namespace

template <class D>
void classify_records(Destinations& classifier, const std::byte* records, std::uint64_t count,
                      const RecordLayout& layout, SortOrder order, D* destinations, std::uint32_t* block_counts,
                      int ranks) {
  const std::size_t blocks = std::size_t((count + kClassifyBlockRecords - 1) / kClassifyBlockRecords);
  const std::size_t keys = classifier.keys().size();
  const std::size_t size = layout.record_size;
  const auto block_end = [&](std::size_t b) { return std::min(count, (b + 1) * kClassifyBlockRecords); };
  if (block_counts != nullptr) std::fill_n(block_counts, blocks * std::size_t(ranks), 0u);
  // starts[b]: the counts of each boundary key before block b.
  std::vector<std::vector<std::uint64_t>> starts(blocks + 1, std::vector<std::uint64_t>(keys));
  starts[0] = classifier.seen();
  if (keys > 0) {
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
      const std::uint64_t first = b * kClassifyBlockRecords;
      starts[b + 1] = count_boundary_keys(records + first * size, block_end(b) - first, layout, order, classifier.keys());
    });
    for (std::size_t b = 1; b <= blocks; ++b)
      for (std::size_t k = 0; k < keys; ++k) starts[b][k] += starts[b - 1][k];
  } else {
    starts[blocks] = starts[0];
  }
  const KeyShape shape = key_shape(layout);
  const bool one_word = key_words(layout) == 1;
  visit_rank(layout, order, [&](const auto& rank) {
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
      std::uint32_t* counts = block_counts == nullptr ? nullptr : block_counts + b * std::size_t(ranks);
      if (keys == 0) {  // no boundary (one rank): every record goes to rank 0
        std::memset(destinations + b * kClassifyBlockRecords, 0, (block_end(b) - b * kClassifyBlockRecords) * sizeof(D));
        if (counts != nullptr) counts[0] = std::uint32_t(block_end(b) - b * kClassifyBlockRecords);
        return;
      }
      Destinations block = classifier;
      block.set_seen(starts[b]);
      classify_block(block, rank, records, b * kClassifyBlockRecords, block_end(b), size, shape, one_word,
                     destinations, counts);
    });
  });
  classifier.set_seen(std::move(starts[blocks]));
}

template void classify_records(Destinations&, const std::byte*, std::uint64_t, const RecordLayout&, SortOrder,
                               std::uint8_t*, std::uint32_t*, int);
template void classify_records(Destinations&, const std::byte*, std::uint64_t, const RecordLayout&, SortOrder,
                               std::uint16_t*, std::uint32_t*, int);
template void classify_records(Destinations&, const std::byte*, std::uint64_t, const RecordLayout&, SortOrder,
                               std::uint32_t*, std::uint32_t*, int);

}  // namespace rmgsort::dist
