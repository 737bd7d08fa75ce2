#include "report/size_parse.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace rmgsort {
namespace {

TEST(ParseSizeTest, SuffixesArePowersOf1024) {
  EXPECT_EQ(parse_size("4096", "--x"), 4096u);
  EXPECT_EQ(parse_size("64K", "--x"), 64u << 10);
  EXPECT_EQ(parse_size("64k", "--x"), 64u << 10);
  EXPECT_EQ(parse_size("512M", "--x"), 512ull << 20);
  EXPECT_EQ(parse_size("8G", "--x"), 8ull << 30);
  EXPECT_EQ(parse_size("8GiB", "--x"), 8ull << 30);
  EXPECT_EQ(parse_size("8GB", "--x"), 8ull << 30);
  EXPECT_EQ(parse_size("2T", "--x"), 2ull << 40);
  EXPECT_EQ(parse_size("1.5G", "--x"), 3ull << 29);
  EXPECT_EQ(parse_size("0", "--x", /*allow_zero=*/true), 0u);
}

TEST(ParseSizeTest, MalformedSizesNameTheOptionAndTheText) {
  for (const char* bad : {"", "G", "12Q", "1.5", "-1", "1e9", "1 G", "0.3K", "99999999999T", "18446744073709551616"}) {
    try {
      (void)parse_size(bad, "--host-memory");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("--host-memory"), std::string::npos) << message;
      EXPECT_NE(message.find(std::string("'") + bad + "'"), std::string::npos) << message;
    }
  }
  EXPECT_THROW((void)parse_size("0", "--gpu-memory"), Error);
}

TEST(ParseCountTest, SuffixesArePowersOf1000) {
  EXPECT_EQ(parse_count("1000", "--count"), 1000u);
  EXPECT_EQ(parse_count("4k", "--count"), 4000u);
  EXPECT_EQ(parse_count("3M", "--count"), 3000000u);
  EXPECT_EQ(parse_count("4G", "--count"), 4000000000ull);
  EXPECT_EQ(parse_count("2.5M", "--count"), 2500000u);
  EXPECT_EQ(parse_count("0", "--count"), 0u);
  EXPECT_THROW((void)parse_count("4Gi", "--count"), Error);
  EXPECT_THROW((void)parse_count("1T", "--count"), Error);
  EXPECT_THROW((void)parse_count("x", "--count"), Error);
}

TEST(FormatBytesTest, BinaryUnits) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(3ull << 30), "3.00 GiB");
}

}  // namespace
}  // namespace rmgsort
