// The key distributions `rmgsort generate` produces (thesis §5.4), their command-line spelling
// ("uniform", "zipf:1.5", "bits:20", ...) and the help text that defines each one. What the keys of
// each distribution are, bit for bit, is decided in generate/generate.cpp; distribution_help() is the
// user-facing statement of the same definitions and must be kept in step with it.
#pragma once

#include <string>
#include <string_view>

namespace rmgsort {

struct Distribution {
  enum class Kind { uniform, normal, zipf, bits, sorted, reverse, nearly_sorted, zero, special };

  Kind kind = Kind::uniform;
  // zipf only: the exponent S of P(rank r) ~ r^-S; finite and >= 0 (0 is uniform over the ranks).
  double zipf_exponent = 0;
  // bits only: how many least significant bits are random, 0..256 (bytes:32). Whether it fits the
  // key type is checked by validate_distribution() (generate/generate.hpp), which knows the type.
  unsigned bits = 0;

  friend bool operator==(const Distribution&, const Distribution&) = default;
};

// Parses "uniform", "normal", "zipf:S", "bits:B", "sorted", "reverse", "nearly-sorted", "zero",
// "special". Throws rmgsort::Error naming the text and what was expected.
[[nodiscard]] Distribution parse_distribution(std::string_view text);

// The spelling parse_distribution() accepts: parse_distribution(to_string(d)) == d.
[[nodiscard]] std::string to_string(const Distribution& dist);

// Several lines, one paragraph per distribution, for `rmgsort generate --help`.
[[nodiscard]] std::string distribution_help();

}  // namespace rmgsort
