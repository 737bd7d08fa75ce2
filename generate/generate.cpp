// Bare keys of a generated data set: what each key is comes from generate/number_keys.hpp; this file
// runs the parallel loop and checks the requests.
#include "generate/generate.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "generate/number_keys.hpp"

namespace rmgsort {
namespace {

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

void validate_distribution(const Distribution& dist, KeySpec key) {
  const unsigned width = unsigned(8 * key.width);
  if (dist.kind == Distribution::Kind::bits && dist.bits > width)
    throw Error("distribution '" + to_string(dist) + "' asks for " + std::to_string(dist.bits) +
                " random bits, but " + key.name() + " keys have " + std::to_string(width) +
                " (expected 0 <= B <= " + std::to_string(width) + ")");
  if (dist.kind == Distribution::Kind::zipf && !(std::isfinite(dist.zipf_exponent) && dist.zipf_exponent >= 0))
    throw Error("zipf exponent " + std::to_string(dist.zipf_exponent) + " is not a finite real number >= 0");
}

void validate_distribution(const Distribution& dist, KeyType type) {
  RMGSORT_EXPECTS(type != KeyType::bytes, "validate_distribution: bytes keys need their width (a KeySpec)");
  validate_distribution(dist, KeySpec{type, key_width(type)});
}

void check_generate_range(std::uint64_t first_index, std::uint64_t count, std::uint64_t total_count,
                          std::string_view what) {
  if (first_index > total_count || count > total_count - first_index)
    throw Error("cannot generate " + std::string(what) + " [" + std::to_string(first_index) + ", " +
                std::to_string(first_index) + " + " + std::to_string(count) + ") of a data set of " +
                std::to_string(total_count) + " " + std::string(what));
}

template <class T>
void generate_keys(T* out, std::uint64_t first_index, std::uint64_t count, std::uint64_t total_count,
                   const Distribution& dist, std::uint64_t seed) {
  validate_distribution(dist, KeyTypeOf<T>::value);
  check_generate_range(first_index, count, total_count, "keys");
  if (count == 0) return;
  detail::visit_number_keys<T>(dist, seed, total_count,
                               [&](const auto& key_at) { fill_keys(out, first_index, count, key_at); });
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
