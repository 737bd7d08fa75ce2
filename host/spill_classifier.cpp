#include "host/spill_classifier.hpp"

#include <bit>
#include <cstring>
#include <type_traits>

#include "core/error.hpp"
#include "core/record_rank.hpp"
#include "host/chunk_buckets.hpp"
#include "host/partition_chunks.hpp"

namespace rmgsort {
namespace {

// Blocks of records counted and then scattered by one task each: small enough that a chunk of a few
// MiB keeps every thread busy, large enough that a block's counters are a small part of its work.
// 2^16 keys (512 KiB of u64 keys) as bare keys always had; wide records by bytes, so that a chunk of
// 100-byte records still makes blocks for every thread.
constexpr std::uint64_t kBlockRecords = std::uint64_t{1} << 16;
constexpr std::uint64_t kBlockBytes = std::uint64_t{512} << 10;

// A bare key of N bytes, moved by a copy of constant width (the key paths' speed).
template <std::size_t N>
struct MoveKey {
  void operator()(std::byte* to, const std::byte* from, std::uint64_t /*position*/) const { std::memcpy(to, from, N); }
};

// Any record, moved by its size, its input position appended when asked.
struct MoveRecord {
  std::size_t bytes = 0;
  bool append_position = false;
  void operator()(std::byte* to, const std::byte* from, std::uint64_t position) const {
    std::memcpy(to, from, bytes);
    if (append_position) {
      const std::uint64_t little = std::endian::native == std::endian::little ? position : __builtin_bswap64(position);
      std::memcpy(to + bytes, &little, 8);
    }
  }
};

// The width of a number rank's key (its bare record's size); 0 for bytes keys.
template <class Rank>
constexpr std::size_t kNumberKeyBytes = 0;
template <class T, SortOrder kOrder, bool kEqualNans>
constexpr std::size_t kNumberKeyBytes<NumberRank<T, kOrder, kEqualNans>> = sizeof(T);

// A counting sort of the chunk's blocks by round; the count also finds each block's extent of every
// round, summed in block order. The word is read twice (count, scatter) rather than kept: a byte
// per record would be a quarter chunk more memory for u32 keys.
template <class Rank, class Move>
std::vector<std::uint64_t> classify_records(const Rank& rank, const Move& move, int word, std::size_t bytes_in,
                                            std::size_t bytes_out, const Splitters<std::uint64_t>& splitters,
                                            std::span<const std::byte> chunk, std::byte* grouped,
                                            std::vector<RoundExtent>& extents, std::uint64_t first_position) {
  const std::byte* records = chunk.data();
  const std::uint64_t count = chunk.size() / bytes_in;
  const PartitionChunks blocks =
      PartitionChunks::of_size(count, std::clamp<std::uint64_t>(kBlockBytes / bytes_in, 1, kBlockRecords));
  const std::size_t rounds = splitters.rounds();
  std::vector<RoundExtent> block_extents(blocks.chunks() * rounds);
  ChunkBuckets by_round;
  by_round.count(blocks, rounds, [&](std::size_t block, std::uint64_t* counts) {
    RoundExtent* mine = &block_extents[block * rounds];
    for (std::uint64_t i = blocks.begin(block); i < blocks.end(block); ++i) {
      const std::uint64_t value = rank.word(records + i * bytes_in, word);
      RoundExtent& e = mine[splitters.round_of(value)];
      ++e.records;
      e.lowest = std::min(e.lowest, value);
      e.highest = std::max(e.highest, value);
    }
    for (std::size_t r = 0; r < rounds; ++r) counts[r] = mine[r].records;
  });
  for (std::size_t b = 0; b < blocks.chunks(); ++b)
    for (std::size_t r = 0; r < rounds; ++r) extents[r].add(block_extents[b * rounds + r]);
  std::vector<std::uint64_t> ends = by_round.place_packed();
  by_round.scatter([&](std::size_t block, std::uint64_t* next) {
    for (std::uint64_t i = blocks.begin(block); i < blocks.end(block); ++i) {
      const std::byte* record = records + i * bytes_in;
      move(grouped + next[splitters.round_of(rank.word(record, word))]++ * bytes_out, record, first_position + i);
    }
  });
  ends.erase(ends.begin());
  for (std::uint64_t& end : ends) end *= bytes_out;
  return ends;
}

}  // namespace

SpillClassifier::SpillClassifier(const RecordLayout& layout, SortOrder order, int word,
                                 const Splitters<std::uint64_t>& splitters, bool append_position)
    : bytes_in_(layout.record_size),
      bytes_out_(layout.record_size + (append_position ? 8 : 0)),
      rounds_(splitters.rounds()) {
  RMGSORT_EXPECTS(layout.valid() && word >= 0, "spill classification: a valid layout and rank word");
  const std::size_t in = bytes_in_, out = bytes_out_;
  const Splitters<std::uint64_t>* by = &splitters;
  classify_ = visit_rank(layout, order, [&](const auto& rank) -> Classify {
    using Rank = std::decay_t<decltype(rank)>;
    RMGSORT_EXPECTS(word < rank.words(), "spill classification: a rank word of the key");
    constexpr std::size_t kKey = kNumberKeyBytes<Rank>;
    if constexpr (kKey > 0) {
      if (in == kKey && out == kKey) {
        return [rank, word, by](std::span<const std::byte> chunk, std::byte* grouped, std::vector<RoundExtent>& extents,
                                std::uint64_t first) {
          return classify_records(rank, MoveKey<kKey>{}, word, kKey, kKey, *by, chunk, grouped, extents, first);
        };
      }
    }
    return [rank, word, by, in, out, move = MoveRecord{in, out != in}](
               std::span<const std::byte> chunk, std::byte* grouped, std::vector<RoundExtent>& extents,
               std::uint64_t first) {
      return classify_records(rank, move, word, in, out, *by, chunk, grouped, extents, first);
    };
  });
}

std::vector<std::uint64_t> SpillClassifier::classify(std::span<const std::byte> chunk, std::byte* grouped,
                                                     std::vector<RoundExtent>& extents,
                                                     std::uint64_t first_position) const {
  RMGSORT_EXPECTS(chunk.size() % bytes_in_ == 0 && extents.size() == rounds_,
                  "spill classification: whole records, and an extent per round");
  return classify_(chunk, grouped, extents, first_position);
}

}  // namespace rmgsort
