// The JSON of --stats: nlohmann's JSON values, and their text, which keeps every byte of every string.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace rmgsort {

// A JSON value whose object members keep the order they were added in. Strings hold bytes as they
// came (file names, the command line, messages): they need not be UTF-8.
using Json = nlohmann::ordered_json;

// `value` as one line of JSON text (no newline), compact, in UTF-8. Every string keeps its bytes:
// each valid UTF-8 sequence is written as itself (or nlohmann's escape: \" \\ \n \u0001 ...), and
// each byte that begins no valid UTF-8 sequence as \udcXX, XX its value (0x80 to 0xff): the lone
// low surrogate that Python's surrogateescape makes of it, so that json.load reads the file and
// os.fsencode() (or str.encode('utf-8', 'surrogateescape')) gives the bytes back. The four bytes of
// a code point from U+10FF80 to U+10FFFF are written the same way, byte by byte (see json.cpp), which
// the same decoding turns back into those bytes. Numbers that are not finite are written as null.
[[nodiscard]] std::string json_line(const Json& value);

// A member of a --stats object whose value may be absent: the string, or null.
[[nodiscard]] inline Json string_or_null(std::string_view text) {
  return text.empty() ? Json(nullptr) : Json(std::string(text));
}

}  // namespace rmgsort
