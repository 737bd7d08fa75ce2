// The --stats JSON text: compact, members in order, every string's bytes kept (\udcXX for a byte of
// no valid UTF-8 sequence, as Python's surrogateescape decodes it), non-finite numbers null.
#include "report/json.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace rmgsort {
namespace {

// The JSON text of one string value.
std::string line_of(const std::string& bytes) { return json_line(Json(bytes)); }

TEST(JsonLineTest, MembersKeepTheirOrderAndTheLineIsCompact) {
  const Json value = {
      {"name", "a \"quoted\"\\path\n"},
      {"keys", std::uint64_t(18446744073709551615ull)},
      {"ok", true},
      {"seconds", 0.25},
      {"gpus", std::vector<int>{0, 2}},
      {"nested", {{"x", -3}}},
      {"absent", nullptr},
      {"none", Json::array()},
  };
  EXPECT_EQ(json_line(value),
            "{\"name\":\"a \\\"quoted\\\"\\\\path\\n\",\"keys\":18446744073709551615,\"ok\":true,"
            "\"seconds\":0.25,\"gpus\":[0,2],\"nested\":{\"x\":-3},\"absent\":null,\"none\":[]}");
}

TEST(JsonLineTest, NonFiniteNumbersBecomeNull) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(json_line({{"rate", inf}, {"nan", std::numeric_limits<double>::quiet_NaN()}, {"low", -inf}}),
            "{\"rate\":null,\"nan\":null,\"low\":null}");
}

TEST(JsonLineTest, ControlCharactersAreEscaped) {
  EXPECT_EQ(line_of(std::string("a\x01\tb\x1f", 5)), "\"a\\u0001\\tb\\u001f\"");
  EXPECT_EQ(line_of(std::string("nul\0end", 7)), "\"nul\\u0000end\"");
}

TEST(JsonLineTest, ValidUtf8IsWrittenAsItself) {
  // 2, 3 and 4 bytes, the highest code points below the escaped range, and U+FFFD itself.
  for (const std::string text : {"\xc3\xa9t\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xef\xbf\xbd",
                                 "\xf4\x8f\xbd\xbf" /* U+10FF7F */, "\xf3\xbf\xbf\xbf" /* U+FFFFF */})
    EXPECT_EQ(line_of(text), "\"" + text + "\"") << text;
}

TEST(JsonLineTest, ABytePartOfNoUtf8SequenceBecomesALowSurrogateEscape) {
  EXPECT_EQ(line_of("name\xff.u64"), "\"name\\udcff.u64\"");
  EXPECT_EQ(line_of("\x80"), "\"\\udc80\"");                       // a lone continuation byte
  EXPECT_EQ(line_of("\xfe\xff"), "\"\\udcfe\\udcff\"");             // bytes UTF-8 never uses
  EXPECT_EQ(line_of("latin1 caf\xe9!"), "\"latin1 caf\\udce9!\"");  // a Latin-1 name
}

TEST(JsonLineTest, MalformedSequencesAreEscapedByteByByte) {
  EXPECT_EQ(line_of("\xc3"), "\"\\udcc3\"");                          // cut short at the end
  EXPECT_EQ(line_of("\xe2\x82x"), "\"\\udce2\\udc82x\"");             // cut short by ASCII
  EXPECT_EQ(line_of("\xc0\x80"), "\"\\udcc0\\udc80\"");               // overlong NUL
  EXPECT_EQ(line_of("\xe0\x80\xaf"), "\"\\udce0\\udc80\\udcaf\"");    // overlong '/'
  EXPECT_EQ(line_of("\xed\xa0\x80"), "\"\\udced\\udca0\\udc80\"");    // an encoded surrogate (CESU-8)
  EXPECT_EQ(line_of("\xf4\x90\x80\x80"), "\"\\udcf4\\udc90\\udc80\\udc80\"");  // above U+10FFFF
  // A valid sequence right after an invalid byte stays whole.
  EXPECT_EQ(line_of("\xff\xc3\xa9"), "\"\\udcff\xc3\xa9\"");
}

TEST(JsonLineTest, CodePointsOfTheCarriersRangeAreEscapedByteByByte) {
  // U+10FF80 and U+10FFFF: valid UTF-8, but the range the writer carries escaped bytes in; written
  // byte by byte, which surrogateescape decoding turns back into the same four bytes.
  EXPECT_EQ(line_of("\xf4\x8f\xbe\x80"), "\"\\udcf4\\udc8f\\udcbe\\udc80\"");
  EXPECT_EQ(line_of("a\xf4\x8f\xbf\xbf"), "\"a\\udcf4\\udc8f\\udcbf\\udcbf\"");
}

TEST(JsonLineTest, EveryByteValueAfterAsciiIsEscapedAlone) {
  for (int byte = 0x80; byte <= 0xff; ++byte) {
    static constexpr char kHex[] = "0123456789abcdef";
    const std::string expected = std::string("\"x\\udc") + kHex[byte >> 4] + kHex[byte & 15] + "y\"";
    EXPECT_EQ(line_of(std::string("x") + char(byte) + "y"), expected) << byte;
  }
}

TEST(JsonLineTest, KeysArraysAndNestedObjectsAreEscapedToo) {
  const Json value = {{"na\xffme", {{"list", {"ok", "b\xfe"}}}}};
  EXPECT_EQ(json_line(value), "{\"na\\udcffme\":{\"list\":[\"ok\",\"b\\udcfe\"]}}");
}

TEST(JsonLineTest, TheValueItselfIsLeftAsItWas) {
  const Json value = {{"name", "a\xff"}};
  (void)json_line(value);
  EXPECT_EQ(value["name"].get<std::string>(), "a\xff");
}

TEST(StringOrNullTest, EmptyIsNullAnythingElseAString) {
  EXPECT_TRUE(string_or_null("").is_null());
  EXPECT_EQ(string_or_null("why"), Json("why"));
}

}  // namespace
}  // namespace rmgsort
