#include "host/checksum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "core/key_order.hpp"
#include "tests/core/key_types.hpp"
#include "tests/host/record_test_layouts.hpp"

namespace rmgsort {
namespace {

template <class T>
class ChecksumTest : public ::testing::Test {};
TYPED_TEST_SUITE(ChecksumTest, testing::AllKeyTypes);

template <class T>
KeyChecksum checksum_of(const std::vector<T>& keys) {
  return checksum_keys(reinterpret_cast<const std::byte*>(keys.data()), keys.size() * sizeof(T), sizeof(T));
}

template <class T>
std::vector<T> random_keys(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<T> keys(n);
  for (auto& key : keys) key = __builtin_bit_cast(T, RadixBits<T>(random()));
  return keys;
}

TYPED_TEST(ChecksumTest, IndependentOfOrderAndOfHowTheKeysAreSplit) {
  using T = TypeParam;
  auto keys = random_keys<T>(300000, 1);
  const KeyChecksum whole = checksum_of(keys);
  EXPECT_EQ(whole.keys, keys.size());
  std::mt19937_64 random(2);
  std::shuffle(keys.begin(), keys.end(), random);
  EXPECT_EQ(checksum_of(keys), whole);
  KeyChecksum pieces;
  const auto* bytes = reinterpret_cast<const std::byte*>(keys.data());
  for (std::size_t begin = 0; begin < keys.size();) {
    const std::size_t n = std::min<std::size_t>(keys.size() - begin, 1 + begin % 9973);
    pieces += checksum_keys(bytes + begin * sizeof(T), n * sizeof(T), sizeof(T));
    begin += n;
  }
  EXPECT_EQ(pieces, whole);
}

TYPED_TEST(ChecksumTest, DetectsAChangedDroppedOrDuplicatedKey) {
  using T = TypeParam;
  const auto keys = random_keys<T>(100000, 3);
  const KeyChecksum original = checksum_of(keys);

  auto changed = keys;
  changed[500] = __builtin_bit_cast(T, RadixBits<T>(testing::bits_of(changed[500]) ^ (RadixBits<T>(1) << 17)));
  EXPECT_NE(checksum_of(changed), original);

  auto dropped = keys;
  dropped.pop_back();
  EXPECT_NE(checksum_of(dropped), original);

  auto duplicated = keys;
  duplicated[1] = duplicated[0];  // same count, one key replaced by a copy of another
  EXPECT_NE(checksum_of(duplicated), original);

  // Flipping the lowest bit of two keys whose lowest bits differ keeps the sum of bits and the
  // XOR of all keys, but not the multiset.
  std::size_t partner = 1;
  while (partner < keys.size() && ((testing::bits_of(keys[0]) ^ testing::bits_of(keys[partner])) & 1) == 0) ++partner;
  ASSERT_LT(partner, keys.size());
  auto flipped = keys;
  flipped[0] = __builtin_bit_cast(T, RadixBits<T>(testing::bits_of(keys[0]) ^ 1));
  flipped[partner] = __builtin_bit_cast(T, RadixBits<T>(testing::bits_of(keys[partner]) ^ 1));
  EXPECT_NE(checksum_of(flipped), original);
}

TEST(ChecksumTest, EmptyInputHasTheZeroChecksum) {
  const KeyChecksum none = checksum_keys(nullptr, 0, 8);
  EXPECT_EQ(none.keys, 0u);
  EXPECT_EQ(none.hex(), std::string(32, '0'));
}

// ---------------------------------------------------------------------------------------------------
// Whole records (checksum_records), over the record sizes of every test layout

// The record sizes of tests/host/record_test_layouts.hpp: 1 .. 33, 12, 13 and 100 bytes.
std::vector<std::size_t> record_sizes() {
  std::vector<std::size_t> sizes;
  for (const RecordLayout& layout : testing::record_test_layouts())
    if (std::find(sizes.begin(), sizes.end(), layout.record_size) == sizes.end()) sizes.push_back(layout.record_size);
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

std::vector<std::byte> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::byte> bytes(n);
  for (auto& byte : bytes) byte = std::byte(random());
  return bytes;
}

KeyChecksum records_checksum(const std::vector<std::byte>& records, std::size_t size) {
  return checksum_records(records.data(), records.size(), size);
}

// Records I and J of RECORDS swapped.
std::vector<std::byte> swapped(std::vector<std::byte> records, std::size_t size, std::size_t i, std::size_t j) {
  std::swap_ranges(records.begin() + i * size, records.begin() + (i + 1) * size, records.begin() + j * size);
  return records;
}

TEST(RecordChecksumTest, FourAndEightByteRecordsHaveTheKeysChecksum) {
  const auto bytes = random_bytes(8 * 1001, 1);
  EXPECT_EQ(checksum_records(bytes.data(), bytes.size(), 4), checksum_keys(bytes.data(), bytes.size(), 4));
  EXPECT_EQ(checksum_records(bytes.data(), bytes.size(), 8), checksum_keys(bytes.data(), bytes.size(), 8));
}

TEST(RecordChecksumTest, IndependentOfOrderAndOfHowTheRecordsAreSplit) {
  for (std::size_t size : record_sizes()) {
    SCOPED_TRACE(std::to_string(size) + "-byte records");
    // Enough records for several parallel pieces of 256 KiB.
    const std::size_t n = 3 * std::max<std::size_t>(1, (std::size_t{256} << 10) / size) + 7;
    auto records = random_bytes(n * size, size);
    const KeyChecksum whole = records_checksum(records, size);
    EXPECT_EQ(whole.keys, n);
    std::mt19937_64 random(2);
    for (std::size_t k = 0; k < 1000; ++k) records = swapped(std::move(records), size, random() % n, random() % n);
    records = swapped(std::move(records), size, 0, n - 1);
    EXPECT_EQ(records_checksum(records, size), whole);
    KeyChecksum pieces;
    for (std::size_t begin = 0; begin < n;) {
      const std::size_t count = std::min<std::size_t>(n - begin, 1 + begin % 997);
      pieces += checksum_records(records.data() + begin * size, count * size, size);
      begin += count;
    }
    EXPECT_EQ(pieces, whole);
  }
}

TEST(RecordChecksumTest, DetectsAChangeOfAnyByteOrBit) {
  for (std::size_t size : record_sizes()) {
    SCOPED_TRACE(std::to_string(size) + "-byte records");
    const auto records = random_bytes(7 * size, size + 100);
    const KeyChecksum original = records_checksum(records, size);
    for (std::size_t at = 0; at < size; ++at) {  // every byte of record 3, key or payload
      for (int bit : {0, 7}) {
        auto changed = records;
        changed[3 * size + at] ^= std::byte(1 << bit);
        EXPECT_NE(records_checksum(changed, size), original) << "byte " << at << " bit " << bit;
      }
    }
  }
}

TEST(RecordChecksumTest, DetectsDroppedDuplicatedAndRecombinedRecords) {
  for (std::size_t size : record_sizes()) {
    SCOPED_TRACE(std::to_string(size) + "-byte records");
    const auto records = random_bytes(7 * size, size + 200);
    const KeyChecksum original = records_checksum(records, size);

    const std::vector<std::byte> dropped(records.begin(), records.end() - std::ptrdiff_t(size));
    EXPECT_NE(records_checksum(dropped, size), original);

    auto duplicated = records;  // record 1 replaced by a copy of record 0: same count
    std::copy_n(records.begin(), size, duplicated.begin() + std::ptrdiff_t(size));
    EXPECT_NE(records_checksum(duplicated, size), original);

    // The first half of records 0 and 1 exchanged (a key moved without its payload): every byte is
    // still there, the records are not.
    if (size >= 2) {
      auto recombined = records;
      std::swap_ranges(recombined.begin(), recombined.begin() + std::ptrdiff_t(size / 2),
                       recombined.begin() + std::ptrdiff_t(size));
      EXPECT_NE(records_checksum(recombined, size), original);
    }
    // The same bit flipped in two records whose bits differ there: the XOR and the sum of all the
    // bytes stay the same.
    auto flipped = records;
    const std::size_t at = size - 1;
    for (std::size_t other = 1; other < 7; ++other) {
      if (((records[at] ^ records[other * size + at]) & std::byte{1}) == std::byte{0}) continue;
      flipped[at] ^= std::byte{1};
      flipped[other * size + at] ^= std::byte{1};
      EXPECT_NE(records_checksum(flipped, size), original);
      break;
    }
  }
}

TEST(RecordChecksumTest, ZeroOneAndSevenRecords) {
  for (std::size_t size : record_sizes()) {
    SCOPED_TRACE(std::to_string(size) + "-byte records");
    const KeyChecksum none = checksum_records(nullptr, 0, size);
    EXPECT_EQ(none.keys, 0u);
    EXPECT_EQ(none.hex(), std::string(32, '0'));
    const auto seven = random_bytes(7 * size, size + 300);
    EXPECT_EQ(records_checksum(seven, size).keys, 7u);
    const std::vector<std::byte> one(seven.begin(), seven.begin() + std::ptrdiff_t(size));
    EXPECT_EQ(records_checksum(one, size).keys, 1u);
    EXPECT_NE(records_checksum(one, size), records_checksum(seven, size));
  }
}

// The records' checksum is what `check` prints: a change here changes every checksum users noted.
// (The values agree with tests/e2e/keys.py's independent implementation of the definition.)
TEST(RecordChecksumTest, IsPinned) {
  std::vector<std::byte> records(3 * 13);
  for (std::size_t b = 0; b < records.size(); ++b) records[b] = std::byte(b * 37 + 1);
  EXPECT_EQ(records_checksum(records, 13).hex(), "267f8c3b27fb82ecd0e14d90f53f396c");
  EXPECT_EQ(records_checksum(records, 39).hex(), "80ec8549e7d2889ca42a6b6a1bbc38f2");
}

}  // namespace
}  // namespace rmgsort
