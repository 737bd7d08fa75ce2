#include "generate/distribution.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>

#include "core/error.hpp"
#include "core/key_type.hpp"

namespace rmgsort {
namespace {

using Kind = Distribution::Kind;

struct KindName {
  Kind kind;
  std::string_view name;
  bool has_parameter;
};

constexpr std::array<KindName, 9> kKindNames = {{
    {Kind::uniform, "uniform", false},
    {Kind::normal, "normal", false},
    {Kind::zipf, "zipf", true},
    {Kind::bits, "bits", true},
    {Kind::sorted, "sorted", false},
    {Kind::reverse, "reverse", false},
    {Kind::nearly_sorted, "nearly-sorted", false},
    {Kind::zero, "zero", false},
    {Kind::special, "special", false},
}};

constexpr std::string_view kExpectedForms =
    "uniform, normal, zipf:S, bits:B, sorted, reverse, nearly-sorted, zero, special";

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

[[noreturn]] void throw_unknown(std::string_view text) {
  throw Error("unknown distribution " + quoted(text) +
              " (expected one of: " + std::string(kExpectedForms) + ")");
}

double parse_zipf_exponent(std::string_view text, std::string_view parameter) {
  double exponent = 0;
  const char* const end = parameter.data() + parameter.size();
  const auto [stop, error] = std::from_chars(parameter.data(), end, exponent);
  if (parameter.empty() || error != std::errc{} || stop != end || !std::isfinite(exponent))
    throw Error("invalid zipf exponent " + quoted(parameter) + " in " + quoted(text) +
                " (expected a real number >= 0, e.g. zipf:0.5, zipf:1, zipf:2.0)");
  if (exponent < 0)
    throw Error("zipf exponent " + quoted(parameter) + " in " + quoted(text) +
                " is negative (expected a real number >= 0)");
  return exponent + 0.0;  // "zipf:-0" gives +0, so that to_string() prints "zipf:0"
}

unsigned parse_bit_count(std::string_view text, std::string_view parameter) {
  unsigned bits = 0;
  const char* const end = parameter.data() + parameter.size();
  const auto [stop, error] = std::from_chars(parameter.data(), end, bits);
  if (parameter.empty() || stop != end ||
      (error != std::errc{} && error != std::errc::result_out_of_range))
    throw Error("invalid bit count " + quoted(parameter) + " in " + quoted(text) +
                " (expected an integer B with 0 <= B <= the key's width in bits, e.g. bits:20)");
  // The widest key: bytes:32 (whether B fits the key type is validate_distribution()'s to say).
  constexpr unsigned kMostBits = 8 * kMaxBytesKey;
  if (error == std::errc::result_out_of_range || bits > kMostBits)
    throw Error("bit count " + quoted(parameter) + " in " + quoted(text) + " is out of range (expected 0 <= B <= " +
                std::to_string(kMostBits) + ", at most the key's width in bits)");
  return bits;
}

}  // namespace

Distribution parse_distribution(std::string_view text) {
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const bool has_parameter = colon != std::string_view::npos;
  const std::string_view parameter = has_parameter ? text.substr(colon + 1) : std::string_view{};

  for (const KindName& entry : kKindNames) {
    if (entry.name != name) continue;
    if (!entry.has_parameter && has_parameter)
      throw Error("distribution " + quoted(name) + " takes no parameter (got " + quoted(text) + ")");
    Distribution dist;
    dist.kind = entry.kind;
    if (entry.kind == Kind::zipf) {
      if (!has_parameter)
        throw Error(
            "distribution 'zipf' needs an exponent: zipf:S with S a real number >= 0, "
            "e.g. zipf:1.0");
      dist.zipf_exponent = parse_zipf_exponent(text, parameter);
    } else if (entry.kind == Kind::bits) {
      if (!has_parameter)
        throw Error(
            "distribution 'bits' needs a bit count: bits:B with 0 <= B <= key width, "
            "e.g. bits:20");
      dist.bits = parse_bit_count(text, parameter);
    }
    return dist;
  }
  throw_unknown(text);
}

std::string to_string(const Distribution& dist) {
  for (const KindName& entry : kKindNames) {
    if (entry.kind != dist.kind) continue;
    std::string text(entry.name);
    if (dist.kind == Kind::zipf) {
      // Shortest text that reads back as the same double, so parse(to_string(d)) == d.
      std::array<char, 32> buffer{};
      const auto result =
          std::to_chars(buffer.data(), buffer.data() + buffer.size(), dist.zipf_exponent);
      text.append(":").append(buffer.data(), result.ptr);
    } else if (dist.kind == Kind::bits) {
      text.append(":").append(std::to_string(dist.bits));
    }
    return text;
  }
  return "?";
}

std::string distribution_help() {
  return "Distributions (w = key width in bits; the same seed and key count give the same file,\n"
         "whatever the number of threads):\n"
         "  uniform        integers: every bit pattern equally likely (signed keys include negatives).\n"
         "                 floats: uniform reals in [-1, 1), on the grid of multiples of 2^-23 (f32)\n"
         "                 or 2^-52 (f64); no NaN, no inf.\n"
         "  normal         Gaussian. unsigned: mean max/2, sd max/6; signed: mean 0, sd max/3; both\n"
         "                 clamped to the type's range. floats: N(0, 1).\n"
         "  zipf:S         Zipf's law: rank r in [1, 2^w - 1] with P(r) ~ r^-S, S a real >= 0\n"
         "                 (zipf:0.5, zipf:1, zipf:1.5). unsigned keys are r; signed keys are\n"
         "                 0, -1, 1, -2, 2, ... for r = 1, 2, 3, 4, 5, ...; floats are that signed\n"
         "                 value converted to the float type. zipf:0 is uniform over the ranks.\n"
         "  bits:B         \"bit entropy\": the B least significant bits random, all others zero,\n"
         "                 0 <= B <= w; bits:0 makes every key zero. Floats get these bit patterns\n"
         "                 as they are: mostly denormals, and with B = w every pattern, NaNs included.\n"
         "  sorted         the uniform distribution in ascending order, generated without sorting:\n"
         "                 key i is drawn from the i-th of n equal slices of the uniform range.\n"
         "  reverse        sorted, in descending order.\n"
         "  nearly-sorted  sorted plus Gaussian noise with a standard deviation of 2 key spacings\n"
         "                 (clamped to the range): every key stays within about 20 places of its\n"
         "                 sorted position, and about a third of neighbouring pairs are inverted.\n"
         "  zero           every key the same value (drawn from the seed as a uniform key).\n"
         "  special        about half the keys special values, the rest uniform. floats: quiet and\n"
         "                 signalling NaNs of both signs, +-inf, +-0, smallest and largest denormals\n"
         "                 and smallest normals of both signs, lowest, max, epsilon, 1, -1.\n"
         "                 integers: min, min+1, -1 (signed), 0, 1, max-1, max, and the values either\n"
         "                 side of the sign bit (unsigned).\n"
         "\n"
         "bytes:N keys hold a number big-endian, so that memcmp order is its order; W = min(N, 8):\n"
         "uniform: every byte random. sorted, reverse, nearly-sorted: the index on a grid of 2^(8W)\n"
         "values in the first W bytes; normal: the u64 normal key's top W bytes there; zero bytes after\n"
         "them. zipf:S: the rank (up to 2^(8W) - 1) and bits:B: B random low bits (B <= 8N), both as\n"
         "N-byte numbers. zero: one uniform key repeated. special: all 0x00, all 0xff, 0x7f and 0x80\n"
         "bytes, a single 1 bit at either end, ... mixed with uniform keys.\n"
         "\n"
         "Records (--record-size, --key-offset): record i holds key i (a number key is the same key as in\n"
         "a file of bare keys) and a payload (the bytes outside the key) that starts with i (u64,\n"
         "little-endian, as much of it as fits), then bytes drawn from the seed and i. -t bytes:10\n"
         "--record-size 100 writes the Sort Benchmark's (gensort's) record layout instead. --count\n"
         "counts records; --size must be a whole number of them.\n";
}

}  // namespace rmgsort
