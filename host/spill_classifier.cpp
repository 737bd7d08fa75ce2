#include "host/spill_classifier.hpp"

#include <cstring>

#include "core/error.hpp"
#include "host/chunk_buckets.hpp"
#include "host/partition_chunks.hpp"

namespace rmgsort {
namespace {

// Blocks of keys counted and then scattered by one task each: small enough that a chunk of a few
// MiB keeps every thread busy, large enough that a block's counters are a small part of its work.
constexpr std::uint64_t kBlockKeys = std::uint64_t{1} << 16;

}  // namespace

template <class T>
std::vector<std::uint64_t> SpillClassifier<T>::classify(std::span<const std::byte> chunk, std::byte* grouped,
                                                        std::vector<RoundExtent<Bits>>& extents) const {
  RMGSORT_EXPECTS(chunk.size() % sizeof(T) == 0 && extents.size() == splitters_.rounds(),
                  "spill classification: whole keys, and an extent per round");
  if (order_ == SortOrder::ascending) return classify_in<SortOrder::ascending>(chunk, grouped, extents);
  return classify_in<SortOrder::descending>(chunk, grouped, extents);
}

// A counting sort of the chunk's blocks by round; the count also finds each block's extent of every
// round, summed in block order.
template <class T>
template <SortOrder kOrder>
std::vector<std::uint64_t> SpillClassifier<T>::classify_in(std::span<const std::byte> chunk, std::byte* grouped,
                                                           std::vector<RoundExtent<Bits>>& extents) const {
  const auto encode = [data = chunk.data()](std::uint64_t i) {
    T key;
    std::memcpy(&key, data + i * sizeof(T), sizeof(T));
    return KeyOrder<T, kOrder>::encode(key);
  };
  const PartitionChunks blocks = PartitionChunks::of_size(chunk.size() / sizeof(T), kBlockKeys);
  const std::size_t rounds = splitters_.rounds();
  std::vector<RoundExtent<Bits>> block_extents(blocks.chunks() * rounds);
  ChunkBuckets by_round;
  by_round.count(blocks, rounds, [&](std::size_t block, std::uint64_t* counts) {
    RoundExtent<Bits>* mine = &block_extents[block * rounds];
    for (std::uint64_t i = blocks.begin(block); i < blocks.end(block); ++i) {
      const Bits key = encode(i);
      RoundExtent<Bits>& e = mine[splitters_.round_of(key)];
      ++e.keys;
      e.lowest = std::min(e.lowest, key);
      e.highest = std::max(e.highest, key);
    }
    for (std::size_t r = 0; r < rounds; ++r) counts[r] = mine[r].keys;
  });
  for (std::size_t b = 0; b < blocks.chunks(); ++b)
    for (std::size_t r = 0; r < rounds; ++r) extents[r].add(block_extents[b * rounds + r]);
  std::vector<std::uint64_t> ends = by_round.place_packed();
  by_round.scatter([&](std::size_t block, std::uint64_t* next) {
    for (std::uint64_t i = blocks.begin(block); i < blocks.end(block); ++i)
      std::memcpy(grouped + next[splitters_.round_of(encode(i))]++ * sizeof(T), chunk.data() + i * sizeof(T), sizeof(T));
  });
  ends.erase(ends.begin());
  for (std::uint64_t& end : ends) end *= sizeof(T);
  return ends;
}

template class SpillClassifier<std::uint32_t>;
template class SpillClassifier<std::uint64_t>;
template class SpillClassifier<std::int32_t>;
template class SpillClassifier<std::int64_t>;
template class SpillClassifier<float>;
template class SpillClassifier<double>;

}  // namespace rmgsort
