#include "host/checksum.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"

namespace rmgsort {
namespace {

// Two unrelated finalisers (splitmix64's and moremur's), so that the two sums are independent.
constexpr std::uint64_t mix_a(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
constexpr std::uint64_t mix_b(std::uint64_t x) {
  x ^= 0x2545f4914f6cdd1dULL;
  x = (x ^ (x >> 27)) * 0x3c79ac492ba7b653ULL;
  x = (x ^ (x >> 33)) * 0x1c69b3f74ac4ae35ULL;
  return x ^ (x >> 27);
}

template <class Bits>
KeyChecksum checksum_range(const Bits* keys, std::size_t begin, std::size_t end, KeyChecksum sum) {
  for (std::size_t i = begin; i < end; ++i) {
    Bits key;
    std::memcpy(&key, keys + i, sizeof key);
    sum.low += mix_a(key);
    sum.high += mix_b(key);
  }
  sum.keys += end - begin;
  return sum;
}

// Sums RANGE(begin, end, sum) over [0, count) in pieces of GRAIN, in parallel when there are several.
template <class Range>
KeyChecksum checksum_in_parallel(std::size_t count, std::size_t grain, const Range& range) {
  if (count <= grain) return range(0, count, KeyChecksum{});
  return tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, count, grain), KeyChecksum{},
      [&range](const tbb::blocked_range<std::size_t>& r, KeyChecksum sum) { return range(r.begin(), r.end(), sum); },
      [](KeyChecksum x, const KeyChecksum& y) { return x += y; });
}

template <class Bits>
KeyChecksum checksum_typed(const std::byte* data, std::uint64_t count) {
  const auto* keys = reinterpret_cast<const Bits*>(data);
  constexpr std::size_t kGrain = std::size_t{1} << 16;
  return checksum_in_parallel(count, kGrain, [keys](std::size_t begin, std::size_t end, KeyChecksum sum) {
    return checksum_range(keys, begin, end, sum);
  });
}

// A record of any size as 64-bit words (little-endian, the last one zero-padded), hashed by two chains
// x = mix(x) ^ word, each closed by one more mix: a record of one word (4 or 8 bytes) gets the key's
// mix_a(word) and mix_b(word). Every word passes through both mixers, so a change to any bytes
// changes each sum unless it is cancelled on purpose in both chains at once.
KeyChecksum checksum_record_range(const std::byte* records, std::size_t record_size, std::size_t begin,
                                  std::size_t end, KeyChecksum sum) {
  const std::size_t full_words = record_size / 8;
  const std::size_t tail = record_size % 8;
  for (std::size_t i = begin; i < end; ++i) {
    const std::byte* record = records + i * record_size;
    const auto word = [&](std::size_t w) {
      std::uint64_t value = 0;
      std::memcpy(&value, record + 8 * w, w < full_words ? 8 : tail);
      return value;
    };
    const std::size_t words = full_words + (tail != 0);
    std::uint64_t a = word(0), b = a;
    for (std::size_t w = 1; w < words; ++w) {
      const std::uint64_t value = word(w);
      a = mix_a(a) ^ value;
      b = mix_b(b) ^ value;
    }
    sum.low += mix_a(a);
    sum.high += mix_b(b);
  }
  sum.keys += end - begin;
  return sum;
}

}  // namespace

std::string KeyChecksum::hex() const {
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return text;
}

KeyChecksum checksum_keys(const std::byte* data, std::uint64_t bytes, std::size_t key_width) {
  RMGSORT_EXPECTS(key_width == 4 || key_width == 8, "key width must be 4 or 8");
  RMGSORT_EXPECTS(bytes % key_width == 0, "checksum over a partial key");
  return key_width == 4 ? checksum_typed<std::uint32_t>(data, bytes / 4)
                        : checksum_typed<std::uint64_t>(data, bytes / 8);
}

KeyChecksum checksum_records(const std::byte* data, std::uint64_t bytes, std::size_t record_size) {
  RMGSORT_EXPECTS(record_size > 0, "records of at least one byte");
  RMGSORT_EXPECTS(bytes % record_size == 0, "checksum over a partial record");
  if (record_size == 4 || record_size == 8) return checksum_keys(data, bytes, record_size);
  // 256 KiB of records per piece (at least one): as many bytes as a piece of 64 Ki u32 keys.
  const std::size_t grain = std::max<std::size_t>(1, (std::size_t{256} << 10) / record_size);
  return checksum_in_parallel(bytes / record_size, grain, [=](std::size_t begin, std::size_t end, KeyChecksum sum) {
    return checksum_record_range(data, record_size, begin, end, sum);
  });
}

}  // namespace rmgsort
