// The ziggurat's tables and its tail (generate/normal_sampler.hpp).
#include "generate/normal_sampler.hpp"

#include <cmath>

namespace rmgsort::detail {

StandardNormal::StandardNormal() {
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

double StandardNormal::tail(KeyRandom& random, bool negative) {
  double a = 0, b = 0;
  do {
    a = std::log(unit_interval_above_zero(random.next())) / kTailStart;
    b = std::log(unit_interval_above_zero(random.next()));
  } while (-2 * b < a * a);
  return negative ? a - kTailStart : kTailStart - a;
}

const StandardNormal& standard_normal() {
  static const StandardNormal sampler;
  return sampler;
}

}  // namespace rmgsort::detail
