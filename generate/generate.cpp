// How each key of a generated data set is computed. Every key is a pure function of
// (distribution, seed, index, total_count): it draws its random numbers from KeyRandom(stream, index),
// a counter-based generator, so the keys can be computed in any order, by any thread, in any chunking.
//
// This file maps each distribution to its keys of type T and runs the parallel loop; the random
// numbers (generate/counter_random.hpp), the samplers (generate/normal_sampler.hpp, generate/zipf_sampler.hpp),
// the ordered grid of uniform values (generate/uniform_grid.hpp) and the special values
// (generate/special_keys.hpp) each have a file of their own.
#include "generate/generate.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "generate/counter_random.hpp"
#include "core/key_order.hpp"
#include "generate/normal_sampler.hpp"
#include "generate/special_keys.hpp"
#include "generate/uniform_grid.hpp"
#include "generate/zipf_sampler.hpp"
#include "core/error.hpp"

namespace rmgsort {

using namespace detail;  // the generator's building blocks, from the host/ headers included above

namespace {

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
// The parallel loop

// 16 Ki keys (64 or 128 KiB) per task: scheduling costs nothing next to the work, and a task's output
// stays in L2.
constexpr std::uint64_t kKeysPerTask = std::uint64_t{1} << 14;

template <class T, class KeyAt>
void fill_keys(T* out, std::uint64_t first_index, std::uint64_t count, const KeyAt& key_at) {
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, kKeysPerTask),
                    [&](const tbb::blocked_range<std::uint64_t>& block) {
                      for (std::uint64_t j = block.begin(); j != block.end(); ++j)
                        out[j] = key_at(first_index + j);
                    });
}

}  // namespace

void validate_distribution(const Distribution& dist, KeyType type) {
  const unsigned width = unsigned(8 * key_width(type));
  if (dist.kind == Distribution::Kind::bits && dist.bits > width)
    throw Error("distribution '" + to_string(dist) + "' asks for " + std::to_string(dist.bits) +
                " random bits, but " + std::string(key_type_name(type)) + " keys have " +
                std::to_string(width) + " (expected 0 <= B <= " + std::to_string(width) + ")");
  if (dist.kind == Distribution::Kind::zipf &&
      !(std::isfinite(dist.zipf_exponent) && dist.zipf_exponent >= 0))
    throw Error("zipf exponent " + std::to_string(dist.zipf_exponent) +
                " is not a finite real number >= 0");
}

template <class T>
void generate_keys(T* out, std::uint64_t first_index, std::uint64_t count, std::uint64_t total_count,
                   const Distribution& dist, std::uint64_t seed) {
  validate_distribution(dist, KeyTypeOf<T>::value);
  if (first_index > total_count || count > total_count - first_index)
    throw Error("cannot generate keys [" + std::to_string(first_index) + ", " +
                std::to_string(first_index) + " + " + std::to_string(count) + ") of a data set of " +
                std::to_string(total_count) + " keys");
  if (count == 0) return;

  const std::uint64_t stream = mix13(seed + kGolden);  // splitmix64's first output for `seed`
  const std::uint64_t n = total_count;
  using Kind = Distribution::Kind;
  switch (dist.kind) {
    case Kind::uniform:
      return fill_keys(out, first_index, count, [stream](std::uint64_t i) {
        KeyRandom random(stream, i);
        return uniform_key<T>(random);
      });
    case Kind::normal:
      return fill_keys(out, first_index, count, [stream, &normal = standard_normal()](std::uint64_t i) {
        KeyRandom random(stream, i);
        return normal_key<T>(normal, random);
      });
    case Kind::zipf: {
      const ZipfSampler sampler(dist.zipf_exponent, kZipfMaxRank<T>);
      return fill_keys(out, first_index, count, [stream, &sampler](std::uint64_t i) {
        KeyRandom random(stream, i);
        return zipf_key<T>(sampler.sample(random));
      });
    }
    case Kind::bits: {
      // The draw's top `width` bits, of which the low `dist.bits` are kept.
      using Bits = RadixBits<T>;
      constexpr int kWidth = 8 * sizeof(T);
      const Bits mask =
          dist.bits == unsigned(kWidth) ? Bits(~Bits{0}) : Bits((Bits{1} << dist.bits) - 1);
      return fill_keys(out, first_index, count, [stream, mask](std::uint64_t i) {
        KeyRandom random(stream, i);
        return std::bit_cast<T>(Bits(Bits(random.next() >> (64 - kWidth)) & mask));
      });
    }
    case Kind::sorted:
      return fill_keys(out, first_index, count, [stream, n](std::uint64_t i) {
        KeyRandom random(stream, i);
        return UniformGrid<T>::value(sorted_index<T>(i, n, random));
      });
    case Kind::reverse:
      return fill_keys(out, first_index, count, [stream, n](std::uint64_t i) {
        const std::uint64_t mirrored = n - 1 - i;  // key i is sorted key n - 1 - i
        KeyRandom random(stream, mirrored);
        return UniformGrid<T>::value(sorted_index<T>(mirrored, n, random));
      });
    case Kind::nearly_sorted:
      return fill_keys(out, first_index, count,
                       [stream, n, &normal = standard_normal()](std::uint64_t i) {
                         KeyRandom random(stream, i);
                         return UniformGrid<T>::value(nearly_sorted_index<T>(i, n, normal, random));
                       });
    case Kind::zero: {
      // One uniform key from a stream of its own, so it is not key 0 of the uniform data set.
      KeyRandom random(moremur(stream), 0);
      const T value = uniform_key<T>(random);
      return fill_keys(out, first_index, count, [value](std::uint64_t) { return value; });
    }
    case Kind::special:
      return fill_keys(out, first_index, count, [stream](std::uint64_t i) {
        KeyRandom random(stream, i);
        return special_key<T>(random);
      });
  }
  throw Error("internal error: unhandled distribution kind " + std::to_string(int(dist.kind)));
}

#define RMGSORT_INSTANTIATE_GENERATE_KEYS(T)                                                           \
  template void generate_keys<T>(T*, std::uint64_t, std::uint64_t, std::uint64_t, const Distribution&, \
                                 std::uint64_t);
RMGSORT_INSTANTIATE_GENERATE_KEYS(std::uint32_t)
RMGSORT_INSTANTIATE_GENERATE_KEYS(std::uint64_t)
RMGSORT_INSTANTIATE_GENERATE_KEYS(std::int32_t)
RMGSORT_INSTANTIATE_GENERATE_KEYS(std::int64_t)
RMGSORT_INSTANTIATE_GENERATE_KEYS(float)
RMGSORT_INSTANTIATE_GENERATE_KEYS(double)
#undef RMGSORT_INSTANTIATE_GENERATE_KEYS

}  // namespace rmgsort
