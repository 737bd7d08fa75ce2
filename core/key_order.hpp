// The order rmgsort sorts in, expressed as an order-preserving bijection from a key to unsigned
// "radix bits": sorting the radix bits as unsigned integers sorts the keys. The radix sorts (CPU and
// GPU) apply encode() while reading the first time and decode() while writing the last time, so signed
// and floating-point keys cost no extra pass.
//
// The order (ascending): integers by value. Floats: -inf < negative < -0.0 < +0.0 < positive < +inf,
// then every NaN (any sign, any payload). Descending reverses the numbers and keeps the NaNs last.
// encode() is a bijection, so decode(encode(k)) == k bit for bit: the output is a permutation of the
// input's bit patterns.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__CUDACC__)
#define RMGSORT_HOST_DEVICE __host__ __device__
#else
#define RMGSORT_HOST_DEVICE
#endif

namespace rmgsort {

enum class SortOrder : bool { ascending = false, descending = true };

template <class T>
using RadixBits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <class T, SortOrder kOrder>
struct KeyOrder {
  static_assert(std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8));
  using Bits = RadixBits<T>;
  static constexpr int kBits = 8 * sizeof(T);
  static constexpr Bits kSignBit = Bits{1} << (kBits - 1);
  static constexpr bool kDescending = kOrder == SortOrder::descending;

  // Floats only: mantissa width, and the number of bit patterns that are negative NaNs.
  static constexpr int kMantissaBits = sizeof(T) == 4 ? 23 : 52;
  static constexpr Bits kNegativeNaNs = (Bits{1} << kMantissaBits) - 1;
  // Floats only: after encoding, the numbers (±inf included) are exactly [0, kFirstNaN) and the
  // NaNs exactly [kFirstNaN, 2^kBits). Sign-magnitude twiddling alone puts the negative NaNs first;
  // subtracting kNegativeNaNs (mod 2^kBits) rotates them above the positive NaNs.
  static constexpr Bits kFirstNaN = Bits(0) - 2 * kNegativeNaNs;

  RMGSORT_HOST_DEVICE static constexpr Bits encode(T key) {
    const Bits bits = __builtin_bit_cast(Bits, key);
    if constexpr (std::is_floating_point_v<T>) {
      const Bits twiddled = (bits & kSignBit) ? Bits(~bits) : Bits(bits | kSignBit);
      const Bits rotated = twiddled - kNegativeNaNs;
      if constexpr (kDescending) return rotated < kFirstNaN ? Bits(kFirstNaN - 1 - rotated) : rotated;
      return rotated;
    } else if constexpr (std::is_signed_v<T>) {
      return kDescending ? Bits(~(bits ^ kSignBit)) : Bits(bits ^ kSignBit);
    } else {
      return kDescending ? Bits(~bits) : bits;
    }
  }

  RMGSORT_HOST_DEVICE static constexpr T decode(Bits radix) {
    Bits bits;
    if constexpr (std::is_floating_point_v<T>) {
      Bits rotated = radix;
      if constexpr (kDescending) rotated = radix < kFirstNaN ? Bits(kFirstNaN - 1 - radix) : radix;
      const Bits twiddled = rotated + kNegativeNaNs;
      bits = (twiddled & kSignBit) ? Bits(twiddled ^ kSignBit) : Bits(~twiddled);
    } else if constexpr (std::is_signed_v<T>) {
      bits = kDescending ? Bits(~radix ^ kSignBit) : Bits(radix ^ kSignBit);
    } else {
      bits = kDescending ? Bits(~radix) : radix;
    }
    return __builtin_bit_cast(T, bits);
  }

  // The rank that decides order in check(): encode(), with every NaN given one and the same rank,
  // so NaNs may stand in any order among themselves (std::sort with a NaN-last comparator places
  // them arbitrarily), while -0.0 must still precede +0.0.
  RMGSORT_HOST_DEVICE static constexpr Bits rank(T key) {
    const Bits radix = encode(key);
    if constexpr (std::is_floating_point_v<T>) return radix < kFirstNaN ? radix : kFirstNaN;
    return radix;
  }
};

// A strict weak order on keys that matches KeyOrder (for std::sort references in tests and tools).
template <class T, SortOrder kOrder>
struct KeyLess {
  constexpr bool operator()(T a, T b) const {
    return KeyOrder<T, kOrder>::rank(a) < KeyOrder<T, kOrder>::rank(b);
  }
};

}  // namespace rmgsort
