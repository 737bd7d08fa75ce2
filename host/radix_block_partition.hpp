// One in-place parallel MSD radix pass in the manner of IPS²Ra (Axtmann, Witt, Ferizovic, Sanders:
// "Engineering In-place (Shared-memory) Sorting Algorithms", 2022): it moves keys[0, n) into 256
// buckets by a digit of the key (host/radix_digits.hpp) with no buffer the size of the keys. Four steps:
//  1. classify (host/radix_block_classify.hpp): each stripe's keys go into a block buffer per
//     bucket; a full buffer is written back over the stripe's own front, so the stripe becomes
//     whole one-bucket blocks followed by empty space;
//  2. the buckets' boundaries, rounded up to blocks, cut the blocks into one region per bucket; the
//     few full blocks that sit behind empty ones inside a region move forward;
//  3. permute (host/radix_block_permute.hpp): threads swap blocks into their buckets' regions;
//  4. clean up: each bucket's keys that are not in its whole blocks (the buffers, and a block that
//     reached into the next bucket) go to its exact ends.
// Included by host/radix_sort.cpp only.
#pragma once

#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "host/radix_block_buffers.hpp"
#include "host/radix_block_classify.hpp"
#include "host/radix_block_permute.hpp"

namespace rmgsort::radix_sort_detail {

// Moves the full blocks of region [first, end) to its front, [first, first + full), and returns
// `full`. Stripe s holds full blocks [stripe_block(s), full_end[s]) and then empty ones; so the
// holes in the front are the empty ends of stripes, at most 256 blocks each.
template <class Bits, class StripeBlock>
std::size_t gather_full_blocks(Bits* keys, std::size_t first, std::size_t end, std::size_t stripes,
                               const StripeBlock& stripe_block, const std::vector<std::size_t>& full_end) {
  constexpr std::size_t B = StripeBuffers<Bits>::kBlockKeys;
  std::size_t full = 0;
  for (std::size_t s = 0; s < stripes; ++s) {
    const std::size_t lo = std::max(stripe_block(s), first), hi = std::min(full_end[s], end);
    if (lo < hi) full += hi - lo;
  }
  const std::size_t front_end = first + full;
  // Holes: empty blocks below front_end, in order; sources: full blocks at or above it, in order.
  std::size_t hole_stripe = 0, source_stripe = 0;
  std::size_t hole = first, source = front_end;
  const auto next_hole = [&]() -> bool {
    for (; hole_stripe < stripes; ++hole_stripe) {
      hole = std::max({hole, full_end[hole_stripe], first});
      if (hole < std::min(stripe_block(hole_stripe + 1), front_end)) return true;
    }
    return false;
  };
  const auto next_source = [&]() -> bool {
    for (; source_stripe < stripes; ++source_stripe) {
      source = std::max({source, stripe_block(source_stripe), front_end});
      if (source < std::min(full_end[source_stripe], end)) return true;
    }
    return false;
  };
  while (next_hole() && next_source()) {
    std::memcpy(keys + hole * B, keys + source * B, B * sizeof(Bits));
    ++hole;
    ++source;
  }
  return full;
}

template <class Bits>
struct PassOutcome {
  std::array<std::size_t, kBuckets + 1> bucket_begin;  // bucket d is [bucket_begin[d], bucket_begin[d + 1])
  Bits differing;                                      // the bits in which the range's keys differ
};

// Partitions keys[0, n) in place into 256 buckets by digit(key) (a RadixDigit of 8 bits or a
// LogDigit of at most 256 buckets, host/radix_digits.hpp, of the encoded key), with `stripes` tasks
// (each with at least a block of keys), and stores every key as load() returned it (the encoded
// radix bits). Not stable.
template <class Bits, class Load, class Digit>
PassOutcome<Bits> block_partition(Bits* keys, std::size_t n, Digit digit, std::size_t stripes, Load load,
                                  StripeBufferPool<Bits>& pool) {
  constexpr std::size_t B = StripeBuffers<Bits>::kBlockKeys;
  const std::size_t blocks = (n + B - 1) / B;
  stripes = std::clamp<std::size_t>(stripes, 1, std::max<std::size_t>(blocks, 1));

  // 1. Stripe s is blocks [stripe_block(s), stripe_block(s + 1)); its full blocks end at full_end[s].
  const auto stripe_block = [&](std::size_t s) { return blocks * s / stripes; };
  std::vector<std::unique_ptr<StripeBuffers<Bits>>> buffers(stripes);
  std::vector<std::size_t> full_end(stripes);
  std::vector<Bits> any(stripes), all(stripes);
  tbb::parallel_for(std::size_t{0}, stripes, [&](std::size_t s) {
    buffers[s] = pool.acquire();
    const std::size_t begin = stripe_block(s) * B, end = std::min(stripe_block(s + 1) * B, n);
    const ClassifiedStripe<Bits> stripe = classify_stripe(keys, begin, end, digit, load, *buffers[s]);
    full_end[s] = stripe.written_end / B;
    any[s] = stripe.any;
    all[s] = stripe.all;
  });

  PassOutcome<Bits> outcome;
  Bits any_key = 0, all_keys = Bits(~Bits(0));
  for (std::size_t s = 0; s < stripes; ++s) {
    any_key |= any[s];
    all_keys &= all[s];
  }
  outcome.differing = any_key ^ all_keys;
  outcome.bucket_begin[0] = 0;
  for (std::size_t d = 0; d < kBuckets; ++d) {
    std::size_t count = 0;
    for (std::size_t s = 0; s < stripes; ++s) count += buffers[s]->count[d];
    outcome.bucket_begin[d + 1] = outcome.bucket_begin[d] + count;
  }
  const auto& bucket_begin = outcome.bucket_begin;

  // 2. Bucket d's region is blocks [region[d], region[d + 1]): every block that begins inside the
  // bucket. It holds at least as many blocks as the bucket has full ones.
  std::array<std::size_t, kBuckets + 1> region;
  for (std::size_t d = 0; d <= kBuckets; ++d) region[d] = (bucket_begin[d] + B - 1) / B;
  RMGSORT_EXPECTS(blocks < BucketPointers::kMaxBlocks, "an in-place radix pass within its block count");
  std::array<BucketPointers, kBuckets> pointers;
  tbb::parallel_for(std::size_t{0}, kBuckets, [&](std::size_t d) {
    const std::size_t full = gather_full_blocks(keys, region[d], region[d + 1], stripes, stripe_block, full_end);
    pointers[d].set(region[d], region[d] + full);
  });

  // 3. The block that ends past n (if the last region reaches it) is written to `overflow`.
  std::vector<Bits> overflow(n % B != 0 ? B : 0);
  const BlockPermutation<Bits, Digit> permutation{keys, n, digit, pointers.data(), overflow.data()};
  tbb::parallel_for(std::size_t{0}, stripes, [&](std::size_t s) { permutation.run(s * kBuckets / stripes); });

  // 4. First every bucket's keys that its last block put beyond its end, in the next bucket's
  // head, move aside (to `spill`); then each bucket's head and tail are filled from there and from
  // the stripes' buffers. Each step writes only its own bucket's positions.
  auto spill = pool.acquire();
  for (std::size_t d = 0; d < kBuckets; ++d) {
    const std::size_t written_end = pointers[d].write() * B, end = bucket_begin[d + 1];
    spill->fill[d] = 0;
    if (pointers[d].write() == region[d] || written_end <= end) continue;  // no block, or none beyond the end
    const Bits* last = keys + written_end - B;
    if (written_end > n) {  // the overflow block: keys up to n go in place
      last = overflow.data();
      std::memcpy(keys + written_end - B, last, (n - (written_end - B)) * sizeof(Bits));
    }
    spill->fill[d] = std::uint32_t(written_end - end);
    std::memcpy(spill->block(d), last + (end - (written_end - B)), (written_end - end) * sizeof(Bits));
  }
  tbb::parallel_for(std::size_t{0}, kBuckets, [&](std::size_t d) {
    // The positions to fill: the head up to the first whole block, then the tail after the last one.
    const std::size_t begin = bucket_begin[d], end = bucket_begin[d + 1];
    const std::size_t head_end = std::min(region[d] * B, end), tail = std::clamp(pointers[d].write() * B, head_end, end);
    std::size_t at = begin;
    const auto put = [&](const Bits* from, std::size_t count) {
      while (count > 0) {
        if (at == head_end) at = tail;
        const std::size_t piece = std::min(count, (at < head_end ? head_end : end) - at);
        std::memcpy(keys + at, from, piece * sizeof(Bits));
        at += piece;
        from += piece;
        count -= piece;
      }
    };
    put(spill->block(d), spill->fill[d]);
    for (std::size_t s = 0; s < stripes; ++s) put(buffers[s]->block(d), buffers[s]->fill[d]);
  });
  pool.release(std::move(spill));
  for (auto& stripe : buffers) pool.release(std::move(stripe));
  return outcome;
}

}  // namespace rmgsort::radix_sort_detail
