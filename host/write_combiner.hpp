// Software write combining for the rounds partition's scatter (host/round_partition.cpp): keys
// gathered per bucket in one block of cache lines, each full block written out whole with
// non-temporal stores.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "host/round_partition_config.hpp"

namespace rmgsort {

// Software write combining for one chunk's scatter. Bucket b's keys from this chunk go to
// out[first[b], first[b] + this chunk's count in b); other chunks write right before and after, so
// only the two partial blocks at the ends of that range are shared, and those are written with
// ordinary stores. Each bucket has a buffer of one block (kWriteCombiningBytes) mirroring the
// aligned block of `out` that its next key falls in: a key goes to the buffer slot of its
// destination, and once a block's last slot is filled, the block goes out whole with non-temporal
// stores (no read-for-ownership of `out`, no cache pollution: the pass never reads `out`).
template <class Bits>
class WriteCombiner {
  static constexpr std::size_t kWriteCombiningBytes = partition_config::kWriteCombiningBytes;
  static constexpr std::size_t kBlockKeys = kWriteCombiningBytes / sizeof(Bits);

 public:
  // first[b]: the chunk's first destination in bucket b.
  WriteCombiner(Bits* out, const std::uint64_t* first, std::size_t buckets)
      : out_(out),
        first_(first, first + buckets),
        block_(buckets),
        slot_(buckets),
        buffers_(static_cast<Bits*>(std::aligned_alloc(kWriteCombiningBytes, buckets * kWriteCombiningBytes))) {
    if (!buffers_) throw std::bad_alloc();
    // Position p lies in the block of `out` starting at p - offset(p), aligned to kWriteCombiningBytes.
    const auto phase = std::uint64_t(reinterpret_cast<std::uintptr_t>(out) / sizeof(Bits));
    for (std::size_t b = 0; b < buckets; ++b) {
      const std::uint64_t offset = (first[b] + phase) % kBlockKeys;
      block_[b] = std::int64_t(first[b]) - std::int64_t(offset);
      slot_[b] = buffer(b) + offset;
    }
  }

  // A buffer's end is the next buffer's aligned start: the only test a key needs.
  void push(std::uint32_t bucket, Bits key) {
    Bits* slot = slot_[bucket];
    *slot++ = key;
    if (reinterpret_cast<std::uintptr_t>(slot) % kWriteCombiningBytes == 0) [[unlikely]] slot = flush_block(bucket);
    slot_[bucket] = slot;
  }

  // Writes what the buffers still hold (each bucket's last, partial block).
  void finish() {
    for (std::size_t b = 0; b < first_.size(); ++b) {
      const std::int64_t end = block_[b] + (slot_[b] - buffer(b));
      copy_out(b, std::max(block_[b], std::int64_t(first_[b])), end);
    }
#if defined(__SSE2__)
    _mm_sfence();  // non-temporal stores are weakly ordered: complete them before the task ends
#endif
  }

 private:
  Bits* buffer(std::size_t bucket) const { return buffers_.get() + bucket * kBlockKeys; }

  // Bucket's block is complete (or complete from this chunk's first key on): out with it.
  Bits* flush_block(std::size_t bucket) {
    const std::int64_t block = block_[bucket];
    block_[bucket] += std::int64_t(kBlockKeys);
    if (block < std::int64_t(first_[bucket])) {  // the block's start belongs to the chunk before
      copy_out(bucket, std::int64_t(first_[bucket]), block + std::int64_t(kBlockKeys), block);
      return buffer(bucket);
    }
    const Bits* from = buffer(bucket);
    Bits* to = out_ + block;
#if defined(__SSE2__)
    for (std::size_t i = 0; i < kWriteCombiningBytes / 16; ++i)
      _mm_stream_si128(reinterpret_cast<__m128i*>(to) + i, _mm_load_si128(reinterpret_cast<const __m128i*>(from) + i));
#else
    std::memcpy(to, from, kWriteCombiningBytes);
#endif
    return buffer(bucket);
  }

  // Copies positions [begin, end) of the bucket's block starting at `block` with ordinary stores.
  void copy_out(std::size_t bucket, std::int64_t begin, std::int64_t end) { copy_out(bucket, begin, end, block_[bucket]); }
  void copy_out(std::size_t bucket, std::int64_t begin, std::int64_t end, std::int64_t block) {
    if (begin < end)
      std::memcpy(out_ + begin, buffer(bucket) + (begin - block), std::size_t(end - begin) * sizeof(Bits));
  }

  Bits* out_;
  std::vector<std::uint64_t> first_;
  std::vector<std::int64_t> block_;  // where each buffer's block starts in `out` (may start before `out`)
  std::vector<Bits*> slot_;          // each bucket's next slot in its buffer
  struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<Bits, FreeDeleter> buffers_;
};

}  // namespace rmgsort
