// The six key types, for TYPED_TEST_SUITE, and helpers shared by the host tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace rmgsort::testing {

using AllKeyTypes = ::testing::Types<std::uint32_t, std::uint64_t, std::int32_t, std::int64_t, float, double>;

template <class T>
auto bits_of(T key) {
  return __builtin_bit_cast(std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>, key);
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

}  // namespace rmgsort::testing
