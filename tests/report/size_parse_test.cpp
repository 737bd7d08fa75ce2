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
  for (const char* bad : {"", "G", "12Q", "1.5", "-1", "1e9", "1 G", "0.3K"}) {
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

// A well-formed number beyond 64 bits is too large, not malformed.
TEST(ParseSizeTest, SizesBeyond64BitsAreTooLarge) {
  for (const char* large : {"99999999999T", "18446744073709551616", "16777216T", "16777216.5T", "100000000000000000000K"}) {
    try {
      (void)parse_size(large, "--host-memory");
      ADD_FAILURE() << "accepted '" << large << "'";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), std::string("--host-memory: size '") + large + "' is too large (more than 2^64 - 1)");
    }
  }
  EXPECT_EQ(parse_size("16777215T", "--x"), 16777215ull << 40);
  EXPECT_EQ(parse_size("18446744073709551615", "--x"), UINT64_MAX);
  try {
    (void)parse_count("18446744073709552G", "--count");
    ADD_FAILURE() << "accepted a count beyond 64 bits";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "--count: count '18446744073709552G' is too large (more than 2^64 - 1)");
  }
}

TEST(ParseSizeOrPercentTest, PercentagesAreSharesOfTheWhole) {
  constexpr std::uint64_t kWhole = std::uint64_t{64} << 30;
  EXPECT_EQ(parse_size_or_percent("50%", "--host-memory", kWhole), kWhole / 2);
  EXPECT_EQ(parse_size_or_percent("100%", "--host-memory", kWhole), kWhole);
  EXPECT_EQ(parse_size_or_percent("12.5%", "--host-memory", kWhole), kWhole / 8);
  EXPECT_EQ(parse_size_or_percent("1%", "--host-memory", 1000), 10u);
  EXPECT_EQ(parse_size_or_percent("33%", "--host-memory", 1000), 330u);
  EXPECT_EQ(parse_size_or_percent("0.5%", "--host-memory", 999), 4u);  // rounded down
  EXPECT_EQ(parse_size_or_percent("100%", "--host-memory", UINT64_MAX), UINT64_MAX);
}

TEST(ParseSizeOrPercentTest, WithoutPercentSignItIsASize) {
  EXPECT_EQ(parse_size_or_percent("4096", "--host-memory", 1000), 4096u);  // bytes, not a share
  EXPECT_EQ(parse_size_or_percent("50", "--host-memory", 1000), 50u);
  EXPECT_EQ(parse_size_or_percent("2G", "--host-memory", 1000), 2ull << 30);
  EXPECT_THROW((void)parse_size_or_percent("0", "--host-memory", 1000), Error);
}

TEST(ParseSizeOrPercentTest, ZeroMoreThan100AndMalformedAreRefusedNamingTheOption) {
  for (const char* bad : {"0%", "0.0%", "100.5%", "101%", "150%", "%", "-5%", "+5%", "5%%", "5 %", "1e1%", "inf%",
                          "nan%", "5G%", "0.01%"}) {
    try {
      (void)parse_size_or_percent(bad, "--host-memory", 1000);  // 0.01% of 1000 bytes: less than one byte
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("--host-memory: ", 0), 0u) << message;
      EXPECT_NE(message.find(bad), std::string::npos) << message;
    }
  }
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
