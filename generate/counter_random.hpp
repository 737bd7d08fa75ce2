// Counter-based random numbers for the key generator: the draws of key `index` are a pure function of
// (stream, index), so keys can be computed in any order, by any thread, in any chunking.
#pragma once

#include <cstdint>

namespace rmgsort::detail {

using u128 = unsigned __int128;
using i128 = __int128;

// splitmix64's increment (2^64 / golden ratio) and a second odd constant for the draws after a key's
// first one.
constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15;
constexpr std::uint64_t kDrawGamma = 0xd1b54a32d192ed03;

// Stafford's Mix13, the finaliser of splitmix64: a bijection whose outputs for the counter sequence
// c, c + kGolden, c + 2 kGolden, ... pass BigCrush. It is what makes key i's first draw good.
constexpr std::uint64_t mix13(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}

// Evensen's moremur: a second bijection with unrelated constants, so that the later draws of one key
// are not the splitmix64 outputs of some other key.
constexpr std::uint64_t moremur(std::uint64_t x) {
  x = (x ^ (x >> 27)) * 0x3c79ac492ba7b653;
  x = (x ^ (x >> 33)) * 0x1c69b3f74ac4ae35;
  return x ^ (x >> 27);
}

// The random numbers of key `index`. Draw 0 is splitmix64's output at counter `index` of the seed's
// stream (one Mix13: the cost of a uniform key); draw d > 0 hashes draw 0 with d. The draws depend on
// (stream, index) only.
class KeyRandom {
 public:
  KeyRandom(std::uint64_t stream, std::uint64_t index) : first_(mix13(stream + index * kGolden)) {}

  std::uint64_t next() {
    const std::uint64_t draw = draws_ == 0 ? first_ : moremur(first_ + draws_ * kDrawGamma);
    ++draws_;
    return draw;
  }

 private:
  std::uint64_t first_;
  std::uint64_t draws_ = 0;
};

// [0, 1) and (0, 1], in steps of 2^-53.
inline double unit_interval(std::uint64_t draw) { return double(draw >> 11) * 0x1p-53; }
inline double unit_interval_above_zero(std::uint64_t draw) {
  return double((draw >> 11) + 1) * 0x1p-53;
}

// Uniform in [0, bound), by the high half of a 128-bit product (bias below bound / 2^64).
inline std::uint64_t draw_below(std::uint64_t draw, std::uint64_t bound) {
  return std::uint64_t((u128(draw) * bound) >> 64);
}

}  // namespace rmgsort::detail
