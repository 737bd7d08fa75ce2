// RecordLayout (core/record_layout.hpp): record_layout_option accepts every key that lies inside its
// record and refuses, naming --key-offset, every one that does not, including offsets so large that
// offset + width wraps around 2^64 (which once passed and read the key before the record); valid()
// agrees; whole_records refuses a cut record.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "core/record_layout.hpp"

namespace rmgsort {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

std::string refusal(KeySpec key, std::uint64_t record_size, std::uint64_t key_offset) {
  try {
    (void)record_layout_option(key, record_size, key_offset);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(RecordLayoutOptionTest, KeysInsideTheirRecordAreAcceptedToTheLastByte) {
  for (const KeySpec key : {KeySpec{KeyType::u32, 4}, KeySpec{KeyType::f64, 8}, KeySpec{KeyType::bytes, 1},
                            KeySpec{KeyType::bytes, 32}}) {
    for (const std::uint64_t record_size : {std::uint64_t(key.width), std::uint64_t{13}, std::uint64_t{1} << 30}) {
      if (record_size < key.width) continue;
      for (const std::uint64_t offset : {std::uint64_t{0}, record_size - key.width}) {
        const RecordLayout layout = record_layout_option(key, record_size, offset);
        EXPECT_TRUE(layout.valid()) << key.name() << " at " << offset << " of " << record_size;
        EXPECT_EQ(layout.key_offset, offset);
        EXPECT_EQ(layout.record_size, record_size);
      }
    }
  }
  EXPECT_EQ(record_layout_option({KeyType::u64, 8}, 0, 0).record_size, 8u) << "record size 0: the key's width";
}

TEST(RecordLayoutOptionTest, KeysReachingPastTheRecordAreRefusedNamingTheOffset) {
  const KeySpec u64{KeyType::u64, 8};
  for (const std::uint64_t offset : {std::uint64_t{9}, std::uint64_t{16}, std::uint64_t{1} << 63,
                                     kMax - 8, kMax - 7, kMax - 1, kMax}) {
    const std::string why = refusal(u64, 16, offset);
    EXPECT_NE(why.find("--key-offset " + std::to_string(offset)), std::string::npos) << offset << ": " << why;
    EXPECT_NE(why.find("does not fit a record of 16 bytes"), std::string::npos) << why;
  }
  // A bare key (record size 0: its width) at any offset but 0, the wrapping ones included.
  for (const std::uint64_t offset : {std::uint64_t{1}, kMax - 7, kMax})
    EXPECT_FALSE(refusal(u64, 0, offset).empty()) << offset;
  EXPECT_FALSE(refusal({KeyType::bytes, 32}, 31, 0).empty()) << "a key wider than its record";
  EXPECT_NE(refusal(u64, (std::uint64_t{1} << 30) + 1, 0).find("1 GiB"), std::string::npos);
}

TEST(RecordLayoutTest, ValidHoldsExactlyForKeysInsideTheRecord) {
  RecordLayout layout = RecordLayout::of({KeyType::u64, 8}, 16, 8);
  EXPECT_TRUE(layout.valid());
  for (const std::size_t offset : {std::size_t{9}, std::numeric_limits<std::size_t>::max() - 7,
                                   std::numeric_limits<std::size_t>::max()}) {
    layout.key_offset = offset;
    EXPECT_FALSE(layout.valid()) << offset;
  }
  layout.key_offset = 0;
  layout.record_size = 4;
  EXPECT_FALSE(layout.valid()) << "a record narrower than its key";
}

TEST(RecordLayoutTest, WholeRecordsRefusesACutRecordNamingTheInput) {
  const RecordLayout layout = RecordLayout::of({KeyType::u32, 4}, 12, 4);
  EXPECT_EQ(layout.whole_records("in.bin", 36), 3u);
  try {
    (void)layout.whole_records("in.bin", 37);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("in.bin: 37 bytes are not a whole number of records (12 bytes each)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace rmgsort
