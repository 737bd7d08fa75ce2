// Parallel CPU radix sort (oneTBB) of keys in the order of key_order.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "core/key_order.hpp"
#include "core/key_type.hpp"

namespace rmgsort {

// Bytes of scratch memory radix_sort needs beside the keys: one buffer of the same size.
[[nodiscard]] constexpr std::uint64_t radix_sort_scratch_bytes(KeyType type, std::uint64_t keys) {
  return keys * key_width(type);
}

// Told, by whichever thread placed them, how many keys have reached their sorted place (--progress):
// once for each chunk of buckets a parallel pass hands a thread (the cache-sized buckets it
// finished, summed), and once for a range that ends whole (all keys equal, the last digit done, an
// input of at most a cache's size). So at most one call a bucket of a parallel pass: 2^22 uniform
// u64 keys make 128 calls (one per 2^15 keys) with 1, 2 or 8 threads. The calls of one sort add
// up to its n.
using SortedKeysHook = std::function<void(std::size_t keys)>;

// Sorts keys[0, n) in `order`; `scratch` must hold n keys and may alias nothing else. Runs on the
// current oneTBB arena (its concurrency is the caller's --threads). Synchronous. SORTED, when not
// empty, is told the keys placed as the sort goes.
//
// Out-of-place MSD radix sort on the encoded radix bits: parallel passes while a range is large,
// sequential ones once it fits a core's cache. A pass first reduces the range's keys to the bits
// in which they differ, so constant leading bits (skew, narrow ranges, all-equal keys) cost one
// read-only pass and no scatter.
template <class T>
void radix_sort(T* keys, std::size_t n, SortOrder order, T* scratch, const SortedKeysHook& sorted = {});

}  // namespace rmgsort
