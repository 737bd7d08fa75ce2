#include "app/stats.hpp"

#include <gtest/gtest.h>

namespace rmgsort {
namespace {

TEST(JsonObjectTest, MembersKeepTheirOrderAndStringsAreEscaped) {
  const std::string json = JsonObject()
                               .add("name", "a \"quoted\"\\path\n")
                               .add("keys", std::uint64_t(18446744073709551615ull))
                               .add("ok", true)
                               .add("seconds", 0.25)
                               .add("gpus", std::vector<int>{0, 2})
                               .add("nested", JsonObject().add("x", -3))
                               .dump();
  EXPECT_EQ(json,
            "{\"name\":\"a \\\"quoted\\\"\\\\path\\n\",\"keys\":18446744073709551615,\"ok\":true,"
            "\"seconds\":0.25,\"gpus\":[0,2],\"nested\":{\"x\":-3}}");
}

TEST(JsonObjectTest, NonFiniteNumbersBecomeNull) {
  EXPECT_EQ(JsonObject().add("rate", 1.0 / 0.0).dump(), "{\"rate\":null}");
}

}  // namespace
}  // namespace rmgsort
