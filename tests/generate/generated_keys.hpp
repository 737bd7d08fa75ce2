// Keys of a distribution as `rmgsort generate` makes them, in a vector: the input of the sorting
// tests of every layer.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "generate/distribution.hpp"
#include "generate/generate.hpp"

namespace rmgsort::testing {

// The N keys of DISTRIBUTION for SEED (all N of the data set: generate's keys 0..N-1).
template <class T>
std::vector<T> generated_keys(const Distribution& distribution, std::uint64_t n, std::uint64_t seed) {
  std::vector<T> keys(n);
  generate_keys(keys.data(), 0, n, n, distribution, seed);
  return keys;
}

template <class T>
std::vector<T> generated_keys(std::string_view distribution, std::uint64_t n, std::uint64_t seed) {
  return generated_keys<T>(parse_distribution(distribution), n, seed);
}

}  // namespace rmgsort::testing
