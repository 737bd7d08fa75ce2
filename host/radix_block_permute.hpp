// Step 3 of the in-place radix pass (host/radix_block_partition.hpp): threads swap whole blocks
// into their buckets' regions. Included by that file only.
//
// Every thread touches the pointers of the buckets its blocks go to, so under skewed keys (one
// bucket holding most blocks) all threads meet on one bucket's pointers for every block. Two things
// keep that cheap: the pointers are one 64-bit word changed by single atomic additions (no lock, so
// no thread waits for another that was preempted while holding one), and a block already in its
// bucket's region is left where it is (only misplaced blocks are copied). On 16 threads, 2^27 zipf:1.0
// u64 keys, a spin lock per bucket and a copy of every block made this pass 2.4x slower than the
// out-of-place sort.
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>

#include "host/radix_block_buffers.hpp"

namespace rmgsort::radix_sort_detail {

// A bucket's region during the permutation, in blocks: [.., write) hold its own blocks, placed;
// [write, read) blocks not yet looked at (of any bucket); [read, ..) empty, or being read by one of
// `reading` threads. write and read share one atomic word (write in the low half, read in the high
// half as a signed number: a thread that finds the region empty still lowers `read`, at most once
// per thread and bucket), so each change returns both as they were.
class BucketPointers {
 public:
  // The most blocks a pass may have: block indices fit the word's halves with room below zero.
  static constexpr std::size_t kMaxBlocks = std::size_t{1} << 30;

  void set(std::size_t write, std::size_t read) {
    word_.store(std::uint64_t(read) << 32 | std::uint64_t(write), std::memory_order_relaxed);
    reading_.store(0, std::memory_order_relaxed);
  }
  [[nodiscard]] std::size_t write() const { return std::size_t(std::uint32_t(word_.load(std::memory_order_relaxed))); }

  // Takes the last unread block, announcing the read first (so that no writer fills that slot
  // before finish_read()); false, and no read to finish, when none is left.
  bool start_read(std::size_t& slot) {
    reading_.fetch_add(1, std::memory_order_acquire);
    const auto [write, read] = split(word_.fetch_sub(std::uint64_t{1} << 32, std::memory_order_acq_rel));
    if (read <= write) {
      reading_.fetch_sub(1, std::memory_order_release);
      return false;
    }
    slot = std::size_t(read - 1);
    return true;
  }
  void finish_read() { reading_.fetch_sub(1, std::memory_order_release); }
  [[nodiscard]] bool being_read() const { return reading_.load(std::memory_order_acquire) != 0; }

  // Claims the next slot to write; `unread` tells whether it still holds an unread block.
  std::size_t claim_write(bool& unread) {
    const auto [write, read] = split(word_.fetch_add(1, std::memory_order_acq_rel));
    unread = write < read;
    return std::size_t(write);
  }

 private:
  struct Halves {
    std::int64_t write, read;
  };
  static Halves split(std::uint64_t word) {
    return {std::int64_t(std::uint32_t(word)), std::int64_t(std::int32_t(std::uint32_t(word >> 32)))};
  }

  // On lines of their own: readers of a block touch both, writers to a filled slot only word_.
  alignas(64) std::atomic<std::uint64_t> word_{0};
  alignas(64) std::atomic<std::uint32_t> reading_{0};
};

// Waiting for a thread that copies one block out of a slot: spin a little, then yield, in case that
// thread is not running (more threads than free cores).
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

template <class Bits, class Digit>
struct BlockPermutation {
  static constexpr std::size_t B = StripeBuffers<Bits>::kBlockKeys;

  Bits* keys;
  std::size_t n;
  Digit digit;  // a key's bucket (host/radix_digits.hpp)
  BucketPointers* pointers;
  Bits* overflow;  // stands in for the block that would end past n

  [[nodiscard]] std::size_t bucket_of(const Bits* block) const { return digit(block[0]); }

  // One thread's part: takes unplaced blocks from bucket `first`'s region, then the next bucket's,
  // around; puts each into its bucket's next slot (stepping over slots whose block is that bucket's
  // already) and goes on with the block it displaced, until no region holds an unplaced block.
  // Waits only for threads that are copying a block out of the slot it writes.
  void run(std::size_t first) const {
    alignas(64) Bits held[2][B];
    Bits* block = held[0];
    Bits* displaced = held[1];
    for (std::size_t k = 0; k < kBuckets; ++k) {
      BucketPointers& from = pointers[(first + k) % kBuckets];
      std::size_t slot;
      while (from.start_read(slot)) {
        std::memcpy(block, keys + slot * B, sizeof(Bits) * B);
        from.finish_read();
        while (place(block, displaced)) std::swap(block, displaced);
      }
    }
  }

  // Puts BLOCK into its bucket's next slot that does not hold one of its own blocks; true when
  // that slot held an unplaced block, now in DISPLACED.
  bool place(const Bits* block, Bits* displaced) const {
    const std::size_t bucket = bucket_of(block);
    BucketPointers& to = pointers[bucket];
    for (;;) {
      bool unread = false;
      const std::size_t target = to.claim_write(unread);
      if (!unread) {  // an empty slot, perhaps still being read by a thread that took it before us
        for (Backoff backoff; to.being_read();) backoff.pause();
        std::memcpy((target + 1) * B > n ? overflow : keys + target * B, block, sizeof(Bits) * B);
        return false;
      }
      Bits* there = keys + target * B;
      if (bucket_of(there) == bucket) continue;  // its own block: placed where it lies
      std::memcpy(displaced, there, sizeof(Bits) * B);
      std::memcpy(there, block, sizeof(Bits) * B);
      return true;
    }
  }
};

}  // namespace rmgsort::radix_sort_detail
