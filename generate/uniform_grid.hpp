// The uniform distribution of each key type as an index into an ordered grid of values, and the grid
// indices of the sorted and nearly-sorted distributions (on a grid of any 2^bits values: bytes:N keys
// use them too, generate/bytes_keys.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "generate/counter_random.hpp"
#include "core/key_order.hpp"
#include "generate/normal_sampler.hpp"

namespace rmgsort::detail {

// The uniform distribution of T is uniform over the 2^kBits values value(0) < value(1) < ... (in
// KeyOrder ascending): every bit pattern for integers, the multiples of 2^-(kBits-1) in [-1, 1) for
// floats (2^24 values for f32, 2^53 for f64). sorted, reverse and nearly-sorted work on the index,
// so they have exactly the uniform distribution's values.
template <class T>
struct UniformGrid {
  static constexpr int kBits =
      std::is_integral_v<T> ? int(8 * sizeof(T)) : std::numeric_limits<T>::digits;
  static constexpr std::uint64_t kMaxIndex =
      kBits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << kBits) - 1;

  static std::uint64_t random_index(std::uint64_t draw) { return draw >> (64 - kBits); }

  static T value(std::uint64_t index) {
    if constexpr (std::is_integral_v<T>) {
      return KeyOrder<T, SortOrder::ascending>::decode(RadixBits<T>(index));
    } else {
      constexpr std::int64_t kHalf = std::int64_t{1} << (kBits - 1);
      return T(std::int64_t(index) - kHalf) * T(1.0 / double(kHalf));  // both factors exact
    }
  }
};

template <class T>
T uniform_key(KeyRandom& random) {
  return UniformGrid<T>::value(UniformGrid<T>::random_index(random.next()));
}

// Stratified sampling on a grid of 2^bits values (bits in 1..64): key i of n takes the grid index at
// quantile (i + u) / n, u uniform in [0, 1): floor((i * 2^bits + offset) / n) with offset a random
// bits-bit number. Exact integer arithmetic, and floor((i + u) 2^bits / n) < (i + 1) 2^bits / n <= the
// next key's value, so the sequence is non-decreasing across any chunking, with no sort.
inline std::uint64_t grid_sorted_index(std::uint64_t i, std::uint64_t total_count, int bits, KeyRandom& random) {
  const std::uint64_t offset = random.next() >> (64 - bits);
  return std::uint64_t(((u128(i) << bits) + offset) / total_count);
}

template <class T>
std::uint64_t sorted_index(std::uint64_t i, std::uint64_t total_count, KeyRandom& random) {
  return grid_sorted_index(i, total_count, UniformGrid<T>::kBits, random);
}

// The sorted index moved by Gaussian noise whose standard deviation is 2 key spacings (the thesis's
// generator uses 2 x the gap to the next key), clamped to the grid. Since neighbouring sorted keys are
// one spacing apart, about a third of neighbouring pairs end up inverted (P(N(1, 8) < 0) = 0.36), but
// keys practically never move more than 20 spacings (10 sd; the hard limit is 14.1 sd).
inline std::uint64_t grid_nearly_sorted_index(std::uint64_t i, std::uint64_t total_count, int bits,
                                              const StandardNormal& normal, KeyRandom& random) {
  const std::uint64_t index = grid_sorted_index(i, total_count, bits, random);
  const double spacing = std::ldexp(1.0, bits) / double(total_count);
  const double shift = std::round(2.0 * spacing * normal(random));  // |shift| < 2^70
  const i128 moved = i128(index) + i128(shift);
  const std::uint64_t max_index = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  return std::uint64_t(std::clamp<i128>(moved, 0, i128(max_index)));
}

template <class T>
std::uint64_t nearly_sorted_index(std::uint64_t i, std::uint64_t total_count, const StandardNormal& normal,
                                  KeyRandom& random) {
  return grid_nearly_sorted_index(i, total_count, UniformGrid<T>::kBits, normal, random);
}

}  // namespace rmgsort::detail
