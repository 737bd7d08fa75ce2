#include "host/multiway_merge.hpp"

#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/error.hpp"
#include "core/record_rank.hpp"
#include "host/merge_tree.hpp"
#include "host/run_search.hpp"

namespace rmgsort {
namespace {

// A part should hold at least this many records: below it, the binary searches and the tasks of
// one more part cost more than the records it takes off the others.
constexpr std::uint64_t kMinPartRecords = std::uint64_t{1} << 14;

// Samples between two splitters, at least: with k runs, k keeps every part within twice its share
// (see the top of the header); 32 keeps the shares even when the runs are few.
constexpr std::uint64_t kMinSamplesPerPart = 32;

// Copies a record of SIZE bytes, or of kSize when that is not 0 (a memcpy of a constant size is a
// move or two instead of a call).
template <std::size_t kSize>
inline void copy_record(std::byte* dst, const std::byte* src, std::size_t size) {
  if constexpr (kSize > 0) {
    std::memcpy(dst, src, kSize);
  } else {
    std::memcpy(dst, src, size);
  }
}

// Copies the merged entries into TARGET from its record FIRST on: each record (and, when the target
// takes them, its position after it and/or in the positions array).
template <std::size_t kSize, bool kPositions, class Rank>
void merge_pieces(const Rank& rank, std::vector<MergeRun> pieces, std::size_t record_size, const MergeTarget& target,
                  std::uint64_t first) {
  MergeTree<Rank, kPositions> tree(rank, std::move(pieces));
  std::byte* out = target.records == nullptr ? nullptr : target.records + first * target.stride;
  if constexpr (!kPositions) {
    tree.drain([&](const MergeEntry<false>& entry) {
      copy_record<kSize>(out, entry.record, record_size);
      out += target.stride;
    });
  } else {
    const bool append_position = target.stride > record_size;  // stride == record_size + 8
    std::uint64_t* positions = target.positions == nullptr ? nullptr : target.positions + first;
    tree.drain([&](const MergeEntry<true>& entry) {
      if (out != nullptr) {
        copy_record<kSize>(out, entry.record, record_size);
        if (append_position) std::memcpy(out + record_size, &entry.position, 8);
        out += target.stride;
      }
      if (positions != nullptr) *positions++ = entry.position;
    });
  }
}

template <std::size_t kSize, class Rank>
void merge_part_with(const Rank& rank, const RecordLayout& layout, std::span<const MergeRun> runs,
                     std::span<const std::uint64_t> from, std::span<const std::uint64_t> to, const MergeTarget& target,
                     std::uint64_t first) {
  std::vector<MergeRun> pieces;  // the runs' pieces that hold records, in input order
  for (std::size_t i = 0; i < runs.size(); ++i) {
    RMGSORT_EXPECTS(from[i] <= to[i] && to[i] <= runs[i].count, "merge_part: a piece within its run");
    if (from[i] == to[i]) continue;
    const MergeRun& run = runs[i];
    pieces.push_back({run.record(from[i]), to[i] - from[i], run.stride, run.carries_positions,
                      run.first_position + from[i]});
  }
  if (pieces.empty()) return;
  RMGSORT_EXPECTS(target.records != nullptr || target.positions != nullptr,
                  "merge_part: a target of records or positions");
  // The target takes no positions (the common case: no --index-output): none is looked at.
  if (target.positions != nullptr || target.stride > layout.record_size) {
    merge_pieces<kSize, true>(rank, std::move(pieces), layout.record_size, target, first);
  } else {
    merge_pieces<kSize, false>(rank, std::move(pieces), layout.record_size, target, first);
  }
}

struct Sample {
  std::uint32_t run = 0;
  std::uint64_t index = 0;
};

template <class Rank>
void split_with(const Rank& rank, std::span<const MergeRun> runs, std::size_t parts, std::vector<std::uint64_t>& cuts) {
  const std::size_t k = runs.size();
  std::uint64_t total = 0;
  for (const MergeRun& run : runs) total += run.count;
  const std::uint64_t wanted = parts * std::max<std::uint64_t>(k, kMinSamplesPerPart);
  const std::uint64_t every = std::max<std::uint64_t>(1, total / wanted);
  std::vector<Sample> samples;
  samples.reserve(total / every + k);
  for (std::size_t i = 0; i < k; ++i)
    for (std::uint64_t r = every - 1; r < runs[i].count; r += every) samples.push_back({std::uint32_t(i), r});
  if (samples.empty()) return;  // (cannot be: some run holds at least `every` records)
  tbb::parallel_sort(samples.begin(), samples.end(), [&](const Sample& a, const Sample& b) {
    const int c = compare_ranks(rank, runs[a.run].record(a.index), runs[b.run].record(b.index));
    if (c != 0) return c < 0;
    return a.run != b.run ? a.run < b.run : a.index < b.index;
  });
  tbb::parallel_for(std::size_t{1}, parts, [&](std::size_t t) {
    const Sample& splitter = samples[t * samples.size() / parts];
    const std::byte* key = runs[splitter.run].record(splitter.index);
    for (std::size_t i = 0; i < k; ++i) {
      std::uint64_t& cut = cuts[t * k + i];
      if (i == splitter.run) {
        cut = splitter.index;
      } else {
        cut = run_bound(rank, runs[i], key, /*upper=*/i < splitter.run);
      }
    }
  });
}

// Calls f(rank, size) with LAYOUT's rank in ORDER and the record size as a constant where it is a
// common one (std::integral_constant), else 0.
template <class F>
void visit_merge(const RecordLayout& layout, SortOrder order, F&& f) {
  visit_rank(layout, order, [&](const auto& rank) {
    switch (layout.record_size) {
      case 4: f(rank, std::integral_constant<std::size_t, 4>{}); break;
      case 8: f(rank, std::integral_constant<std::size_t, 8>{}); break;
      case 16: f(rank, std::integral_constant<std::size_t, 16>{}); break;
      default: f(rank, std::integral_constant<std::size_t, 0>{}); break;
    }
  });
}

}  // namespace

std::vector<std::uint64_t> split_runs(const RecordLayout& layout, SortOrder order, std::span<const MergeRun> runs,
                                      std::size_t parts) {
  RMGSORT_EXPECTS(layout.valid() && parts >= 1, "split_runs: a valid layout and at least one part");
  const std::size_t k = runs.size();
  std::vector<std::uint64_t> cuts((parts + 1) * k, 0);
  for (std::size_t i = 0; i < k; ++i) cuts[parts * k + i] = runs[i].count;
  if (parts == 1 || k == 0) return cuts;
  visit_rank(layout, order, [&](const auto& rank) { split_with(rank, runs, parts, cuts); });
  return cuts;
}

void merge_part(const RecordLayout& layout, SortOrder order, std::span<const MergeRun> runs,
                std::span<const std::uint64_t> from, std::span<const std::uint64_t> to, const MergeTarget& target,
                std::uint64_t first) {
  RMGSORT_EXPECTS(from.size() == runs.size() && to.size() == runs.size(), "merge_part: one piece per run");
  visit_merge(layout, order, [&](const auto& rank, auto size) {
    merge_part_with<decltype(size)::value>(rank, layout, runs, from, to, target, first);
  });
}

void merge_runs(const RecordLayout& layout, SortOrder order, std::span<const MergeRun> runs, const MergeTarget& target,
                std::size_t parts) {
  const std::size_t k = runs.size();
  if (k == 0) return;
  parts = std::max<std::size_t>(parts, 1);
  const std::vector<std::uint64_t> cuts = split_runs(layout, order, runs, parts);
  const auto row = [&](std::size_t t) { return std::span<const std::uint64_t>(cuts.data() + t * k, k); };
  tbb::parallel_for(std::size_t{0}, parts, [&](std::size_t t) {
    const std::span<const std::uint64_t> from = row(t);
    const std::uint64_t first = std::accumulate(from.begin(), from.end(), std::uint64_t{0});
    merge_part(layout, order, runs, from, row(t + 1), target, first);
  });
}

std::size_t merge_parts_for(std::uint64_t records, std::size_t threads) {
  return std::size_t(std::clamp<std::uint64_t>(records / kMinPartRecords, 1, std::max<std::size_t>(threads, 1)));
}

}  // namespace rmgsort
