// How each bytes:N key of a generated data set is computed (N = 1 .. 32 bytes, compared in memcmp
// order). A key that stands for a number holds it big-endian, so that memcmp order is the order of the
// numbers; W = min(N, 8) bytes of it carry the number, on a grid of 2^(8W) values. For sorted,
// reverse, nearly-sorted, zipf and bits, where W is 4 (8) the number is the u32 (u64) key of the same
// distribution and seed:
//
//   uniform        every byte uniformly random
//   normal         the u64 normal key (mean 2^63, sd (2^64 - 1) / 6, clamped), its top W bytes
//                  big-endian in the first W bytes; zero bytes after
//   zipf:S         rank r in [1, 2^(8W) - 1], P(r) ~ r^-S, as an N-byte big-endian number (the
//                  rank in the last W bytes, zero bytes before)
//   bits:B         the N-byte big-endian number whose low B bits are random (B <= 8N): up to 64,
//                  the draw's top 8W bits, of which the low B are kept, as for number keys; above
//                  64, the first draw in the last 8 bytes (the key bits:64 gives) and the B - 64
//                  bits above them from further draws (put_uniform_bytes, the top byte masked)
//   sorted         the grid index of the stratified sample (generate/uniform_grid.hpp) big-endian in
//   reverse,       the first W bytes, zero bytes after: non-decreasing (non-increasing) in memcmp
//   nearly-sorted  order across any chunking, with no sort
//   zero           one uniform key (drawn from the seed) repeated
//   special        about half the keys one of kSpecialBytes (the byte values either side of the
//                  signed-char boundary, the extremes, a single 1 bit at either end), the rest uniform
//
// Like the number keys (generate/number_keys.hpp), key i is a pure function of
// (distribution, seed, i, total_count).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "core/key_type.hpp"
#include "generate/counter_random.hpp"
#include "generate/distribution.hpp"
#include "generate/normal_sampler.hpp"
#include "generate/number_keys.hpp"
#include "generate/uniform_grid.hpp"
#include "generate/zipf_sampler.hpp"

namespace rmgsort::detail {

// Writes VALUE's low NBYTES (1 .. 8) bytes at OUT, most significant first: memcmp order of such
// writes is the order of the values.
inline void put_big_endian(std::byte* out, std::uint64_t value, std::size_t nbytes) {
  const std::uint64_t aligned = value << (8 * (8 - nbytes));  // the NBYTES bytes at the top
  const std::uint64_t big_endian = std::endian::native == std::endian::little ? __builtin_bswap64(aligned) : aligned;
  std::memcpy(out, &big_endian, nbytes);
}

// NBYTES uniformly random bytes: the draws' bytes, little-endian, a draw per 8 bytes.
inline void put_uniform_bytes(std::byte* out, std::size_t nbytes, KeyRandom& random) {
  for (std::size_t at = 0; at < nbytes; at += 8) {
    const std::uint64_t draw = random.next();
    std::memcpy(out + at, &draw, nbytes - at < 8 ? nbytes - at : 8);
  }
}

// The special keys: a first byte, the bytes between, and a last byte (a 1-byte key is its first).
struct SpecialBytes {
  std::byte first, middle, last;
};
inline constexpr std::array<SpecialBytes, 9> kSpecialBytes = {{
    {std::byte{0x00}, std::byte{0x00}, std::byte{0x00}},  // the smallest key
    {std::byte{0xff}, std::byte{0xff}, std::byte{0xff}},  // the largest
    {std::byte{0x00}, std::byte{0x00}, std::byte{0x01}},  // one 1 bit, at the end
    {std::byte{0x01}, std::byte{0x00}, std::byte{0x00}},  // one 1 bit, at the start
    {std::byte{0x7f}, std::byte{0x7f}, std::byte{0x7f}},  // the largest signed char, everywhere
    {std::byte{0x80}, std::byte{0x80}, std::byte{0x80}},  // the smallest signed char, everywhere
    {std::byte{0x7f}, std::byte{0xff}, std::byte{0xff}},  // just below the top bit
    {std::byte{0x80}, std::byte{0x00}, std::byte{0x00}},  // the top bit alone
    {std::byte{0xff}, std::byte{0xff}, std::byte{0xfe}},  // just below the largest
}};

inline void put_special_bytes(std::byte* out, std::size_t nbytes, const SpecialBytes& special) {
  std::memset(out, int(special.middle), nbytes);
  out[nbytes - 1] = special.last;
  out[0] = special.first;
}

// bits:B above 64 for bytes:SIZE keys (SIZE > 8): key i's last 8 bytes are the draw bits:64 puts
// there, the B - 64 bits above them are further draws' bytes, the highest byte masked to its bits.
inline auto wide_bits_key(std::uint64_t stream, std::size_t size, unsigned bits) {
  const std::size_t high_bytes = (bits - 64 + 7) / 8;
  const auto top_mask = std::byte((bits - 64) % 8 == 0 ? 0xff : (1u << ((bits - 64) % 8)) - 1);
  return [stream, size, high_bytes, top_mask](std::uint64_t i, std::byte* key) {
    KeyRandom random(stream, i);
    const std::uint64_t low = random.next();
    std::memset(key, 0, size);
    put_big_endian(key + size - 8, low, 8);
    std::byte* high = key + size - 8 - high_bytes;
    put_uniform_bytes(high, high_bytes, random);
    high[0] &= top_mask;
  };
}

// Calls run(key_at), key_at(i, key) writing key i of the data set of TOTAL_COUNT bytes:KEY_SIZE keys
// that DIST and SEED define to key[0, KEY_SIZE); key_at lives as long as the call. DIST must have
// passed validate_distribution() for bytes:KEY_SIZE.
template <class Run>
void visit_bytes_keys(const Distribution& dist, std::size_t key_size, std::uint64_t seed, std::uint64_t total_count,
                      Run&& run) {
  RMGSORT_EXPECTS(key_size >= 1 && key_size <= kMaxBytesKey, "bytes keys of 1 to 32 bytes");
  const std::uint64_t stream = key_stream(seed);
  const std::uint64_t n = total_count;
  const std::size_t size = key_size;
  const std::size_t number_bytes = size < 8 ? size : 8;  // W
  const int grid_bits = int(8 * number_bytes);
  const std::uint64_t max_number = grid_bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << grid_bits) - 1;
  using Kind = Distribution::Kind;
  switch (dist.kind) {
    case Kind::uniform:
      return run([stream, size](std::uint64_t i, std::byte* key) {
        KeyRandom random(stream, i);
        put_uniform_bytes(key, size, random);
      });
    case Kind::normal:
      return run([stream, size, number_bytes, &normal = standard_normal()](std::uint64_t i, std::byte* key) {
        KeyRandom random(stream, i);
        const std::uint64_t value = normal_key<std::uint64_t>(normal, random);
        std::memset(key, 0, size);
        put_big_endian(key, value >> (64 - 8 * number_bytes), number_bytes);
      });
    case Kind::zipf: {
      const ZipfSampler sampler(dist.zipf_exponent, max_number);
      return run([stream, size, number_bytes, &sampler](std::uint64_t i, std::byte* key) {
        KeyRandom random(stream, i);
        std::memset(key, 0, size);
        put_big_endian(key + size - number_bytes, sampler.sample(random), number_bytes);
      });
    }
    case Kind::bits: {
      if (dist.bits > 64) return run(wide_bits_key(stream, size, dist.bits));
      // As for number keys: the draw's top 8W bits, of which the low B are kept.
      const std::uint64_t mask = dist.bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << dist.bits) - 1;
      return run([stream, size, number_bytes, mask](std::uint64_t i, std::byte* key) {
        KeyRandom random(stream, i);
        const std::uint64_t value = (random.next() >> (64 - 8 * number_bytes)) & mask;
        std::memset(key, 0, size);
        put_big_endian(key + size - number_bytes, value, number_bytes);
      });
    }
    case Kind::sorted:
      return run([stream, n, size, number_bytes, grid_bits](std::uint64_t i, std::byte* key) {
        KeyRandom random(stream, i);
        std::memset(key, 0, size);
        put_big_endian(key, grid_sorted_index(i, n, grid_bits, random), number_bytes);
      });
    case Kind::reverse:
      return run([stream, n, size, number_bytes, grid_bits](std::uint64_t i, std::byte* key) {
        const std::uint64_t mirrored = n - 1 - i;  // key i is sorted key n - 1 - i
        KeyRandom random(stream, mirrored);
        std::memset(key, 0, size);
        put_big_endian(key, grid_sorted_index(mirrored, n, grid_bits, random), number_bytes);
      });
    case Kind::nearly_sorted:
      return run([stream, n, size, number_bytes, grid_bits, &normal = standard_normal()](std::uint64_t i,
                                                                                          std::byte* key) {
        KeyRandom random(stream, i);
        std::memset(key, 0, size);
        put_big_endian(key, grid_nearly_sorted_index(i, n, grid_bits, normal, random), number_bytes);
      });
    case Kind::zero: {
      // One uniform key from a stream of its own, as for number keys.
      KeyRandom random(moremur(stream), 0);
      std::array<std::byte, kMaxBytesKey> value{};
      put_uniform_bytes(value.data(), size, random);
      return run([value, size](std::uint64_t, std::byte* key) { std::memcpy(key, value.data(), size); });
    }
    case Kind::special:
      return run([stream, size](std::uint64_t i, std::byte* key) {
        KeyRandom random(stream, i);
        const std::uint64_t choice = random.next();
        if (choice >> 63) return put_special_bytes(key, size, kSpecialBytes[draw_below(choice << 1, kSpecialBytes.size())]);
        put_uniform_bytes(key, size, random);
      });
  }
  throw Error("internal error: unhandled distribution kind " + std::to_string(int(dist.kind)));
}

}  // namespace rmgsort::detail
