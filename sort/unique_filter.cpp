#include "sort/unique_filter.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "core/record_rank.hpp"
#include "host/move_down.hpp"

namespace rmgsort {
namespace {

// Records per block: enough work to be worth a task, and few blocks to move in the serial step.
constexpr std::uint64_t kBlockRecords = std::uint64_t{1} << 16;

std::byte* as_bytes(std::uint64_t* words) { return reinterpret_cast<std::byte*>(words); }

// Records [begin, end) of RECORDS (of `size` bytes) and their POSITIONS (when not null); whether
// the first starts a run was decided before any record moved.
struct Block {
  std::byte* records;
  std::uint64_t* positions;
  std::uint64_t begin, end;
  bool first_starts;
  std::size_t size;
};

// Moves BLOCK's records that start a run to its front, in order; returns how many. Record i is
// compared with record i - 1 as it was: a write goes to a slot at or before the record being read,
// and slot i - 1 is written at record i - 1 only, by itself (skipped, or copied onto itself), so it
// still holds record i - 1 when record i is read. kSize: the records' size where the compiler
// should know it (0: not).
template <std::size_t kSize, class Differs>
std::uint64_t compact(const Block& block, const Differs& differs) {
  const std::size_t size = kSize != 0 ? kSize : block.size;
  std::byte* const records = block.records;
  std::uint64_t out = block.begin;
  for (std::uint64_t i = block.begin; i < block.end; ++i) {
    const bool starts = i == block.begin ? block.first_starts : differs(records + (i - 1) * size, records + i * size);
    if constexpr (kSize != 0) {
      // Without a branch (a third of the records dropped at random mispredicts it): every record is
      // copied to the next free slot, which only a record that starts a run keeps (memmove: the
      // slot may be the record itself; inlined as memcpy is, the size being known).
      std::memmove(records + out * size, records + i * size, size);
      if (block.positions != nullptr) block.positions[out] = block.positions[i];
      out += starts ? 1 : 0;
    } else {
      if (!starts) continue;
      if (out != i) {
        std::memcpy(records + out * size, records + i * size, size);
        if (block.positions != nullptr) block.positions[out] = block.positions[i];
      }
      ++out;
    }
  }
  return out - block.begin;
}

}  // namespace

UniqueFilter::UniqueFilter(const RecordLayout& layout, SortOrder order) : layout_(layout), order_(order) {
  RMGSORT_EXPECTS(layout.valid(), "UniqueFilter: a valid layout");
}

std::uint64_t UniqueFilter::keep_firsts(std::byte* records, std::uint64_t* positions, std::uint64_t count) {
  if (count == 0) return 0;
  const std::size_t size = layout_.record_size;
  const std::uint64_t blocks = (count + kBlockRecords - 1) / kBlockRecords;
  std::vector<std::uint64_t> kept(blocks);
  visit_rank(layout_, order_, [&](const auto& rank) {
    const auto differs = [&](const std::byte* a, const std::byte* b) { return compare_ranks(rank, a, b) != 0; };
    // Whether each block's first record starts a run, decided before any record moves.
    std::vector<char> first_starts(blocks);
    for (std::uint64_t b = 0; b < blocks; ++b) {
      const std::byte* first = records + b * kBlockRecords * size;
      const std::byte* before = b > 0 ? first - size : last_.empty() ? nullptr : last_.data();
      first_starts[b] = before == nullptr || differs(before, first);
    }
    // Each block compacted in itself.
    tbb::parallel_for(std::uint64_t{0}, blocks, [&](std::uint64_t b) {
      const std::uint64_t begin = b * kBlockRecords, end = std::min(count, begin + kBlockRecords);
      const Block block{records, positions, begin, end, first_starts[b] != 0, size};
      // The common sizes' copies inlined, and without a branch: 2^26 u64 keys with 37 % duplicates
      // on two cores, the filter 0.34 s with a memcpy call and a branch per record, 0.10 s without.
      switch (size) {
        case 4: kept[b] = compact<4>(block, differs); break;
        case 8: kept[b] = compact<8>(block, differs); break;
        case 16: kept[b] = compact<16>(block, differs); break;
        default: kept[b] = compact<0>(block, differs); break;
      }
    });
  });
  // The blocks' kept records moved together, in order, from every thread (one H200 host, 2^30 u64
  // keys in memory with --unique: its phase 1.4-2.6 s -> 0.45-0.87 s together with the copies
  // below, bench_results/2026-12-02-unique-move-down-h200.md).
  std::uint64_t total = 0;
  std::vector<MovePiece> record_pieces(blocks), position_pieces(positions != nullptr ? blocks : 0);
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::uint64_t begin = b * kBlockRecords;
    record_pieces[b] = {records + begin * size, kept[b] * size};
    if (positions != nullptr) position_pieces[b] = {as_bytes(positions + begin), kept[b] * sizeof(std::uint64_t)};
    total += kept[b];
  }
  move_down(records, record_pieces);
  if (positions != nullptr) move_down(as_bytes(positions), position_pieces);
  // The run the round ends may go on in the next one. (Kept none: every record was the last run's.)
  if (total > 0) last_.assign(records + (total - 1) * size, records + total * size);
  dropped_ += count - total;
  return total;
}

SortedRound UniqueFilter::keep_firsts(const SortedRound& round) {
  auto* records = const_cast<std::byte*>(round.records.data());
  auto* positions = round.positions.empty() ? nullptr : const_cast<std::uint64_t*>(round.positions.data());
  const std::uint64_t kept = keep_firsts(records, positions, round.records.size() / layout_.record_size);
  return {round.records.first(kept * layout_.record_size), round.positions.first(positions ? kept : 0)};
}

}  // namespace rmgsort
