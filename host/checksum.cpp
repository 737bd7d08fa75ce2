#include "host/checksum.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

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

template <class Bits>
KeyChecksum checksum_typed(const std::byte* data, std::uint64_t count) {
  const auto* keys = reinterpret_cast<const Bits*>(data);
  constexpr std::size_t kGrain = std::size_t{1} << 16;
  if (count <= kGrain) return checksum_range(keys, 0, count, {});
  return tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, count, kGrain), KeyChecksum{},
      [keys](const tbb::blocked_range<std::size_t>& r, KeyChecksum sum) {
        return checksum_range(keys, r.begin(), r.end(), sum);
      },
      [](KeyChecksum x, const KeyChecksum& y) { return x += y; });
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

}  // namespace rmgsort
