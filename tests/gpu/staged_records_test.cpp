// Where the copy in stages a range of a chunk's records (pure host code): the copies of a range
// write exactly its bytes, each where StagedRecords says that byte lives, across the two runs; and
// the records from a byte on, seen as records of their own, find every byte where the whole does.
#include "gpu/staged_records.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace rmgsort {
namespace {

// The contract of StagedRecords, restated: byte b of the records is at first + b below
// first_bytes, else at rest + (b - first_bytes).
template <class Byte>
Byte* byte_at(StagedRecords<Byte> staged, std::uint64_t b) {
  return b < staged.first_bytes ? staged.first + b : staged.rest + (b - staged.first_bytes);
}

struct Runs {
  std::vector<unsigned char> first, rest;
  StagedRecords<unsigned char> staged(std::uint64_t first_bytes) {
    return {first.data(), first_bytes, rest.data()};
  }
};

constexpr std::uint64_t kBytes = 120;  // a chunk of 120 bytes of records

TEST(StagedRecordsTest, TheCopiesOfARangeWriteExactlyItsBytesWhereTheyLive) {
  std::vector<unsigned char> chunk(kBytes);
  for (std::uint64_t b = 0; b < kBytes; ++b) chunk[b] = static_cast<unsigned char>(b + 1);
  for (const std::uint64_t first_bytes : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{45}, std::uint64_t{72},
                                          kBytes - 1, kBytes}) {
    for (std::uint64_t begin = 0; begin <= kBytes; begin += 9) {
      for (const std::uint64_t end : {begin, begin + 1, first_bytes, (begin + kBytes) / 2, kBytes}) {
        if (end < begin || end > kBytes) continue;
        const std::string what = "first_bytes " + std::to_string(first_bytes) + ", bytes [" + std::to_string(begin) +
                                 ", " + std::to_string(end) + ")";
        Runs runs{std::vector<unsigned char>(kBytes, 0), std::vector<unsigned char>(kBytes, 0)};
        const StagedRecords<unsigned char> staged = runs.staged(first_bytes);
        const auto copies = staged_copies(staged, begin, end);
        EXPECT_LE(copies.size(), 2u) << what;
        if (begin == end) {
          EXPECT_TRUE(copies.empty()) << what;
        }
        for (const auto& copy : copies) std::memcpy(copy.to, chunk.data() + copy.chunk_offset, copy.bytes);
        for (std::uint64_t b = 0; b < kBytes; ++b) {
          const unsigned char expected = b >= begin && b < end ? chunk[b] : 0;
          ASSERT_EQ(*byte_at(staged, b), expected) << what << ": byte " << b;
        }
        // Nothing written beyond the records' bytes in either run.
        for (std::uint64_t f = first_bytes; f < kBytes; ++f)
          ASSERT_EQ(runs.first[f], 0) << what << ": first byte " << f;
        for (std::uint64_t r = kBytes - first_bytes; r < kBytes; ++r)
          ASSERT_EQ(runs.rest[r], 0) << what << ": rest byte " << r;
      }
    }
  }
}

TEST(StagedRecordsTest, RecordsFromAByteOnFindEveryByteWhereTheWholeDoes) {
  Runs runs{std::vector<unsigned char>(kBytes), std::vector<unsigned char>(kBytes)};
  for (const std::uint64_t first_bytes : {std::uint64_t{0}, std::uint64_t{45}, std::uint64_t{72}, kBytes}) {
    const StagedRecords<unsigned char> staged = runs.staged(first_bytes);
    // Records of 9 bytes: the one at 36 straddles a first run of 45 bytes; 45 and 72 begin a run.
    for (std::uint64_t begin = 0; begin <= kBytes; begin += 9) {
      const StagedRecords<const unsigned char> from = staged_from(staged, begin);
      for (std::uint64_t b = 0; begin + b < kBytes; ++b)
        ASSERT_EQ(byte_at(from, b), byte_at(staged, begin + b))
            << "first_bytes " << first_bytes << ", from byte " << begin << ", byte " << b;
      if (begin >= first_bytes) {
        EXPECT_EQ(from.first_bytes, 0u) << "from byte " << begin << ": all in the second run";
      }
    }
  }
}

}  // namespace
}  // namespace rmgsort
