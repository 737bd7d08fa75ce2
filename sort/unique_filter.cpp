#include "sort/unique_filter.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "core/record_rank.hpp"

namespace rmgsort {
namespace {

// Records per block: enough work to be worth a task, and few blocks to move in the serial step.
constexpr std::uint64_t kBlockRecords = std::uint64_t{1} << 16;

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
    // Each block compacted in itself. Record i is compared with record i - 1 as it was: a write goes
    // to a slot at or before the record being read, and slot i - 1 is written at record i - 1 only,
    // by itself (skipped), so it still holds record i - 1 when record i is read.
    tbb::parallel_for(std::uint64_t{0}, blocks, [&](std::uint64_t b) {
      const std::uint64_t begin = b * kBlockRecords, end = std::min(count, begin + kBlockRecords);
      std::uint64_t out = begin;
      for (std::uint64_t i = begin; i < end; ++i) {
        const bool starts = i == begin ? first_starts[b] != 0 : differs(records + (i - 1) * size, records + i * size);
        if (!starts) continue;
        if (out != i) {
          std::memcpy(records + out * size, records + i * size, size);
          if (positions != nullptr) positions[out] = positions[i];
        }
        ++out;
      }
      kept[b] = out - begin;
    });
  });
  // The blocks' kept records moved together, in order: each moves down (never past a block not yet
  // moved), so memmove in block order is safe.
  std::uint64_t total = 0;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::uint64_t begin = b * kBlockRecords;
    if (total != begin && kept[b] > 0) {
      std::memmove(records + total * size, records + begin * size, kept[b] * size);
      if (positions != nullptr) std::memmove(positions + total, positions + begin, kept[b] * sizeof(std::uint64_t));
    }
    total += kept[b];
  }
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
