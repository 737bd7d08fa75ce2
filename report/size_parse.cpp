#include "report/size_parse.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

#include "core/error.hpp"

namespace rmgsort {
namespace {

struct Unit {
  std::string_view suffix;
  std::uint64_t factor;
};

// What "<number><suffix>" reads as: a value, or malformed, or a well-formed number beyond 64 bits.
struct Scaled {
  std::optional<std::uint64_t> value;
  bool too_large = false;
};

// "<number><suffix>" with suffix one of `units` (or none: factor 1). Fractions need a suffix and
// must come out whole.
Scaled parse_scaled(std::string_view text, std::initializer_list<Unit> units) {
  std::size_t number_end = 0;
  while (number_end < text.size() && (std::isdigit(static_cast<unsigned char>(text[number_end])) || text[number_end] == '.'))
    ++number_end;
  const std::string_view number = text.substr(0, number_end);
  const std::string_view suffix = text.substr(number_end);
  if (number.empty()) return {};

  std::uint64_t factor = 1;
  if (!suffix.empty()) {
    const Unit* unit = nullptr;
    for (const Unit& u : units)
      if (u.suffix == suffix) unit = &u;
    if (unit == nullptr) return {};
    factor = unit->factor;
  }

  if (number.find('.') == std::string_view::npos) {
    std::uint64_t whole = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), whole);
    if (end != number.data() + number.size()) return {};
    if (ec == std::errc::result_out_of_range) return {std::nullopt, true};
    if (ec != std::errc()) return {};
    if (whole != 0 && factor > UINT64_MAX / whole) return {std::nullopt, true};
    return {whole * factor};
  }
  if (factor == 1) return {};
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size()) return {};
  const double scaled = value * double(factor);
  if (!(scaled < 18446744073709551616.0)) return {std::nullopt, true};
  if (scaled != std::floor(scaled)) return {};
  return {std::uint64_t(scaled)};
}

// The value of SCALED, or an Error naming OPTION and TEXT: too large, or malformed as EXPECTED says.
std::uint64_t value_or_throw(const Scaled& scaled, std::string_view option, std::string_view what,
                             std::string_view text, std::string_view expected) {
  if (scaled.value) return *scaled.value;
  if (scaled.too_large)
    throw Error(std::string(option) + ": " + std::string(what) + " '" + std::string(text) +
                "' is too large (more than 2^64 - 1)");
  throw Error(std::string(option) + ": malformed " + std::string(what) + " '" + std::string(text) + "' (" +
              std::string(expected) + ")");
}

}  // namespace

std::uint64_t parse_size(std::string_view text, std::string_view option, bool allow_zero) {
  constexpr std::uint64_t K = 1ULL << 10, M = 1ULL << 20, G = 1ULL << 30, T = 1ULL << 40;
  const auto bytes = parse_scaled(text, {{"B", 1},    {"K", K},    {"k", K},    {"KB", K},   {"KiB", K},
                                         {"M", M},    {"m", M},    {"MB", M},   {"MiB", M},  {"G", G},
                                         {"g", G},    {"GB", G},   {"GiB", G},  {"T", T},    {"t", T},
                                         {"TB", T},   {"TiB", T}});
  const std::uint64_t value = value_or_throw(
      bytes, option, "size", text, "expected a whole number of bytes with an optional K, M, G or T suffix, e.g. 512M");
  if (value == 0 && !allow_zero) throw Error(std::string(option) + ": size must be greater than zero");
  return value;
}

std::uint64_t parse_size_or_percent(std::string_view text, std::string_view option, std::uint64_t whole) {
  if (text.empty() || text.back() != '%') return parse_size(text, option);
  const std::string_view number = text.substr(0, text.size() - 1);
  double percent = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), percent,
                                         std::chars_format::fixed);
  // from_chars takes a sign and "inf"/"nan" in some forms: only digits and one point are a percentage.
  const bool digits = !number.empty() && number.find_first_not_of("0123456789.") == std::string_view::npos;
  if (!digits || ec != std::errc() || end != number.data() + number.size())
    throw Error(std::string(option) + ": malformed percentage '" + std::string(text) +
                "' (expected a number from more than 0 to 100 before the %, e.g. 50%)");
  if (!(percent > 0) || percent > 100)
    throw Error(std::string(option) + ": " + std::string(text) +
                " is not a share of memory (a percentage must be more than 0 and at most 100)");
  // long double: 64 bits of mantissa keep a whole of up to 2^64 exact before the share is taken.
  const auto bytes = std::uint64_t(static_cast<long double>(whole) * percent / 100);
  if (bytes == 0)
    throw Error(std::string(option) + ": " + std::string(text) + " of " + std::to_string(whole) +
                " bytes is less than one byte");
  return bytes;
}

std::uint64_t parse_count(std::string_view text, std::string_view option) {
  const auto count = parse_scaled(text, {{"k", 1000ULL}, {"K", 1000ULL}, {"M", 1000000ULL}, {"G", 1000000000ULL}});
  return value_or_throw(count, option, "count", text,
                        "expected a whole number with an optional k, M or G suffix, e.g. 4G = 4000000000");
}

std::string format_bytes_exactly(std::uint64_t bytes) {
  return format_bytes(bytes) + " (" + std::to_string(bytes) + " bytes)";
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = double(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.2f %s", value, kUnits[unit]);
  return text;
}

}  // namespace rmgsort
