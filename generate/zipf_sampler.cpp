// Rejection-inversion for Zipf's law (generate/zipf_sampler.hpp): the sampling loop, H and its inverse,
// and the smoothing of ranks where x's grid is coarser than one rank.
#include "generate/zipf_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace rmgsort::detail {
namespace {

// log(1 + t) / t and (e^t - 1) / t, with their Taylor series where t is too small for the division.
double log1p_over(double t) {
  if (std::abs(t) > 1e-8) return std::log1p(t) / t;
  return 1.0 - t * (1.0 / 2 - t * (1.0 / 3 - t * (1.0 / 4)));
}
double expm1_over(double t) {
  if (std::abs(t) > 1e-8) return std::expm1(t) / t;
  return 1.0 + t / 2 * (1.0 + t / 3 * (1.0 + t / 4));
}

}  // namespace

ZipfSampler::ZipfSampler(double exponent, std::uint64_t max_rank)
    : exponent_(exponent),
      max_rank_(max_rank),
      h_integral_x1_(h_integral(1.5) - 1.0),
      h_integral_n_(h_integral(double(max_rank) + 0.5)),
      squeeze_(2.0 - std::exp(log_h_integral_inverse(h_integral(2.5) - h(2.0)))),
      u_resolution_(std::abs(h_integral_n_ - h_integral_x1_) * 0x1p-53),
      smooth_above_log_x_(smoothing_threshold()) {}

std::uint64_t ZipfSampler::sample(KeyRandom& random) const {
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

// log(x) below which grid_spacing() is certainly < 2 (so the exponential it costs is skipped):
// u's step is at most max_u_step, and x * 2^-52 < 2 below 2^53. Never below x = 64, where single
// ranks carry probability that smoothing would blur; for the large s at which 64 binds, x > 64 has
// probability below 2^-30.
double ZipfSampler::smoothing_threshold() const {
  const double max_u_step =
      std::max(u_resolution_, std::max(std::abs(h_integral_x1_), std::abs(h_integral_n_)) * 0x1p-52);
  const double log_limit_of_u_step = exponent_ > 0       ? std::log(2.0 / max_u_step) / exponent_
                                     : max_u_step >= 2.0 ? 0.0
                                                         : std::numeric_limits<double>::infinity();
  return std::max(std::log(64.0), std::min(log_limit_of_u_step, 53 * std::numbers::ln2));
}

double ZipfSampler::h(double x) const { return std::exp(-exponent_ * std::log(x)); }

// H(x) = (x^(1-s) - 1) / (1 - s), and log(x) for s = 1, without cancellation near s = 1.
double ZipfSampler::h_integral(double x) const {
  const double log_x = std::log(x);
  return expm1_over((1.0 - exponent_) * log_x) * log_x;
}

// log(H^-1(u)).
double ZipfSampler::log_h_integral_inverse(double u) const {
  const double t = std::max(u * (1.0 - exponent_), -1.0);
  return log1p_over(t) * u;
}

std::uint64_t ZipfSampler::nearest_rank(double x) const {
  const double rounded = x + 0.5;
  if (!(rounded < 0x1p64)) return max_rank_;
  return std::clamp<std::uint64_t>(std::uint64_t(rounded), 1, max_rank_);
}

// How far apart the values of x are near this x: u moves in steps of its resolution (53 bits across
// its range, or its own ulp), dx/du = 1 / h(x) = x^s, and x itself is a double. For s = 1 near
// x = 2^63 this is about 2^16 ranks.
double ZipfSampler::grid_spacing(double u, double x, double log_x) const {
  const double u_step = std::max(std::abs(u) * 0x1p-52, u_resolution_);
  return std::max(u_step * std::exp(exponent_ * log_x), x * 0x1p-52);
}

// Where x can only take values `grain` ranks apart, rounding would give large ranks constant low
// bits; instead the probability of one grid step is spread evenly over the ranks it stands for. h
// varies across a step by a factor of 1 +- s * grain / x, below 2^-20 wherever P(rank > x) > 2^-30;
// and at such x the rejection test would accept anyway (it rejects s (s + 1) / (24 x^2) of a rank).
std::uint64_t ZipfSampler::smoothed_rank(double x, double grain, KeyRandom& random) const {
  if (!(x < 0x1p64)) return max_rank_;
  grain = std::min(grain, x / 2);
  const i128 rank = i128(x - grain / 2) + i128(draw_below(random.next(), std::uint64_t(grain)));
  return std::uint64_t(std::clamp<i128>(rank, 1, max_rank_));
}

}  // namespace rmgsort::detail
