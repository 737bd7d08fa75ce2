#include "host/order_check.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <cstring>

#include "core/error.hpp"

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

void OrderChecker::feed(const std::byte* data, std::uint64_t bytes) {
  const std::size_t width = key_width(type_);
  RMGSORT_EXPECTS(bytes % width == 0, "order check fed a partial key");
  const std::uint64_t n = bytes / width;
  if (n == 0) return;
  visit_key_type(type_, [&]<class T>(T) {
    const T* keys = reinterpret_cast<const T*>(data);
    if (first_disorder_) return;
    if (keys_seen_ > 0) {
      T previous;
      std::memcpy(&previous, &last_key_bits_, sizeof(T));
      const bool out_of_order = order_ == SortOrder::ascending
                                    ? KeyLess<T, SortOrder::ascending>{}(keys[0], previous)
                                    : KeyLess<T, SortOrder::descending>{}(keys[0], previous);
      if (out_of_order) first_disorder_ = keys_seen_;
    }
    if (!first_disorder_) {
      if (auto at = find_disorder(keys, n, order_)) first_disorder_ = keys_seen_ + *at;
    }
    last_key_bits_ = 0;
    std::memcpy(&last_key_bits_, keys + n - 1, sizeof(T));
  });
  keys_seen_ += n;
}

}  // namespace rmgsort
