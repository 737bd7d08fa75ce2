// The six key types rmgsort sorts, their names on the command line, and a dispatch from the run-time
// KeyType to a function template instantiated for the C++ type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

namespace rmgsort {

enum class KeyType { u32, u64, i32, i64, f32, f64 };

inline constexpr KeyType kAllKeyTypes[] = {KeyType::u32, KeyType::u64, KeyType::i32,
                                           KeyType::i64, KeyType::f32, KeyType::f64};

[[nodiscard]] constexpr std::string_view key_type_name(KeyType type) {
  switch (type) {
    case KeyType::u32: return "u32";
    case KeyType::u64: return "u64";
    case KeyType::i32: return "i32";
    case KeyType::i64: return "i64";
    case KeyType::f32: return "f32";
    case KeyType::f64: return "f64";
  }
  return "?";
}

[[nodiscard]] constexpr std::optional<KeyType> parse_key_type(std::string_view name) {
  for (KeyType type : kAllKeyTypes)
    if (key_type_name(type) == name) return type;
  return std::nullopt;
}

[[nodiscard]] constexpr std::size_t key_width(KeyType type) {
  return (type == KeyType::u32 || type == KeyType::i32 || type == KeyType::f32) ? 4 : 8;
}

template <class T> struct KeyTypeOf;
template <> struct KeyTypeOf<std::uint32_t> { static constexpr KeyType value = KeyType::u32; };
template <> struct KeyTypeOf<std::uint64_t> { static constexpr KeyType value = KeyType::u64; };
template <> struct KeyTypeOf<std::int32_t> { static constexpr KeyType value = KeyType::i32; };
template <> struct KeyTypeOf<std::int64_t> { static constexpr KeyType value = KeyType::i64; };
template <> struct KeyTypeOf<float> { static constexpr KeyType value = KeyType::f32; };
template <> struct KeyTypeOf<double> { static constexpr KeyType value = KeyType::f64; };

// Calls f(T{}) with T the C++ type of `type`; returns what f returns.
template <class F>
decltype(auto) visit_key_type(KeyType type, F&& f) {
  switch (type) {
    case KeyType::u32: return std::forward<F>(f)(std::uint32_t{});
    case KeyType::u64: return std::forward<F>(f)(std::uint64_t{});
    case KeyType::i32: return std::forward<F>(f)(std::int32_t{});
    case KeyType::i64: return std::forward<F>(f)(std::int64_t{});
    case KeyType::f32: return std::forward<F>(f)(float{});
    case KeyType::f64: return std::forward<F>(f)(double{});
  }
  return std::forward<F>(f)(std::uint32_t{});  // unreachable: every enumerator is handled above
}

}  // namespace rmgsort
