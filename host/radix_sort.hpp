// Parallel CPU radix sort (oneTBB) of keys in the order of key_order.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/key_order.hpp"
#include "core/key_type.hpp"

namespace rmgsort {

// Bytes of scratch memory radix_sort needs beside the keys: one buffer of the same size.
[[nodiscard]] constexpr std::uint64_t radix_sort_scratch_bytes(KeyType type, std::uint64_t keys) {
  return keys * key_width(type);
}

// Sorts keys[0, n) in `order`; `scratch` must hold n keys and may alias nothing else. Runs on the
// current oneTBB arena (its concurrency is the caller's --threads). Synchronous.
//
// Out-of-place MSD radix sort on the encoded radix bits: parallel passes while a range is large,
// sequential ones once it fits a core's cache. A pass first reduces the range's keys to the bits
// in which they differ, so constant leading bits (skew, narrow ranges, all-equal keys) cost one
// read-only pass and no scatter.
template <class T>
void radix_sort(T* keys, std::size_t n, SortOrder order, T* scratch);

}  // namespace rmgsort
