// How each key of a generated data set is computed. Every key is a pure function of
// (distribution, seed, index, total_count): it draws its random numbers from KeyRandom(stream, index),
// a counter-based generator, so the keys can be computed in any order, by any thread, in any chunking.
#include "host/generate.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <type_traits>

#include "host/key_order.hpp"
#include "io/error.hpp"

namespace rmgsort {
namespace {

using u128 = unsigned __int128;
using i128 = __int128;

// ---------------------------------------------------------------------------------------------------
// Counter-based random numbers

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
double unit_interval(std::uint64_t draw) { return double(draw >> 11) * 0x1p-53; }
double unit_interval_above_zero(std::uint64_t draw) { return double((draw >> 11) + 1) * 0x1p-53; }

// Uniform in [0, bound), by the high half of a 128-bit product (bias below bound / 2^64).
std::uint64_t draw_below(std::uint64_t draw, std::uint64_t bound) {
  return std::uint64_t((u128(draw) * bound) >> 64);
}

// N(0, 1) by the ziggurat method (G. Marsaglia, W. W. Tsang, "The ziggurat method for generating
// random variables", J. Stat. Softw. 5(8), 2000) in the form of J. A. Doornik, "An improved ziggurat
// method to generate normal random samples" (2005), which takes the layer and the abscissa from
// different bits. 97% of the samples cost one draw, one table look-up and one comparison; the rest
// take exponentials or loop. The largest |z| it can return is 14.1 (the tail at 2^-53).
class StandardNormal {
 public:
  StandardNormal() {
    double f = std::exp(-0.5 * kTailStart * kTailStart);
    x_[0] = kLayerArea / f;  // the bottom layer: a rectangle of width x_[0] standing for box + tail
    x_[1] = kTailStart;
    x_[kLayers] = 0;
    for (int i = 2; i < kLayers; ++i) {
      x_[i] = std::sqrt(-2 * std::log(kLayerArea / x_[i - 1] + f));
      f = std::exp(-0.5 * x_[i] * x_[i]);
    }
    for (int i = 0; i < kLayers; ++i) inner_ratio_[i] = x_[i + 1] / x_[i];
  }

  double operator()(KeyRandom& random) const {
    for (;;) {
      const std::uint64_t draw = random.next();
      const double u = double(std::int64_t(draw) >> 11) * 0x1p-52;  // [-1, 1), from the top 53 bits
      const unsigned layer = unsigned(draw & (kLayers - 1));        // from the low 7 bits
      if (std::abs(u) < inner_ratio_[layer]) return u * x_[layer];  // inside the layer's core box
      if (layer == 0) return tail(random, u < 0);
      const double x = u * x_[layer];  // in the wedge: accept under the density
      const double f_outer = std::exp(-0.5 * (x_[layer] * x_[layer] - x * x));
      const double f_inner = std::exp(-0.5 * (x_[layer + 1] * x_[layer + 1] - x * x));
      if (f_inner + unit_interval(random.next()) * (f_outer - f_inner) < 1.0) return x;
    }
  }

 private:
  static constexpr int kLayers = 128;
  static constexpr double kTailStart = 3.442619855899;       // r for 128 layers
  static constexpr double kLayerArea = 9.91256303526217e-3;  // v, the area of every layer

  // Marsaglia's tail method: beyond r the density is sampled as r + a, a ~ Exp(r) thinned.
  static double tail(KeyRandom& random, bool negative) {
    double a = 0, b = 0;
    do {
      a = std::log(unit_interval_above_zero(random.next())) / kTailStart;
      b = std::log(unit_interval_above_zero(random.next()));
    } while (-2 * b < a * a);
    return negative ? a - kTailStart : kTailStart - a;
  }

  std::array<double, kLayers + 1> x_{};  // x_[i]: right edge of layer i, decreasing to x_[128] = 0
  std::array<double, kLayers> inner_ratio_{};
};

// The tables are computed once, the same way on every call, so every key sees the same values.
const StandardNormal& standard_normal() {
  static const StandardNormal sampler;
  return sampler;
}

// ---------------------------------------------------------------------------------------------------
// The uniform distribution as an index into an ordered grid

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

// Stratified sampling: key i of n takes the grid index at quantile (i + u) / n, u uniform in [0, 1):
// floor((i * 2^kBits + offset) / n) with offset a random kBits-bit number. Exact integer arithmetic,
// and floor((i + u) 2^kBits / n) < (i + 1) 2^kBits / n <= the next key's value, so the sequence is
// non-decreasing across any chunking, with no sort.
template <class T>
std::uint64_t sorted_index(std::uint64_t i, std::uint64_t total_count, KeyRandom& random) {
  const std::uint64_t offset = UniformGrid<T>::random_index(random.next());
  return std::uint64_t(((u128(i) << UniformGrid<T>::kBits) + offset) / total_count);
}

// The sorted index moved by Gaussian noise whose standard deviation is 2 key spacings (the thesis's
// generator uses 2 x the gap to the next key), clamped to the grid. Since neighbouring sorted keys are
// one spacing apart, about a third of neighbouring pairs end up inverted (P(N(1, 8) < 0) = 0.36), but
// keys practically never move more than 20 spacings (10 sd; the hard limit is 14.1 sd).
template <class T>
std::uint64_t nearly_sorted_index(std::uint64_t i, std::uint64_t total_count,
                                  const StandardNormal& normal, KeyRandom& random) {
  const std::uint64_t index = sorted_index<T>(i, total_count, random);
  const double spacing = std::ldexp(1.0, UniformGrid<T>::kBits) / double(total_count);
  const double shift = std::round(2.0 * spacing * normal(random));  // |shift| < 2^70
  const i128 moved = i128(index) + i128(shift);
  return std::uint64_t(std::clamp<i128>(moved, 0, i128(UniformGrid<T>::kMaxIndex)));
}

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

// Zipf's law on ranks [1, max_rank], P(r) ~ r^-s, by rejection-inversion: W. Hormann and
// G. Derflinger, "Rejection-inversion to generate variates from monotone discrete distributions",
// ACM TOMACS 6(3), 1996, in the formulation of Apache Commons RNG's RejectionInversionZipfSampler.
// O(1) expected work per key for every s >= 0 (s = 1 included), no tables; more than 98% of the
// candidates are accepted (computed for s from 0 to 50; the minimum is near s = 3).
//
// With h(x) = x^-s and H(x) = integral of h from 1 to x, x = H^-1(u) for u uniform in
// (H(1.5) - h(1), H(max_rank + 0.5)] is continuous with density proportional to h; rounding x to the
// nearest rank k and rejecting the part of [k - 1/2, k + 1/2) whose area exceeds h(k) gives P(k) ~ h(k).
class ZipfSampler {
 public:
  ZipfSampler(double exponent, std::uint64_t max_rank)
      : exponent_(exponent),
        max_rank_(max_rank),
        h_integral_x1_(h_integral(1.5) - 1.0),
        h_integral_n_(h_integral(double(max_rank) + 0.5)),
        squeeze_(2.0 - std::exp(log_h_integral_inverse(h_integral(2.5) - h(2.0)))),
        u_resolution_(std::abs(h_integral_n_ - h_integral_x1_) * 0x1p-53),
        smooth_above_log_x_(smoothing_threshold()) {}

  std::uint64_t sample(KeyRandom& random) const {
    for (;;) {
      const double u = h_integral_n_ + unit_interval(random.next()) * (h_integral_x1_ - h_integral_n_);
      const double log_x = log_h_integral_inverse(u);
      const double x = std::exp(log_x);
      if (log_x > smooth_above_log_x_) {
        const double grain = grid_spacing(u, x, log_x);
        if (grain >= 2.0) return smoothed_rank(x, grain, random);
      }
      const std::uint64_t k = nearest_rank(x);
      if (double(k) - x <= squeeze_ || u >= h_integral(double(k) + 0.5) - h(double(k))) return k;
    }
  }

 private:
  // log(x) below which grid_spacing() is certainly < 2 (so the exponential it costs is skipped):
  // u's step is at most max_u_step, and x * 2^-52 < 2 below 2^53. Never below x = 64, where single
  // ranks carry probability that smoothing would blur; for the large s at which 64 binds, x > 64 has
  // probability below 2^-30.
  double smoothing_threshold() const {
    const double max_u_step =
        std::max(u_resolution_, std::max(std::abs(h_integral_x1_), std::abs(h_integral_n_)) * 0x1p-52);
    const double log_limit_of_u_step = exponent_ > 0       ? std::log(2.0 / max_u_step) / exponent_
                                       : max_u_step >= 2.0 ? 0.0
                                                           : std::numeric_limits<double>::infinity();
    return std::max(std::log(64.0), std::min(log_limit_of_u_step, 53 * std::numbers::ln2));
  }

  // log(1 + t) / t and (e^t - 1) / t, with their Taylor series where t is too small for the division.
  static double log1p_over(double t) {
    if (std::abs(t) > 1e-8) return std::log1p(t) / t;
    return 1.0 - t * (1.0 / 2 - t * (1.0 / 3 - t * (1.0 / 4)));
  }
  static double expm1_over(double t) {
    if (std::abs(t) > 1e-8) return std::expm1(t) / t;
    return 1.0 + t / 2 * (1.0 + t / 3 * (1.0 + t / 4));
  }

  double h(double x) const { return std::exp(-exponent_ * std::log(x)); }

  // H(x) = (x^(1-s) - 1) / (1 - s), and log(x) for s = 1, without cancellation near s = 1.
  double h_integral(double x) const {
    const double log_x = std::log(x);
    return expm1_over((1.0 - exponent_) * log_x) * log_x;
  }

  // log(H^-1(u)).
  double log_h_integral_inverse(double u) const {
    const double t = std::max(u * (1.0 - exponent_), -1.0);
    return log1p_over(t) * u;
  }

  std::uint64_t nearest_rank(double x) const {
    const double rounded = x + 0.5;
    if (!(rounded < 0x1p64)) return max_rank_;
    return std::clamp<std::uint64_t>(std::uint64_t(rounded), 1, max_rank_);
  }

  // How far apart the values of x are near this x: u moves in steps of its resolution (53 bits across
  // its range, or its own ulp), dx/du = 1 / h(x) = x^s, and x itself is a double. For s = 1 near
  // x = 2^63 this is about 2^16 ranks.
  double grid_spacing(double u, double x, double log_x) const {
    const double u_step = std::max(std::abs(u) * 0x1p-52, u_resolution_);
    return std::max(u_step * std::exp(exponent_ * log_x), x * 0x1p-52);
  }

  // Where x can only take values `grain` ranks apart, rounding would give large ranks constant low
  // bits; instead the probability of one grid step is spread evenly over the ranks it stands for. h
  // varies across a step by a factor of 1 +- s * grain / x, below 2^-20 wherever P(rank > x) > 2^-30;
  // and at such x the rejection test would accept anyway (it rejects s (s + 1) / (24 x^2) of a rank).
  std::uint64_t smoothed_rank(double x, double grain, KeyRandom& random) const {
    if (!(x < 0x1p64)) return max_rank_;
    grain = std::min(grain, x / 2);
    const i128 rank = i128(x - grain / 2) + i128(draw_below(random.next(), std::uint64_t(grain)));
    return std::uint64_t(std::clamp<i128>(rank, 1, max_rank_));
  }

  double exponent_;
  std::uint64_t max_rank_;
  double h_integral_x1_;
  double h_integral_n_;
  double squeeze_;  // k - x <= squeeze_ accepts at once, without computing H
  double u_resolution_;
  double smooth_above_log_x_;
};

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
