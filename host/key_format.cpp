#include "host/key_format.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>

namespace rmgsort {
namespace {

template <class T>
std::string number_text(const std::byte* key) {
  T value;
  std::memcpy(&value, key, sizeof(T));
  // Wide enough for any 64-bit integer and for the shortest round-trip text of any double
  // ("-2.2250738585072014e-308" is 24 characters).
  char text[40];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  return std::string(text, ec == std::errc() ? end : text);
}

}  // namespace

std::string format_key(const std::byte* key, KeySpec spec) {
  if (spec.type == KeyType::bytes) {
    constexpr char kDigits[] = "0123456789abcdef";
    std::string text = "0x";
    for (std::size_t i = 0; i < spec.width; ++i) {
      const auto byte = std::to_integer<unsigned>(key[i]);
      text += kDigits[byte >> 4];
      text += kDigits[byte & 15];
    }
    return text;
  }
  return visit_key_type(spec.type, [&]<class T>(T) { return number_text<T>(key); });
}

}  // namespace rmgsort
