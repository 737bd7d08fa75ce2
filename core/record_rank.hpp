// A record's key as the sort order sees it: a sequence of 64-bit "rank words" such that comparing
// two records' words lexicographically, as unsigned integers, compares their keys in the sort order
// (KeyOrder for numbers, with the layout's NaN rule; memcmp order for bytes:N, reversed when
// descending). Equal words mean equal keys: those records keep their input order.
//
//   numbers  one word: KeyOrder<T, order>::encode(key), or rank(key) when every NaN ranks the same
//   bytes:N  ceil(N / 8) words: bytes [8w, 8w + 8) of the key, big-endian, zero-padded past N;
//            complemented when descending (the padding then is all ones in every key alike)
//
// visit_rank() instantiates a loop once per key type, order and NaN rule, so that the hot loops
// (tags, classification, sampling) read a key with no switch per record.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"

namespace rmgsort {

template <class T, SortOrder kOrder, bool kEqualNans>
struct NumberRank {
  std::size_t key_offset = 0;

  [[nodiscard]] int words() const { return 1; }
  [[nodiscard]] std::uint64_t word(const std::byte* record, int /*w*/) const {
    T key;
    std::memcpy(&key, record + key_offset, sizeof(T));
    if constexpr (kEqualNans) return KeyOrder<T, kOrder>::rank(key);
    return KeyOrder<T, kOrder>::encode(key);
  }
};

template <SortOrder kOrder>
struct BytesRank {
  std::size_t key_offset = 0;
  std::size_t key_size = 1;

  [[nodiscard]] int words() const { return int((key_size + 7) / 8); }
  [[nodiscard]] std::uint64_t word(const std::byte* record, int w) const {
    const std::size_t first = std::size_t(w) * 8;
    std::uint64_t big_endian = 0;
    if (first + 8 <= key_size) {
      std::memcpy(&big_endian, record + key_offset + first, 8);
    } else {
      std::memcpy(&big_endian, record + key_offset + first, key_size - first);
    }
    const std::uint64_t value = std::endian::native == std::endian::little ? __builtin_bswap64(big_endian) : big_endian;
    return kOrder == SortOrder::descending ? ~value : value;
  }
};

// -1, 0 or 1 as record a's key ranks before, with, or after record b's.
template <class Rank>
[[nodiscard]] int compare_ranks(const Rank& rank, const std::byte* a, const std::byte* b) {
  for (int w = 0; w < rank.words(); ++w) {
    const std::uint64_t x = rank.word(a, w), y = rank.word(b, w);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

// Calls f(rank) with the rank type of LAYOUT's key in ORDER; returns what f returns.
template <class F>
decltype(auto) visit_rank(const RecordLayout& layout, SortOrder order, F&& f) {
  if (layout.key_type == KeyType::bytes) {
    if (order == SortOrder::ascending) return std::forward<F>(f)(BytesRank<SortOrder::ascending>{layout.key_offset, layout.key_size});
    return std::forward<F>(f)(BytesRank<SortOrder::descending>{layout.key_offset, layout.key_size});
  }
  return visit_key_type(layout.key_type, [&]<class T>(T) -> decltype(auto) {
    const auto with_order = [&]<SortOrder kOrder>() -> decltype(auto) {
      if (std::is_floating_point_v<T> && layout.equal_nans)
        return std::forward<F>(f)(NumberRank<T, kOrder, true>{layout.key_offset});
      return std::forward<F>(f)(NumberRank<T, kOrder, false>{layout.key_offset});
    };
    if (order == SortOrder::ascending) return with_order.template operator()<SortOrder::ascending>();
    return with_order.template operator()<SortOrder::descending>();
  });
}

}  // namespace rmgsort
