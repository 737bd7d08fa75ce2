#include "host/order_check.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <cstring>
#include <utility>

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

// Whether two keys the check ranks the same are one key, as --unique compares them: in the total
// order bare float keys order their NaNs by bit pattern (core/record_layout.hpp), so there two NaNs
// are one key only when their bits are; elsewhere equal ranks are equal keys.
struct SameKey {
  std::size_t key_offset = 0;
  std::size_t key_size = 0;
  bool by_bits = false;

  SameKey(const RecordLayout& layout, FloatOrder float_order)
      : key_offset(layout.key_offset),
        key_size(layout.key_size),
        by_bits(float_order == FloatOrder::total && !layout.equal_nans &&
                (layout.key_type == KeyType::f32 || layout.key_type == KeyType::f64)) {}

  // A and B point at the two keys.
  [[nodiscard]] bool operator()(const std::byte* a, const std::byte* b) const {
    return !by_bits || std::memcmp(a, b, key_size) == 0;
  }
};

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
OrderScan scan_records(const Rank& rank, const SameKey& same_key, const std::byte* records, std::size_t n,
                       std::size_t record_size) {
  // Each piece [b, e) compares the pairs (i - 1, i) for i in [max(b, 1), e); the pieces' first
  // disorders combine by minimum, their duplicates by sum, so any split gives the same answer.
  const auto scan = [&](std::size_t b, std::size_t e, OrderScan found) {
    for (std::size_t i = std::max<std::size_t>(b, 1); i < e; ++i) {
      const std::byte* record = records + i * record_size;
      const std::byte* previous = record - record_size;
      const int c = compare_ranks(rank, record, previous);
      if (c == 0 && same_key(record + same_key.key_offset, previous + same_key.key_offset)) ++found.duplicate_keys;
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

// A floating-point key under FloatOrder::ieee: KeyOrder's rank of the key with -0.0 read as +0.0,
// so that both zeros rank the same and every NaN ranks after every number (in both directions).
template <class T, SortOrder kOrder>
struct IeeeNumberRank {
  std::size_t key_offset = 0;

  [[nodiscard]] int words() const { return 1; }
  [[nodiscard]] std::uint64_t word(const std::byte* record, int /*w*/) const {
    T key;
    std::memcpy(&key, record + key_offset, sizeof(T));
    if (key == T(0)) key = T(0);  // -0.0 == 0.0
    return KeyOrder<T, kOrder>::rank(key);
  }
};

// LAYOUT as the checks rank it: every NaN the same.
RecordLayout checked_layout(RecordLayout layout) {
  RMGSORT_EXPECTS(layout.valid(), "order check: the key must fit the record");
  layout.equal_nans = true;
  return layout;
}

// Calls f(rank) with the rank a check compares LAYOUT's keys by (LAYOUT as checked_layout() gives it).
template <class F>
decltype(auto) visit_check_rank(const RecordLayout& layout, SortOrder order, FloatOrder float_order, F&& f) {
  if (float_order == FloatOrder::ieee && (layout.key_type == KeyType::f32 || layout.key_type == KeyType::f64)) {
    const auto with_type = [&]<class T>() -> decltype(auto) {
      if (order == SortOrder::ascending) return f(IeeeNumberRank<T, SortOrder::ascending>{layout.key_offset});
      return f(IeeeNumberRank<T, SortOrder::descending>{layout.key_offset});
    };
    if (layout.key_type == KeyType::f32) return with_type.template operator()<float>();
    return with_type.template operator()<double>();
  }
  return visit_rank(layout, order, std::forward<F>(f));
}

}  // namespace

OrderScan scan_order(const std::byte* records, std::size_t n, const RecordLayout& layout, SortOrder order,
                     FloatOrder float_order) {
  const SameKey same_key(layout, float_order);
  return visit_check_rank(checked_layout(layout), order, float_order, [&](const auto& rank) {
    return scan_records(rank, same_key, records, n, layout.record_size);
  });
}

std::optional<std::size_t> find_disorder(const std::byte* records, std::size_t n, const RecordLayout& layout,
                                         SortOrder order, FloatOrder float_order) {
  const OrderScan scan = scan_order(records, n, layout, order, float_order);
  if (!scan.first_disorder) return std::nullopt;
  return std::size_t(*scan.first_disorder);
}

OrderChecker::OrderChecker(const RecordLayout& layout, SortOrder order, FloatOrder float_order)
    : layout_(checked_layout(layout)),
      order_(order),
      float_order_(float_order),
      equal_nans_(layout.equal_nans) {}

void OrderChecker::feed(const std::byte* data, std::uint64_t bytes) {
  const std::size_t size = layout_.record_size;
  RMGSORT_EXPECTS(bytes % size == 0, "order check fed a partial record");
  const std::uint64_t n = bytes / size;
  if (n == 0) return;
  const std::byte* keys = data + layout_.key_offset;  // record i's key at keys + i * size
  const auto note_disorder = [&](std::uint64_t i, const std::byte* previous, const std::byte* key) {
    disorder_ = Disorder{records_seen_ + i, {}, {}};
    std::memcpy(disorder_->previous.data(), previous, layout_.key_size);
    std::memcpy(disorder_->key.data(), key, layout_.key_size);
    scan_.first_disorder = disorder_->index;
  };
  RecordLayout as_sorted = layout_;
  as_sorted.equal_nans = equal_nans_;
  const SameKey same_key(as_sorted, float_order_);
  visit_check_rank(layout_, order_, float_order_, [&](const auto& rank) {
    if (records_seen_ > 0) {  // the pair across the chunk boundary: the kept key against the first record
      auto kept = rank;
      kept.key_offset = 0;
      const int c = compare_keys(rank, data, kept, last_key_.data());
      if (c == 0 && same_key(keys, last_key_.data())) ++scan_.duplicate_keys;
      if (c < 0 && !disorder_) note_disorder(0, last_key_.data(), keys);
    }
    const OrderScan chunk = scan_records(rank, same_key, data, std::size_t(n), size);
    if (chunk.first_disorder && !disorder_) {
      const std::uint64_t i = *chunk.first_disorder;
      note_disorder(i, keys + (i - 1) * size, keys + i * size);
    }
    scan_.duplicate_keys += chunk.duplicate_keys;
  });
  std::memcpy(last_key_.data(), keys + (n - 1) * size, layout_.key_size);
  records_seen_ += n;
}

}  // namespace rmgsort
