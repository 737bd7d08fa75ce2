// The special values of each key type: the bit patterns the `special` distribution mixes into
// uniform keys.
#pragma once

#include <array>
#include <bit>
#include <limits>
#include <type_traits>

#include "core/key_order.hpp"

namespace rmgsort::detail {

// The bit patterns the special distribution mixes in: the values where sign handling, NaN ordering
// and bit twiddling go wrong.
template <class T>
constexpr auto special_bit_patterns() {
  using Bits = RadixBits<T>;
  using Limits = std::numeric_limits<T>;
  constexpr auto bits = [](T value) { return std::bit_cast<Bits>(value); };
  if constexpr (std::is_floating_point_v<T>) {
    constexpr bool k32 = sizeof(T) == 4;
    constexpr Bits kSign = KeyOrder<T, SortOrder::ascending>::kSignBit;
    // Quiet NaNs have the top mantissa bit set; signalling NaNs have it clear and a non-zero payload.
    constexpr Bits kQuietPositive = k32 ? Bits(0x7fc00001) : Bits(0x7ff8000000000001);
    constexpr Bits kQuietNegative = k32 ? Bits(0xffc0beef) : Bits(0xfff800000000beef);
    constexpr Bits kSignallingPositive = k32 ? Bits(0x7fa5a5a5) : Bits(0x7ff5a5a5a5a5a5a5);
    constexpr Bits kSignallingNegative = k32 ? Bits(0xffa5a5a5) : Bits(0xfff5a5a5a5a5a5a5);
    constexpr Bits kLargestDenormal = bits(Limits::min()) - 1;
    return std::array<Bits, 19>{kQuietPositive,
                                kQuietNegative,
                                kSignallingPositive,
                                kSignallingNegative,
                                bits(Limits::infinity()),
                                bits(-Limits::infinity()),
                                bits(T(0)),
                                bits(-T(0)),
                                bits(Limits::denorm_min()),
                                Bits(bits(Limits::denorm_min()) | kSign),
                                kLargestDenormal,
                                Bits(kLargestDenormal | kSign),
                                bits(Limits::min()),
                                Bits(bits(Limits::min()) | kSign),
                                bits(Limits::lowest()),
                                bits(Limits::max()),
                                bits(Limits::epsilon()),
                                bits(T(1)),
                                bits(T(-1))};
  } else if constexpr (std::is_signed_v<T>) {
    return std::array<Bits, 7>{
        bits(Limits::min()), bits(T(Limits::min() + 1)), bits(T(-1)),        bits(T(0)),
        bits(T(1)),          bits(T(Limits::max() - 1)), bits(Limits::max())};
  } else {
    constexpr T kSignBit = T(1) << (Limits::digits - 1);
    return std::array<Bits, 6>{0, 1, T(kSignBit - 1), kSignBit, T(Limits::max() - 1), Limits::max()};
  }
}

}  // namespace rmgsort::detail
