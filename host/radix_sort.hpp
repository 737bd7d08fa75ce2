// Parallel CPU radix sort (oneTBB) of keys in the order of key_order.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "core/key_order.hpp"
#include "core/key_type.hpp"

namespace rmgsort {

// Bytes radix_sort allocates beside `keys` keys of `type` on the current oneTBB arena, at most:
// the cache-sized ranges' buffers (each thread's as large as the largest range it sorted: at most
// the keys, at most kSequentialKeys a thread) and, for more keys than that, the in-place passes'
// stripe buffers (about two a thread, radix_config::kStripeBufferBytes each). For 2^30 u64 keys on
// 32 threads: 49 MiB, 0.6 % of the keys' 8 GiB (the out-of-place sort took 8 GiB).
[[nodiscard]] std::uint64_t radix_sort_scratch_bytes(KeyType type, std::uint64_t keys);

// Told, by whichever thread placed them, how many keys have reached their sorted place (--progress):
// once for each chunk of buckets a parallel pass hands a thread (the cache-sized buckets it
// finished, summed), and once for a range that ends whole (all keys equal, the last digit done, an
// input of at most a cache's size). So at most one call a bucket of a parallel pass: 2^22 uniform
// u64 keys make 128 calls (one per 2^15 keys) with 1, 2 or 8 threads. The calls of one sort add
// up to its n.
using SortedKeysHook = std::function<void(std::size_t keys)>;

// Told, by whichever thread finished them, that keys[0, k) are sorted, in their final place and
// form (decoded), so that they may be read (written out) while the sort goes on; the sort does not
// touch them again. The calls do not overlap, k grows from call to call, and the last one has
// k = n (none for n = 0); each should return quickly, as sorting threads wait on it. The prefix
// grows bucket by bucket of the first parallel pass (at most 256 calls; its buckets are sorted in
// ascending order): 2^30 uniform u64 keys make 256 calls of 2^22 keys. An input that needs no such
// pass (at most a cache's size, presorted, all keys equal) makes one call, when it is sorted.
using SortedPrefixHook = std::function<void(std::size_t keys)>;

// Sorts keys[0, n) in `order`, in place. Runs on the current oneTBB arena (its concurrency is the
// caller's --threads). Synchronous. SORTED, when not empty, is told the keys placed as the sort goes;
// PREFIX, when not empty, the sorted prefix as it grows.
// Not stable, which no caller can tell: keys of equal radix bits are the same bytes.
//
// MSD radix sort on the encoded radix bits: in-place block passes (IPS²Ra's, host/radix_block_partition.hpp)
// while a range is larger than a core's cache, then out-of-place passes between the range and a
// buffer of the thread's own (host/radix_sort_cache.hpp). Each pass takes its digit below the
// leading bits in which the range's keys agree, so constant leading bits (skew, narrow ranges)
// cost no pass, and all-equal keys one read.
template <class T>
void radix_sort(T* keys, std::size_t n, SortOrder order, const SortedKeysHook& sorted = {},
                const SortedPrefixHook& prefix = {});

}  // namespace rmgsort
