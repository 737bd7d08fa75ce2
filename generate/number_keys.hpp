// How each number key (u32 .. f64) of a generated data set is computed: visit_number_keys() maps a
// distribution to the function "index -> key", so that bare keys (generate/generate.cpp) and the keys
// of records (generate/generate_records.cpp) are the same keys, bit for bit.
//
// Every key is a pure function of (distribution, seed, index, total_count): it draws its random
// numbers from KeyRandom(key_stream(seed), index), a counter-based generator, so the keys can be
// computed in any order, by any thread, in any chunking.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "core/key_order.hpp"
#include "generate/counter_random.hpp"
#include "generate/distribution.hpp"
#include "generate/normal_sampler.hpp"
#include "generate/special_keys.hpp"
#include "generate/uniform_grid.hpp"
#include "generate/zipf_sampler.hpp"

namespace rmgsort::detail {

// The stream every key draws from: splitmix64's first output for `seed`.
inline std::uint64_t key_stream(std::uint64_t seed) { return mix13(seed + kGolden); }

// ---------------------------------------------------------------------------------------------------
// normal

template <class T>
T normal_key(const StandardNormal& normal, KeyRandom& random) {
  const double z = normal(random);
  if constexpr (std::is_floating_point_v<T>) {
    return T(z);
  } else {
    using Limits = std::numeric_limits<T>;
    // Both bounds are exact doubles: 0 or -2^(w-1), and 2^w or 2^(w-1) (max + 1; for 64-bit types
    // double(max) already rounds up to it).
    constexpr double kLowest = double(Limits::min());
    constexpr double kAboveMax = double(Limits::max()) + 1.0;
    constexpr double kMean = std::is_signed_v<T> ? 0.0 : double(Limits::max()) / 2;
    constexpr double kSd = std::is_signed_v<T> ? double(Limits::max()) / 3 : double(Limits::max()) / 6;
    const double x = kMean + kSd * z;
    // Clamp before converting: converting an out-of-range double is undefined.
    if (x <= kLowest) return Limits::min();
    if (x >= kAboveMax) return Limits::max();
    T key = T(x);
    if constexpr (sizeof(T) == 8) {
      // A double has 53 significant bits, so for |x| >= 2^62 the low 10-11 bits of T(x) are always 0.
      // Random low bits keep the lowest radix digit from being constant; moving a key by < 2^11 is
      // nothing against a standard deviation of about 3 * 10^18.
      using Bits = RadixBits<T>;
      constexpr Bits kLowBits = 0x7ff;
      key = T((Bits(key) & ~kLowBits) | (random.next() & kLowBits));
    }
    return key;
  }
}

// ---------------------------------------------------------------------------------------------------
// zipf

// The rank as a key: unsigned keys are the rank; signed keys the zigzag decoding of rank - 1
// (0, -1, 1, -2, 2, ...), so the frequencies stay those of the ranks and negatives appear; floats that
// signed value converted (rounded to nearest).
template <class T>
T zipf_key(std::uint64_t rank) {
  if constexpr (std::is_unsigned_v<T>) {
    return T(rank);
  } else {
    using Bits = RadixBits<T>;
    const Bits m = Bits(rank - 1);
    const auto value = std::make_signed_t<Bits>(Bits((m >> 1) ^ Bits(0 - (m & 1))));
    return T(value);
  }
}

// N = 2^32 - 1 for 32-bit keys and 2^64 - 1 for 64-bit keys, as the thesis's numeric_limits<T>::max().
template <class T>
constexpr std::uint64_t kZipfMaxRank = std::numeric_limits<RadixBits<T>>::max();

// ---------------------------------------------------------------------------------------------------
// special

template <class T>
T special_key(KeyRandom& random) {
  static constexpr auto kPatterns = special_bit_patterns<T>();
  const std::uint64_t choice = random.next();
  if (choice >> 63) return std::bit_cast<T>(kPatterns[draw_below(choice << 1, kPatterns.size())]);
  return uniform_key<T>(random);
}

// ---------------------------------------------------------------------------------------------------
// The distributions

// Calls run(key_at), key_at(i) returning key i (of type T) of the data set of TOTAL_COUNT keys that
// DIST and SEED define; key_at lives as long as the call. DIST must have passed
// validate_distribution() for T.
template <class T, class Run>
void visit_number_keys(const Distribution& dist, std::uint64_t seed, std::uint64_t total_count, Run&& run) {
  const std::uint64_t stream = key_stream(seed);
  const std::uint64_t n = total_count;
  using Kind = Distribution::Kind;
  switch (dist.kind) {
    case Kind::uniform:
      return run([stream](std::uint64_t i) {
        KeyRandom random(stream, i);
        return uniform_key<T>(random);
      });
    case Kind::normal:
      return run([stream, &normal = standard_normal()](std::uint64_t i) {
        KeyRandom random(stream, i);
        return normal_key<T>(normal, random);
      });
    case Kind::zipf: {
      const ZipfSampler sampler(dist.zipf_exponent, kZipfMaxRank<T>);
      return run([stream, &sampler](std::uint64_t i) {
        KeyRandom random(stream, i);
        return zipf_key<T>(sampler.sample(random));
      });
    }
    case Kind::bits: {
      // The draw's top `width` bits, of which the low `dist.bits` are kept.
      using Bits = RadixBits<T>;
      constexpr int kWidth = 8 * sizeof(T);
      const Bits mask = dist.bits == unsigned(kWidth) ? Bits(~Bits{0}) : Bits((Bits{1} << dist.bits) - 1);
      return run([stream, mask](std::uint64_t i) {
        KeyRandom random(stream, i);
        return std::bit_cast<T>(Bits(Bits(random.next() >> (64 - kWidth)) & mask));
      });
    }
    case Kind::sorted:
      return run([stream, n](std::uint64_t i) {
        KeyRandom random(stream, i);
        return UniformGrid<T>::value(sorted_index<T>(i, n, random));
      });
    case Kind::reverse:
      return run([stream, n](std::uint64_t i) {
        const std::uint64_t mirrored = n - 1 - i;  // key i is sorted key n - 1 - i
        KeyRandom random(stream, mirrored);
        return UniformGrid<T>::value(sorted_index<T>(mirrored, n, random));
      });
    case Kind::nearly_sorted:
      return run([stream, n, &normal = standard_normal()](std::uint64_t i) {
        KeyRandom random(stream, i);
        return UniformGrid<T>::value(nearly_sorted_index<T>(i, n, normal, random));
      });
    case Kind::zero: {
      // One uniform key from a stream of its own, so it is not key 0 of the uniform data set.
      KeyRandom random(moremur(stream), 0);
      const T value = uniform_key<T>(random);
      return run([value](std::uint64_t) { return value; });
    }
    case Kind::special:
      return run([stream](std::uint64_t i) {
        KeyRandom random(stream, i);
        return special_key<T>(random);
      });
  }
  throw Error("internal error: unhandled distribution kind " + std::to_string(int(dist.kind)));
}

}  // namespace rmgsort::detail
