// Step 1 of the in-place radix pass (host/radix_block_partition.hpp): one stripe's keys into block
// buffers, full blocks written back over the stripe's front. Included by that file only.
#pragma once

#include <cstring>

#include "host/radix_block_buffers.hpp"

namespace rmgsort::radix_sort_detail {

template <class Bits>
struct ClassifiedStripe {
  std::size_t written_end;  // [begin, written_end): whole blocks, each of one bucket; a multiple of B from begin
  Bits any, all;            // OR and AND of the stripe's keys
};

// Reads keys[begin, end) once through load() (which may encode them), puts each into its bucket's
// buffer, and writes a buffer back to keys[written_end, +B) each time it fills. That never
// overtakes the reading: a full buffer holds B keys that were read, so written_end + B <= the
// next key to read. Leaves the buffers' counts (buffers.count, buffers.fill) for the cleanup.
// digit(key) is the key's bucket, below kBuckets (host/radix_digits.hpp).
template <class Bits, class Load, class Digit>
ClassifiedStripe<Bits> classify_stripe(Bits* keys, std::size_t begin, std::size_t end, Digit digit, Load load,
                                       StripeBuffers<Bits>& buffers) {
  constexpr std::size_t B = StripeBuffers<Bits>::kBlockKeys;
  buffers.fill.fill(0);
  std::array<std::uint32_t, kBuckets> blocks{};
  Bits any = 0, all = Bits(~Bits(0));
  std::size_t written = begin;
  Bits* const buffer = buffers.keys.get();
  const auto put = [&](Bits key) {
    const std::size_t d = digit(key);
    const std::uint32_t f = buffers.fill[d];
    buffer[d * B + f] = key;
    if (f + 1 == B) {
      std::memcpy(keys + written, buffer + d * B, B * sizeof(Bits));
      written += B;
      ++blocks[d];
      buffers.fill[d] = 0;
    } else {
      buffers.fill[d] = f + 1;
    }
  };
  // Four loads ahead of their stores, so that the loads' latency overlaps.
  std::size_t i = begin;
  for (; i + 4 <= end; i += 4) {
    const Bits k0 = load(keys + i), k1 = load(keys + i + 1), k2 = load(keys + i + 2), k3 = load(keys + i + 3);
    any |= (k0 | k1) | (k2 | k3);
    all &= (k0 & k1) & (k2 & k3);
    put(k0);
    put(k1);
    put(k2);
    put(k3);
  }
  for (; i < end; ++i) {
    const Bits key = load(keys + i);
    any |= key;
    all &= key;
    put(key);
  }
  for (std::size_t d = 0; d < kBuckets; ++d) buffers.count[d] = std::uint64_t(blocks[d]) * B + buffers.fill[d];
  return {written, any, all};
}

}  // namespace rmgsort::radix_sort_detail
