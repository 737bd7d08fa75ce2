#include "report/json.hpp"

#include <cstdint>

namespace rmgsort {
namespace {

// nlohmann's serializer writes valid UTF-8 only (invalid bytes throw, or are replaced or dropped by
// its error handlers), and never a lone surrogate. So each byte to be written as \udcXX travels
// through it as a code point nothing else in the text can be, the carrier U+10FF00 + XX (XX >= 0x80;
// plane 16 is private use), and the written text's carriers are replaced by \udcXX afterwards. The
// carriers' range, U+10FF80 to U+10FFFF, is kept free by carrying a string's own code points of that
// range byte by byte too.
constexpr std::uint32_t kCarrierBase = 0x10FF00;
constexpr std::uint32_t kFirstCarrier = kCarrierBase + 0x80;

bool continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// The length of the valid UTF-8 sequence at text[i] (the Unicode standard's table 3-7: no overlong
// forms, no surrogates, nothing above U+10FFFF), or 0 when a byte there begins none.
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = at(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong below
    if (lead == 0xED) high = 0x9F;  // surrogates above
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong below
    if (lead == 0xF4) high = 0x8F;  // beyond U+10FFFF above
  } else {
    return 0;
  }
  if (i + length > text.size() || at(1) < low || at(1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if (!continuation(at(k))) return 0;
  return length;
}

std::uint32_t code_point(std::string_view sequence) {
  const auto byte = [&](std::size_t k) { return std::uint32_t(static_cast<unsigned char>(sequence[k])); };
  switch (sequence.size()) {
    case 1: return byte(0);
    case 2: return (byte(0) & 0x1F) << 6 | (byte(1) & 0x3F);
    case 3: return (byte(0) & 0x0F) << 12 | (byte(1) & 0x3F) << 6 | (byte(2) & 0x3F);
    default: return (byte(0) & 0x07) << 18 | (byte(1) & 0x3F) << 12 | (byte(2) & 0x3F) << 6 | (byte(3) & 0x3F);
  }
}

void append_carrier(std::string& out, unsigned char byte) {
  const std::uint32_t carrier = kCarrierBase + byte;  // UTF-8: F4 8F BE|BF xx
  out += char(0xF0 | (carrier >> 18));
  out += char(0x80 | ((carrier >> 12) & 0x3F));
  out += char(0x80 | ((carrier >> 6) & 0x3F));
  out += char(0x80 | (carrier & 0x3F));
}

// `text` with every byte to be written as \udcXX replaced by its carrier: valid UTF-8.
std::string carried(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_sequence(text, i);
    if (length > 0 && code_point(text.substr(i, length)) < kFirstCarrier) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      append_carrier(out, static_cast<unsigned char>(text[i]));
      ++i;
    }
  }
  return out;
}

// Every string of `value`, object keys included, carried.
void carry_strings(Json& value) {
  if (value.is_string()) {
    value = carried(value.get_ref<const std::string&>());
  } else if (value.is_array()) {
    for (Json& element : value) carry_strings(element);
  } else if (value.is_object()) {
    Json object = Json::object();
    for (auto& [key, member] : value.items()) {
      carry_strings(member);
      object[carried(key)] = std::move(member);
    }
    value = std::move(object);
  }
}

// `text` (nlohmann's output) with each carrier replaced by its \udcXX. A carrier's first three
// bytes, F4 8F BE or F4 8F BF, begin no other code point the text can hold.
std::string with_surrogate_escapes(const std::string& text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == char(0xF4) && i + 3 < text.size() && text[i + 1] == char(0x8F) &&
        (text[i + 2] == char(0xBE) || text[i + 2] == char(0xBF))) {
      const auto third = static_cast<unsigned char>(text[i + 2]);
      const auto fourth = static_cast<unsigned char>(text[i + 3]);
      const unsigned byte = (third & 0x03u) << 6 | (fourth & 0x3Fu);
      out += "\\udc";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

std::string json_line(const Json& value) {
  Json copy = value;
  carry_strings(copy);
  // Every string is valid UTF-8 now: the strict handler cannot throw.
  return with_surrogate_escapes(copy.dump(-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::strict));
}

}  // namespace rmgsort
