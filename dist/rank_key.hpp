// A record's key as one value the distributed splitters can count digit by digit: the rank words of
// core/record_rank.hpp, left-aligned in up to four 64-bit words, so that comparing two RankKeys
// lexicographically compares the keys in the sort's order (the layout's NaN rule and the direction
// included), and equal RankKeys are equal keys. A number key's rank (32 or 64 bits) fills the top of
// the first word; a bytes:N key's words are its bytes, big-endian, padded alike in every key.
//
// Bit p of a key counts from its most significant bit (p = 0). A digit of b bits at p never
// straddles two words: every digit width the splitters use divides 64 and every p is a multiple of
// the widths before it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/record_layout.hpp"
#include "core/record_rank.hpp"

namespace rmgsort::dist {

using RankKey = std::array<std::uint64_t, 4>;

// Bits that tell keys of LAYOUT apart: 32 or 64 for numbers, 8 N for bytes:N (the padding after them
// is the same in every key).
[[nodiscard]] constexpr int key_bits(const RecordLayout& layout) { return int(layout.key_size) * 8; }

// How a layout's rank words become a RankKey: shifted up by `shift` (32 for a 32-bit number: its
// rank fills the top of the first word), and cut after `bits` (a bytes:N key's padding, which
// descending order makes ones, is cleared, so that a key found digit by digit equals the keys).
struct KeyShape {
  int shift = 0;
  int bits = 64;
};

// The words that hold a key of LAYOUT: every later word of a RankKey is zero.
[[nodiscard]] constexpr int key_words(const RecordLayout& layout) { return (key_bits(layout) + 63) / 64; }

// Order and equality of RankKeys on their first `words` words (key_words()): one comparison for a
// number, where std::array's operators would compare all four words through memcmp.
struct KeyLess {
  int words = 4;
  [[nodiscard]] constexpr bool operator()(const RankKey& a, const RankKey& b) const {
    for (int w = 0; w < words; ++w)
      if (a[std::size_t(w)] != b[std::size_t(w)]) return a[std::size_t(w)] < b[std::size_t(w)];
    return false;
  }
};

[[nodiscard]] constexpr bool same_key(const RankKey& a, const RankKey& b, int words) {
  for (int w = 0; w < words; ++w)
    if (a[std::size_t(w)] != b[std::size_t(w)]) return false;
  return true;
}

[[nodiscard]] constexpr KeyShape key_shape(const RecordLayout& layout) {
  return {layout.key_type == KeyType::bytes ? 0 : 64 - key_bits(layout), key_bits(layout)};
}

// The `width`-bit digit of KEY at bit P (P + width within one word).
[[nodiscard]] constexpr std::uint64_t digit_at(const RankKey& key, int p, int width) {
  const int shift = 64 - p % 64 - width;
  return (key[std::size_t(p / 64)] >> shift) & ((std::uint64_t{1} << width) - 1);
}

// KEY with every bit from P on cleared: the prefix of P bits.
[[nodiscard]] constexpr RankKey prefix_of(const RankKey& key, int p) {
  RankKey prefix{};
  for (int w = 0; w < 4; ++w) {
    const int first = w * 64;
    if (p >= first + 64) {
      prefix[std::size_t(w)] = key[std::size_t(w)];
    } else if (p > first) {
      prefix[std::size_t(w)] = key[std::size_t(w)] & ~(~std::uint64_t{0} >> (p - first));
    }
  }
  return prefix;
}

// PREFIX with DIGIT (width bits) set at bit P.
[[nodiscard]] constexpr RankKey with_digit(RankKey prefix, int p, int width, std::uint64_t digit) {
  prefix[std::size_t(p / 64)] |= digit << (64 - p % 64 - width);
  return prefix;
}

// The RankKey of the record at RECORD under RANK (a rank of core/record_rank.hpp) of SHAPE.
template <class Rank>
[[nodiscard]] RankKey rank_key(const Rank& rank, const std::byte* record, KeyShape shape) {
  RankKey key{};
  const int words = rank.words();
  for (int w = 0; w < words; ++w) key[std::size_t(w)] = rank.word(record, w);
  key[0] <<= shape.shift;
  return shape.bits % 64 == 0 ? key : prefix_of(key, shape.bits);
}

// The first word of rank_key(), alone: the whole key when key_words() is 1 (numbers, bytes:1..8),
// as a plain integer for the hot loops.
template <class Rank>
[[nodiscard]] inline std::uint64_t rank_key_word(const Rank& rank, const std::byte* record, KeyShape shape) {
  const std::uint64_t word = rank.word(record, 0) << shape.shift;
  return shape.bits >= 64 ? word : word & ~(~std::uint64_t{0} >> shape.bits);
}

}  // namespace rmgsort::dist
