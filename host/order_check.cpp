#include "host/order_check.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "core/record_rank.hpp"

namespace rmgsort {
namespace {

template <class T, SortOrder kOrder>
std::optional<std::size_t> find_disorder_in(const T* keys, std::size_t n) {
  using Order = KeyOrder<T, kOrder>;
  constexpr std::size_t kNone = SIZE_MAX;
  constexpr std::size_t kGrain = std::size_t{1} << 16;
  // Each piece [b, e) checks the pairs (i - 1, i) for i in [max(b, 1), e); the minimum wins.
  const auto scan = [keys](std::size_t b, std::size_t e) {
    for (std::size_t i = std::max<std::size_t>(b, 1); i < e; ++i)
      if (Order::rank(keys[i]) < Order::rank(keys[i - 1])) return i;
    return kNone;
  };
  const std::size_t first =
      n <= kGrain ? scan(0, n)
                  : tbb::parallel_reduce(
                        tbb::blocked_range<std::size_t>(0, n, kGrain), kNone,
                        [&](const tbb::blocked_range<std::size_t>& r, std::size_t found) {
                          // A piece after an earlier finding cannot lower the minimum.
                          return r.begin() > found ? found : std::min(found, scan(r.begin(), r.end()));
                        },
                        [](std::size_t x, std::size_t y) { return std::min(x, y); });
  if (first == kNone) return std::nullopt;
  return first;
}

}  // namespace

template <class T>
std::optional<std::size_t> find_disorder(const T* keys, std::size_t n, SortOrder order) {
  return order == SortOrder::ascending ? find_disorder_in<T, SortOrder::ascending>(keys, n)
                                       : find_disorder_in<T, SortOrder::descending>(keys, n);
}

template std::optional<std::size_t> find_disorder(const std::uint32_t*, std::size_t, SortOrder);
template std::optional<std::size_t> find_disorder(const std::uint64_t*, std::size_t, SortOrder);
template std::optional<std::size_t> find_disorder(const std::int32_t*, std::size_t, SortOrder);
template std::optional<std::size_t> find_disorder(const std::int64_t*, std::size_t, SortOrder);
template std::optional<std::size_t> find_disorder(const float*, std::size_t, SortOrder);
template std::optional<std::size_t> find_disorder(const double*, std::size_t, SortOrder);

namespace {

// -1, 0 or 1 as key A (read by RANK_A from A) ranks before, with or after key B (read by RANK_B).
template <class Rank>
int compare_keys(const Rank& rank_a, const std::byte* a, const Rank& rank_b, const std::byte* b) {
  for (int w = 0; w < rank_a.words(); ++w) {
    const std::uint64_t x = rank_a.word(a, w), y = rank_b.word(b, w);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

template <class Rank>
OrderScan scan_records(const Rank& rank, const std::byte* records, std::size_t n, std::size_t record_size) {
  // Each piece [b, e) compares the pairs (i - 1, i) for i in [max(b, 1), e); the pieces' first
  // disorders combine by minimum, their duplicates by sum, so any split gives the same answer.
  const auto scan = [&](std::size_t b, std::size_t e, OrderScan found) {
    for (std::size_t i = std::max<std::size_t>(b, 1); i < e; ++i) {
      const int c = compare_ranks(rank, records + i * record_size, records + (i - 1) * record_size);
      if (c == 0) ++found.duplicate_keys;
      if (c < 0 && !(found.first_disorder && *found.first_disorder < i)) found.first_disorder = i;
    }
    return found;
  };
  const auto combine = [](OrderScan x, const OrderScan& y) {
    if (y.first_disorder && !(x.first_disorder && *x.first_disorder < *y.first_disorder))
      x.first_disorder = y.first_disorder;
    x.duplicate_keys += y.duplicate_keys;
    return x;
  };
  // 512 KiB of records per piece (at least one), as many bytes as 64 Ki u64 keys.
  const std::size_t grain = std::max<std::size_t>(1, (std::size_t{512} << 10) / record_size);
  if (n <= grain) return scan(0, n, OrderScan{});
  return tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, n, grain), OrderScan{},
      [&](const tbb::blocked_range<std::size_t>& r, OrderScan found) { return scan(r.begin(), r.end(), found); },
      combine);
}

// LAYOUT as the checks rank it: every NaN the same.
RecordLayout checked_layout(RecordLayout layout) {
  RMGSORT_EXPECTS(layout.valid(), "order check: the key must fit the record");
  layout.equal_nans = true;
  return layout;
}

}  // namespace

OrderScan scan_order(const std::byte* records, std::size_t n, const RecordLayout& layout, SortOrder order) {
  return visit_rank(checked_layout(layout), order,
                    [&](const auto& rank) { return scan_records(rank, records, n, layout.record_size); });
}

std::optional<std::size_t> find_disorder(const std::byte* records, std::size_t n, const RecordLayout& layout,
                                         SortOrder order) {
  const OrderScan scan = scan_order(records, n, layout, order);
  if (!scan.first_disorder) return std::nullopt;
  return std::size_t(*scan.first_disorder);
}

OrderChecker::OrderChecker(const RecordLayout& layout, SortOrder order) : layout_(checked_layout(layout)), order_(order) {}

void OrderChecker::feed(const std::byte* data, std::uint64_t bytes) {
  const std::size_t size = layout_.record_size;
  RMGSORT_EXPECTS(bytes % size == 0, "order check fed a partial record");
  const std::uint64_t n = bytes / size;
  if (n == 0) return;
  visit_rank(layout_, order_, [&](const auto& rank) {
    if (records_seen_ > 0) {  // the pair across the chunk boundary: the kept key against the first record
      auto kept = rank;
      kept.key_offset = 0;
      const int c = compare_keys(rank, data, kept, last_key_.data());
      if (c == 0) ++scan_.duplicate_keys;
      if (c < 0 && !scan_.first_disorder) scan_.first_disorder = records_seen_;
    }
    const OrderScan chunk = scan_records(rank, data, std::size_t(n), size);
    if (chunk.first_disorder && !scan_.first_disorder) scan_.first_disorder = records_seen_ + *chunk.first_disorder;
    scan_.duplicate_keys += chunk.duplicate_keys;
  });
  std::memcpy(last_key_.data(), data + (n - 1) * size + layout_.key_offset, layout_.key_size);
  records_seen_ += n;
}

}  // namespace rmgsort
