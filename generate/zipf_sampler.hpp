// Zipf's law on ranks [1, max_rank] by rejection-inversion, drawing from a key's counter-based random
// numbers.
#pragma once

#include <cstdint>

#include "generate/counter_random.hpp"

namespace rmgsort::detail {

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
  ZipfSampler(double exponent, std::uint64_t max_rank);

  std::uint64_t sample(KeyRandom& random) const;

 private:
  // Each is documented at its definition in generate/zipf_sampler.cpp.
  double smoothing_threshold() const;
  double h(double x) const;
  double h_integral(double x) const;
  double log_h_integral_inverse(double u) const;
  std::uint64_t nearest_rank(double x) const;
  double grid_spacing(double u, double x, double log_x) const;
  std::uint64_t smoothed_rank(double x, double grain, KeyRandom& random) const;

  // The constructor computes these in declaration order, each from members declared above it.
  double exponent_;
  std::uint64_t max_rank_;
  double h_integral_x1_;
  double h_integral_n_;
  double squeeze_;  // k - x <= squeeze_ accepts at once, without computing H
  double u_resolution_;
  double smooth_above_log_x_;
};

}  // namespace rmgsort::detail
