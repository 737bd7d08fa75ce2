// The buckets of an MSD radix pass, shared by the stable radix sort of tags and pairs
// (host/stable_radix_sort.hpp) and the in-place radix sort of keys (host/radix_sort.cpp): a radix
// digit, or a logarithmic one for keys spread over many orders of magnitude, and the sample test
// that chooses between them. Both digits are monotone in the key, so a pass by either leaves a
// range sorted but within buckets, and the keys of bucket d agree on every bit at and above
// bit_end(d) (those above the range's bit_end agree already).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace rmgsort {

// Bits [shift, shift + bits) of the key.
struct RadixDigit {
  int shift;
  std::uint64_t mask;
  std::size_t operator()(std::uint64_t key) const { return std::size_t((key >> shift) & mask); }
  [[nodiscard]] std::size_t buckets() const { return std::size_t(mask) + 1; }
  [[nodiscard]] int bit_end(std::size_t) const { return shift; }
};

// The key's bits below bit_end as a floating-point number with `mantissa` bits: its bit width,
// then the `mantissa` bits below its leading one (values below 2^(mantissa + 1): a bucket each).
// Keys spread over many orders of magnitude (Zipf's law: a radix digit leaves most of them in
// bucket 0, pass after pass) fill its buckets about evenly, a value of few a bucket.
struct LogDigit {
  int mantissa;
  std::uint64_t low;  // the bits below the range's bit_end
  // Requires bit_end > digit_bits: at most 2^digit_bits buckets.
  LogDigit(int bit_end, int digit_bits)
      : mantissa(mantissa_bits(bit_end, digit_bits)),
        low(bit_end >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bit_end) - 1),
        buckets_(std::size_t(bit_end - mantissa + 1) << mantissa) {}
  // The widest mantissa whose buckets number at most 2^digit_bits.
  static int mantissa_bits(int bit_end, int digit_bits) {
    int m = 0;
    while (((std::uint64_t(bit_end - m)) << (m + 1)) <= (std::uint64_t{1} << digit_bits)) ++m;
    return m;
  }
  // Bucket (e - 1) * 2^mantissa + (x >> (e - 1)), e = max(bit_width(x) - mantissa, 1): contiguous,
  // and x >> (e - 1) is the same for every key of the bucket.
  std::size_t operator()(std::uint64_t key) const {
    const std::uint64_t x = key & low;
    const int e = std::max(int(std::bit_width(x)) - mantissa, 1);
    return (std::size_t(e - 1) << mantissa) + std::size_t(x >> (e - 1));
  }
  [[nodiscard]] std::size_t buckets() const { return buckets_; }
  [[nodiscard]] int bit_end(std::size_t d) const { return std::max(int(d >> mantissa) - 1, 0); }
  std::size_t buckets_;
};

// Whether a LogDigit of the bits below bit_end (> digit_bits) spreads SAMPLE (keys taken evenly
// over a range whose keys agree above bit_end; bits outside prefix_mask are not sorted on) much
// better than the radix digit below their highest differing bit: its largest bucket less than a
// quarter of the radix digit's largest, which holds more than 1/32 of the sample (evenly spread
// keys leave buckets of 1/2^digit_bits).
inline bool spreads_logarithmically(std::span<const std::uint64_t> sample, std::uint64_t prefix_mask, int bit_end,
                                    int digit_bits) {
  std::uint64_t any = 0, all = ~std::uint64_t{0};
  for (const std::uint64_t key : sample) any |= key, all &= key;
  const std::uint64_t differing = (any ^ all) & prefix_mask;
  const RadixDigit radix{std::max(int(std::bit_width(differing)) - digit_bits, 0),
                         (std::uint64_t{1} << digit_bits) - 1};
  // Both digits have at most 2^digit_bits buckets: counted, not sorted.
  std::vector<std::uint32_t> count(std::size_t{1} << digit_bits);
  const auto largest = [&](auto digit) {
    std::fill(count.begin(), count.end(), 0);
    std::uint32_t most = 0;
    for (const std::uint64_t key : sample) most = std::max(most, ++count[digit(key)]);
    return std::size_t(most);
  };
  const std::size_t radix_most = largest(radix);
  if (radix_most <= sample.size() / 32) return false;  // the radix digit spreads them well enough
  return largest(LogDigit(bit_end, digit_bits)) * 4 < radix_most;
}

}  // namespace rmgsort
