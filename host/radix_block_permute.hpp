// Step 3 of the in-place radix pass (host/radix_block_partition.hpp): threads swap whole blocks
// into their buckets' regions. Included by that file only.
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <atomic>
#include <cstring>
#include <thread>

#include "host/radix_block_buffers.hpp"

namespace rmgsort::radix_sort_detail {

// A bucket's region during the permutation, in blocks: [.., write) hold its own blocks, placed;
// [write, read) blocks not yet looked at (of any bucket); [read, ..) empty, or being read by one of
// `reading` threads. write and read change together under `lock`.
struct alignas(64) BucketPointers {
  std::size_t write = 0, read = 0;
  std::atomic<bool> lock{false};
  std::atomic<std::uint32_t> reading{0};
};

// Waiting for another thread that holds a lock for a few instructions or copies one block: spin a
// little, then yield, in case that thread is not running (more threads than free cores).
class Backoff {
 public:
  void pause() {
    if (++spins_ < 64) {
#if defined(__SSE2__)
      _mm_pause();
#endif
    } else {
      std::this_thread::yield();
    }
  }

 private:
  int spins_ = 0;
};

class PointerLock {
 public:
  explicit PointerLock(BucketPointers& p) : p_(p) {
    Backoff backoff;
    while (p_.lock.exchange(true, std::memory_order_acquire))
      while (p_.lock.load(std::memory_order_relaxed)) backoff.pause();
  }
  ~PointerLock() { p_.lock.store(false, std::memory_order_release); }
  PointerLock(const PointerLock&) = delete;
  PointerLock& operator=(const PointerLock&) = delete;

 private:
  BucketPointers& p_;
};

template <class Bits>
struct BlockPermutation {
  static constexpr std::size_t B = StripeBuffers<Bits>::kBlockKeys;

  Bits* keys;
  std::size_t n;
  int shift;
  BucketPointers* pointers;
  Bits* overflow;  // stands in for the block that would end past n

  // One thread's part: takes unplaced blocks from bucket `first`'s region, then the next bucket's,
  // around; swaps each into its bucket's next slot and goes on with the block it displaced, until
  // no region holds an unplaced block. Waits only for threads that are copying a block.
  void run(std::size_t first) const {
    alignas(64) Bits held[2][B];
    Bits* block = held[0];
    Bits* displaced = held[1];
    for (std::size_t k = 0; k < kBuckets; ++k) {
      BucketPointers& from = pointers[(first + k) % kBuckets];
      for (;;) {
        std::size_t slot;
        {
          const PointerLock lock(from);
          if (from.read <= from.write) break;
          slot = --from.read;
          from.reading.fetch_add(1, std::memory_order_relaxed);  // published by the unlock
        }
        std::memcpy(block, keys + slot * B, sizeof(Bits) * B);
        from.reading.fetch_sub(1, std::memory_order_release);
        for (;;) {
          BucketPointers& to = pointers[std::size_t(block[0] >> shift) & (kBuckets - 1)];
          std::size_t target, unread_end;
          {
            const PointerLock lock(to);
            target = to.write++;
            unread_end = to.read;
          }
          if (target < unread_end) {  // an unplaced block: swap, and place the one it held next
            std::memcpy(displaced, keys + target * B, sizeof(Bits) * B);
            std::memcpy(keys + target * B, block, sizeof(Bits) * B);
            std::swap(block, displaced);
            continue;
          }
          // An empty slot, perhaps still being read by a thread that took it before us.
          for (Backoff backoff; to.reading.load(std::memory_order_acquire) != 0;) backoff.pause();
          std::memcpy((target + 1) * B > n ? overflow : keys + target * B, block, sizeof(Bits) * B);
          break;
        }
      }
    }
  }
};

}  // namespace rmgsort::radix_sort_detail
