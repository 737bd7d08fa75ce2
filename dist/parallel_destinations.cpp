#include "dist/parallel_destinations.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "dist/rank_key.hpp"

namespace rmgsort::dist {
namespace {

// What the first pass leaves of a block: its records of a boundary's key, whose ranks wait for the
// counts of those keys before the block, and how many of each key there are.
struct Pending {
  std::vector<std::uint32_t> records;  // within the block, ascending
  std::vector<std::uint64_t> keys;     // per boundary key
};

// The first pass over a block [begin, end): every record whose key is no boundary's gets its rank
// (and is counted into COUNTS when given); the others are left to PENDING.
template <class D, class Rank>
void settle_block(const Destinations& classifier, const Rank& rank, const std::byte* records, std::uint64_t begin,
                  std::uint64_t end, std::size_t size, KeyShape shape, bool one_word, D* destinations,
                  std::uint32_t* counts, Pending& pending) {
  const auto pend = [&](std::uint64_t i, const RankKey& key) {
    pending.records.push_back(std::uint32_t(i - begin));
    ++pending.keys[classifier.key_index(key)];
  };
  for (std::uint64_t i = begin; i < end; ++i) {
    const std::byte* record = records + i * size;
    if (one_word) {
      const std::uint64_t key = rank_key_word(rank, record, shape);
      const int settled = classifier.settled_word(key);
      if (settled < 0) {
        pend(i, RankKey{key, 0, 0, 0});
        continue;
      }
      destinations[i] = D(settled);
    } else {
      const RankKey key = rank_key(rank, record, shape);
      const int settled = classifier.settled(key);
      if (settled < 0) {
        pend(i, key);
        continue;
      }
      destinations[i] = D(settled);
    }
    if (counts != nullptr) ++counts[destinations[i]];
  }
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
  const auto block_counts_of = [&](std::size_t b) {
    return block_counts == nullptr ? nullptr : block_counts + b * std::size_t(ranks);
  };
  if (block_counts != nullptr) std::fill_n(block_counts, blocks * std::size_t(ranks), 0u);
  if (keys == 0) {  // no boundary (one rank): every record goes to rank 0
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
      const std::uint64_t first = b * kClassifyBlockRecords;
      std::memset(destinations + first, 0, (block_end(b) - first) * sizeof(D));
      if (std::uint32_t* counts = block_counts_of(b)) counts[0] = std::uint32_t(block_end(b) - first);
    });
    return;
  }
  // One pass settles every record but those of a boundary's key (few, but for heavy keys), counting
  // those by key; a scan over the blocks gives each block the counts before it, and a copy of the
  // classifier started there gives its pending records their ranks in order: a second pass over the
  // pending records alone. (15 M u64 keys of 2 ranks, one thread: 0.15 s, where a pass counting the
  // boundary keys and another classifying every record took 0.24 s.)
  std::vector<Pending> pending(blocks, Pending{{}, std::vector<std::uint64_t>(keys)});
  const KeyShape shape = key_shape(layout);
  const bool one_word = key_words(layout) == 1;
  visit_rank(layout, order, [&](const auto& rank) {
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
      settle_block(classifier, rank, records, b * kClassifyBlockRecords, block_end(b), size, shape, one_word,
                   destinations, block_counts_of(b), pending[b]);
    });
    // starts[b]: the counts of each boundary key before block b.
    std::vector<std::vector<std::uint64_t>> starts(blocks + 1);
    starts[0] = classifier.seen();
    for (std::size_t b = 0; b < blocks; ++b) {
      starts[b + 1] = starts[b];
      for (std::size_t k = 0; k < keys; ++k) starts[b + 1][k] += pending[b].keys[k];
    }
    tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
      if (pending[b].records.empty()) return;
      Destinations block = classifier;
      block.set_seen(starts[b]);
      std::uint32_t* counts = block_counts_of(b);
      for (const std::uint32_t within : pending[b].records) {
        const std::uint64_t i = b * kClassifyBlockRecords + within;
        destinations[i] = D(block.next(rank_key(rank, records + i * size, shape)));
        if (counts != nullptr) ++counts[destinations[i]];
      }
    });
    classifier.set_seen(std::move(starts[blocks]));
  });
}

template void classify_records(Destinations&, const std::byte*, std::uint64_t, const RecordLayout&, SortOrder,
                               std::uint8_t*, std::uint32_t*, int);
template void classify_records(Destinations&, const std::byte*, std::uint64_t, const RecordLayout&, SortOrder,
                               std::uint16_t*, std::uint32_t*, int);
template void classify_records(Destinations&, const std::byte*, std::uint64_t, const RecordLayout&, SortOrder,
                               std::uint32_t*, std::uint32_t*, int);

}  // namespace rmgsort::dist
