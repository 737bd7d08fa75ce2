#include "host/merge_prefix.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/record_rank.hpp"
#include "host/run_search.hpp"

namespace rmgsort {
namespace {

template <class Rank>
std::vector<std::uint64_t> prefix_with(const Rank& rank, std::span<const MergeRun> runs,
                                       std::span<const std::uint8_t> ended) {
  const std::size_t k = runs.size();
  std::vector<std::uint64_t> take(k);
  // j: the first window of an input that goes on whose last key is the smallest such.
  std::size_t j = k;
  for (std::size_t i = 0; i < k; ++i) {
    if (ended[i] != 0) continue;
    RMGSORT_EXPECTS(runs[i].count > 0, "mergeable_prefix: the window of an input that goes on holds a record");
    if (j == k || compare_ranks(rank, runs[i].record(runs[i].count - 1), runs[j].record(runs[j].count - 1)) < 0) j = i;
  }
  for (std::size_t i = 0; i < k; ++i) take[i] = runs[i].count;
  if (j == k) return take;  // every input ended
  const std::byte* m = runs[j].record(runs[j].count - 1);
  for (std::size_t i = 0; i < k; ++i)
    if (i != j) take[i] = run_bound(rank, runs[i], m, /*upper=*/i < j);
  return take;
}

template <class Rank>
std::optional<std::uint64_t> descent_with(const Rank& rank, const std::byte* records, std::uint64_t n,
                                          std::size_t stride, const std::byte* previous_key) {
  if (n == 0) return std::nullopt;
  if (previous_key != nullptr) {
    Rank kept = rank;  // the kept key stands alone: its key at offset 0
    kept.key_offset = 0;
    for (int w = 0; w < rank.words(); ++w) {
      const std::uint64_t x = rank.word(records, w), y = kept.word(previous_key, w);
      if (x != y) {
        if (x < y) return 0;
        break;
      }
    }
  }
  constexpr std::uint64_t kNone = UINT64_MAX;
  // Each piece [b, e) compares the pairs (i - 1, i) for i in [max(b, 1), e); the minimum wins.
  const auto scan = [&](std::uint64_t b, std::uint64_t e) {
    for (std::uint64_t i = std::max<std::uint64_t>(b, 1); i < e; ++i)
      if (compare_ranks(rank, records + i * stride, records + (i - 1) * stride) < 0) return i;
    return kNone;
  };
  // 512 KiB of records per piece, as host/order_check.cpp's scan.
  const std::uint64_t grain = std::max<std::uint64_t>(1, (std::uint64_t{512} << 10) / stride);
  const std::uint64_t first =
      n <= grain ? scan(0, n)
                 : tbb::parallel_reduce(
                       tbb::blocked_range<std::uint64_t>(0, n, grain), kNone,
                       [&](const tbb::blocked_range<std::uint64_t>& r, std::uint64_t found) {
                         return r.begin() > found ? found : std::min(found, scan(r.begin(), r.end()));
                       },
                       [](std::uint64_t x, std::uint64_t y) { return std::min(x, y); });
  if (first == kNone) return std::nullopt;
  return first;
}

}  // namespace

std::vector<std::uint64_t> mergeable_prefix(const RecordLayout& layout, SortOrder order, std::span<const MergeRun> runs,
                                            std::span<const std::uint8_t> ended) {
  RMGSORT_EXPECTS(layout.valid() && ended.size() == runs.size(), "mergeable_prefix: one ended flag per run");
  return visit_rank(layout, order, [&](const auto& rank) { return prefix_with(rank, runs, ended); });
}

std::optional<std::uint64_t> first_descent(const RecordLayout& layout, SortOrder order, const std::byte* records,
                                           std::uint64_t n, std::size_t stride, const std::byte* previous_key) {
  RMGSORT_EXPECTS(layout.valid() && stride >= layout.record_size, "first_descent: whole records");
  return visit_rank(layout, order,
                    [&](const auto& rank) { return descent_with(rank, records, n, stride, previous_key); });
}

}  // namespace rmgsort
