// N(0, 1) by the ziggurat method, drawing from a key's counter-based random numbers.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

#include "generate/counter_random.hpp"

namespace rmgsort::detail {

// N(0, 1) by the ziggurat method (G. Marsaglia, W. W. Tsang, "The ziggurat method for generating
// random variables", J. Stat. Softw. 5(8), 2000) in the form of J. A. Doornik, "An improved ziggurat
// method to generate normal random samples" (2005), which takes the layer and the abscissa from
// different bits. 97% of the samples cost one draw, one table look-up and one comparison; the rest
// take exponentials or loop. The largest |z| it can return is 14.1 (the tail at 2^-53).
//
// operator() is defined here so that the one-draw path inlines into the per-key loop; the table
// construction and the rare tail live in normal_sampler.cpp.
class StandardNormal {
 public:
  StandardNormal();

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
  static double tail(KeyRandom& random, bool negative);

  std::array<double, kLayers + 1> x_{};  // x_[i]: right edge of layer i, decreasing to x_[128] = 0
  std::array<double, kLayers> inner_ratio_{};
};

// The tables are computed once, the same way on every call, so every key sees the same values.
const StandardNormal& standard_normal();

}  // namespace rmgsort::detail
