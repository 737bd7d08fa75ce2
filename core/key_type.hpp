// The key types rmgsort sorts, their names on the command line, and a dispatch from the run-time
// KeyType to a function template instantiated for the C++ type. Six are numbers (u32 u64 i32 i64
// f32 f64); `bytes:N` keys are N bytes (1 to 32) compared as unsigned bytes, lexicographically
// (memcmp order), and have no C++ number type: their width is the record layout's (core/record_layout.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.hpp"

namespace rmgsort {

enum class KeyType { u32, u64, i32, i64, f32, f64, bytes };

inline constexpr KeyType kNumericKeyTypes[] = {KeyType::u32, KeyType::u64, KeyType::i32,
                                               KeyType::i64, KeyType::f32, KeyType::f64};

// bytes:N takes N from 1 to this.
inline constexpr std::size_t kMaxBytesKey = 32;

[[nodiscard]] constexpr std::string_view key_type_name(KeyType type) {
  switch (type) {
    case KeyType::u32: return "u32";
    case KeyType::u64: return "u64";
    case KeyType::i32: return "i32";
    case KeyType::i64: return "i64";
    case KeyType::f32: return "f32";
    case KeyType::f64: return "f64";
    case KeyType::bytes: return "bytes";
  }
  return "?";
}

// The six number types by name ("u64"); bytes:N is parse_key_spec's.
[[nodiscard]] constexpr std::optional<KeyType> parse_key_type(std::string_view name) {
  for (KeyType type : kNumericKeyTypes)
    if (key_type_name(type) == name) return type;
  return std::nullopt;
}

// A number type's width; 0 for bytes (the layout's key_size says).
[[nodiscard]] constexpr std::size_t key_width(KeyType type) {
  if (type == KeyType::bytes) return 0;
  return (type == KeyType::u32 || type == KeyType::i32 || type == KeyType::f32) ? 4 : 8;
}

// A key type and its width: what -t names ("u64", "bytes:10").
struct KeySpec {
  KeyType type = KeyType::u32;
  std::size_t width = 4;

  [[nodiscard]] std::string name() const {
    return type == KeyType::bytes ? "bytes:" + std::to_string(width) : std::string(key_type_name(type));
  }
};

// "u32" .. "f64", or "bytes:N" with N from 1 to kMaxBytesKey; nullopt otherwise.
[[nodiscard]] inline std::optional<KeySpec> parse_key_spec(std::string_view name) {
  if (const auto type = parse_key_type(name)) return KeySpec{*type, key_width(*type)};
  constexpr std::string_view kBytes = "bytes:";
  if (name.substr(0, kBytes.size()) != kBytes) return std::nullopt;
  const std::string_view digits = name.substr(kBytes.size());
  if (digits.empty() || digits.size() > 2) return std::nullopt;
  std::size_t width = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    width = width * 10 + std::size_t(c - '0');
  }
  if (width < 1 || width > kMaxBytesKey || digits[0] == '0') return std::nullopt;
  return KeySpec{KeyType::bytes, width};
}

template <class T> struct KeyTypeOf;
template <> struct KeyTypeOf<std::uint32_t> { static constexpr KeyType value = KeyType::u32; };
template <> struct KeyTypeOf<std::uint64_t> { static constexpr KeyType value = KeyType::u64; };
template <> struct KeyTypeOf<std::int32_t> { static constexpr KeyType value = KeyType::i32; };
template <> struct KeyTypeOf<std::int64_t> { static constexpr KeyType value = KeyType::i64; };
template <> struct KeyTypeOf<float> { static constexpr KeyType value = KeyType::f32; };
template <> struct KeyTypeOf<double> { static constexpr KeyType value = KeyType::f64; };

// Calls f(T{}) with T the C++ type of the number type `type`; returns what f returns. bytes keys
// have no such type: the paths that sort them (through record tags) never dispatch on it.
template <class F>
decltype(auto) visit_key_type(KeyType type, F&& f) {
  switch (type) {
    case KeyType::u32: return std::forward<F>(f)(std::uint32_t{});
    case KeyType::u64: return std::forward<F>(f)(std::uint64_t{});
    case KeyType::i32: return std::forward<F>(f)(std::int32_t{});
    case KeyType::i64: return std::forward<F>(f)(std::int64_t{});
    case KeyType::f32: return std::forward<F>(f)(float{});
    case KeyType::f64: return std::forward<F>(f)(double{});
    case KeyType::bytes: break;
  }
  RMGSORT_EXPECTS(false, "visit_key_type: bytes keys have no number type");
  return std::forward<F>(f)(std::uint32_t{});  // unreachable
}

}  // namespace rmgsort
