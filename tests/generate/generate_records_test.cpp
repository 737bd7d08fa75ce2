// The record generator: every layout of tests/host/record_test_layouts.hpp and every distribution;
// number keys are the bare keys' bits, bytes:N keys keep their documented definitions, the payload
// starts with the record's index, records do not depend on threads or chunking, and bytes:10 keys in
// 100-byte records take gensort's layout.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "generate/bytes_keys.hpp"
#include "generate/counter_random.hpp"
#include "generate/distribution.hpp"
#include "generate/generate.hpp"
#include "generate/record_payload.hpp"
#include "tests/host/record_test_layouts.hpp"

namespace rmgsort {
namespace {

using testing::layout_name;

// Every distribution that can make keys of KEY (bits:B up to the key's width).
std::vector<Distribution> distributions_for(const KeySpec& key) {
  std::vector<Distribution> all;
  for (const char* text : {"uniform", "normal", "zipf:0", "zipf:1", "zipf:1.5", "bits:0", "bits:5", "sorted", "reverse",
                           "nearly-sorted", "zero", "special"})
    all.push_back(parse_distribution(text));
  all.push_back(parse_distribution("bits:" + std::to_string(8 * key.width)));
  return all;
}

std::vector<std::byte> generate_in_one_call(const RecordLayout& layout, std::uint64_t n, const Distribution& dist,
                                            std::uint64_t seed) {
  std::vector<std::byte> records(n * layout.record_size);
  generate_records(records.data(), 0, n, n, layout, dist, seed);
  return records;
}

// Chunks of 1, 2, 3, 1000, 5 records, generated last chunk first.
std::vector<std::byte> generate_in_uneven_chunks(const RecordLayout& layout, std::uint64_t n, const Distribution& dist,
                                                 std::uint64_t seed) {
  std::vector<std::byte> records(n * layout.record_size);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> chunks;
  const std::uint64_t sizes[] = {1, 2, 3, 1000, 5};
  for (std::uint64_t first = 0, c = 0; first < n; ++c) {
    const std::uint64_t count = std::min(sizes[c % std::size(sizes)], n - first);
    chunks.emplace_back(first, count);
    first += count;
  }
  for (auto it = chunks.rbegin(); it != chunks.rend(); ++it)
    generate_records(records.data() + it->first * layout.record_size, it->first, it->second, n, layout, dist, seed);
  return records;
}

// The payload of RECORD: its bytes before the key, then those after.
std::vector<std::byte> payload_of(const RecordLayout& layout, const std::byte* record) {
  std::vector<std::byte> payload(record, record + layout.key_offset);
  payload.insert(payload.end(), record + layout.key_offset + layout.key_size, record + layout.record_size);
  return payload;
}

const std::byte* key_of(const RecordLayout& layout, const std::vector<std::byte>& records, std::size_t i) {
  return records.data() + i * layout.record_size + layout.key_offset;
}

// A bytes key's first W = min(N, 8) bytes as a big-endian number.
std::uint64_t big_endian(const std::byte* key, std::size_t bytes) {
  std::uint64_t value = 0;
  for (std::size_t b = 0; b < bytes; ++b) value = value << 8 | std::uint64_t(key[b]);
  return value;
}

bool all_zero(const std::byte* bytes, std::size_t n) {
  return std::all_of(bytes, bytes + n, [](std::byte b) { return b == std::byte{0}; });
}

// ---------------------------------------------------------------------------------------------------
// Every layout

TEST(GenerateRecords, ThePayloadStartsWithTheIndexAndIsFilledFromTheSeed) {
  for (const RecordLayout& layout : testing::record_test_layouts()) {
    if (layout.is_bare_key() || detail::is_sort_benchmark_layout(layout)) continue;
    SCOPED_TRACE(layout_name(layout));
    for (const Distribution& dist : {parse_distribution("uniform"), parse_distribution("zero")}) {
      const auto records = generate_in_one_call(layout, 300, dist, 3);
      const auto other_seed = generate_in_one_call(layout, 300, dist, 4);
      const std::size_t payload_bytes = layout.record_size - layout.key_size;
      for (std::uint64_t i = 0; i < 300; ++i) {
        const auto payload = payload_of(layout, records.data() + i * layout.record_size);
        std::array<std::byte, 8> index{};
        std::memcpy(index.data(), &i, 8);
        const std::size_t index_bytes = std::min<std::size_t>(payload_bytes, 8);
        ASSERT_TRUE(std::equal(payload.begin(), payload.begin() + std::ptrdiff_t(index_bytes), index.begin())) << i;
        // The filler: the payload stream's draws, little-endian.
        detail::KeyRandom random(detail::payload_stream(3), i);
        for (std::size_t at = 8; at < payload_bytes; at += 8) {
          const std::uint64_t draw = random.next();
          ASSERT_EQ(std::memcmp(payload.data() + at, &draw, std::min<std::size_t>(8, payload_bytes - at)), 0) << i;
        }
      }
      if (payload_bytes > 8) {
        EXPECT_NE(records, other_seed) << "the filler does not depend on the seed";
      }
    }
  }
}

TEST(GenerateRecords, NumberKeysAreTheBareKeys) {
  for (const RecordLayout& layout : testing::record_test_layouts()) {
    if (layout.key_type == KeyType::bytes) continue;
    SCOPED_TRACE(layout_name(layout));
    for (const Distribution& dist : distributions_for(layout.key())) {
      for (std::uint64_t n : {0, 1, 7, 1000}) {
        const auto records = generate_in_one_call(layout, n, dist, 5);
        std::vector<std::byte> keys(n * layout.key_size);
        generate_records(keys.data(), 0, n, n, RecordLayout::bare_key(layout.key_type), dist, 5);
        for (std::uint64_t i = 0; i < n; ++i)
          ASSERT_EQ(std::memcmp(key_of(layout, records, i), keys.data() + i * layout.key_size, layout.key_size), 0)
              << to_string(dist) << ", record " << i << " of " << n;
      }
    }
  }
}

// Every distribution for each key type (at offset 1 of records one byte longer than the key), uniform
// for every layout.
TEST(GenerateRecords, SameRecordsWhateverTheThreadCountAndTheChunking) {
  for (const RecordLayout& layout : testing::record_test_layouts()) {
    SCOPED_TRACE(layout_name(layout));
    const bool representative = layout.record_size == layout.key_size + 1 && layout.key_offset == 1;
    std::vector<Distribution> dists = {parse_distribution("uniform")};
    if (representative) dists = distributions_for(layout.key());
    for (const Distribution& dist : dists) {
      // Over 4 parallel tasks of 128 KiB, and odd.
      const std::uint64_t n = 4 * std::max<std::uint64_t>(1, (std::uint64_t{128} << 10) / layout.record_size) + 3;
      std::vector<std::byte> one_thread, two_threads;
      {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
        one_thread = generate_in_one_call(layout, n, dist, 7);
      }
      {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 2);
        two_threads = generate_in_one_call(layout, n, dist, 7);
      }
      EXPECT_TRUE(one_thread == two_threads) << to_string(dist);
      EXPECT_TRUE(generate_in_uneven_chunks(layout, n, dist, 7) == one_thread) << to_string(dist);
    }
  }
}

TEST(GenerateRecords, RejectsWhatCannotWork) {
  std::vector<std::byte> out(100);
  const RecordLayout one_byte = RecordLayout::of({KeyType::bytes, 1}, 10, 9);
  try {
    generate_records(out.data(), 0, 1, 1, one_byte, parse_distribution("bits:9"), 1);
    ADD_FAILURE() << "bits:9 for bytes:1 did not throw";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("bits:9"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("bytes:1 keys have 8"), std::string::npos) << error.what();
  }
  EXPECT_NO_THROW(generate_records(out.data(), 0, 1, 1, one_byte, parse_distribution("bits:8"), 1));
  const RecordLayout three = RecordLayout::of({KeyType::bytes, 3}, 13, 0);
  EXPECT_THROW(validate_distribution(parse_distribution("bits:25"), three.key()), Error);
  EXPECT_NO_THROW(validate_distribution(parse_distribution("bits:24"), three.key()));
  EXPECT_NO_THROW(validate_distribution(parse_distribution("bits:64"), KeySpec{KeyType::bytes, 10}));
  const RecordLayout u64_records = RecordLayout::of({KeyType::u64, 8}, 13, 3);
  EXPECT_THROW(generate_records(out.data(), 0, 1, 1, RecordLayout::of({KeyType::u32, 4}, 12, 0),
                                parse_distribution("bits:33"), 1),
               Error);
  EXPECT_THROW(generate_records(out.data(), 5, 6, 10, u64_records, parse_distribution("uniform"), 1), Error);
  EXPECT_THROW(generate_records(out.data(), 11, 0, 10, u64_records, parse_distribution("uniform"), 1), Error);
  EXPECT_NO_THROW(generate_records(nullptr, 10, 0, 10, u64_records, parse_distribution("uniform"), 1));
}

// ---------------------------------------------------------------------------------------------------
// bytes:N keys

constexpr std::size_t kBytesWidths[] = {1, 3, 4, 8, 10, 16, 32};

// LAYOUT's keys: bytes:N at offset 2 of N + 5-byte records.
RecordLayout bytes_records(std::size_t n) { return RecordLayout::of({KeyType::bytes, n}, n + 5, 2); }

template <class T>
std::vector<T> number_keys(std::uint64_t n, const Distribution& dist, std::uint64_t seed) {
  std::vector<T> keys(n);
  generate_keys(keys.data(), 0, n, n, dist, seed);
  return keys;
}

TEST(GenerateBytesKeys, NumbersAreTheU32AndU64KeysBigEndianAndZeroBytesAfter) {
  constexpr std::uint64_t n = 5000;
  for (std::size_t width : kBytesWidths) {
    const RecordLayout layout = bytes_records(width);
    const std::size_t number_bytes = std::min<std::size_t>(width, 8);
    SCOPED_TRACE(layout_name(layout));
    for (const char* text : {"sorted", "reverse", "nearly-sorted", "zipf:1.5", "bits:5", "bits:24"}) {
      const Distribution dist = parse_distribution(text);
      if (dist.kind == Distribution::Kind::bits && dist.bits > 8 * width) continue;
      const auto records = generate_in_one_call(layout, n, dist, 9);
      const bool at_end = dist.kind == Distribution::Kind::zipf || dist.kind == Distribution::Kind::bits;
      const auto u32 = number_keys<std::uint32_t>(n, dist, 9);
      const auto u64 = number_keys<std::uint64_t>(n, dist, 9);
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::byte* key = key_of(layout, records, i);
        const std::byte* number = at_end ? key + width - number_bytes : key;
        const std::byte* zeros = at_end ? key : key + number_bytes;
        ASSERT_TRUE(all_zero(zeros, width - number_bytes)) << text << ", key " << i;
        if (number_bytes == 4) {
          ASSERT_EQ(big_endian(number, 4), u32[i]) << text << ", key " << i;
        } else if (number_bytes == 8) {
          ASSERT_EQ(big_endian(number, 8), u64[i]) << text << ", key " << i;
        }
      }
    }
    // normal: the u64 normal key's top W bytes.
    const auto records = generate_in_one_call(layout, n, parse_distribution("normal"), 9);
    const auto u64 = number_keys<std::uint64_t>(n, parse_distribution("normal"), 9);
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::byte* key = key_of(layout, records, i);
      ASSERT_EQ(big_endian(key, number_bytes), u64[i] >> (64 - 8 * number_bytes)) << "normal, key " << i;
      ASSERT_TRUE(all_zero(key + number_bytes, width - number_bytes)) << "normal, key " << i;
    }
  }
}

// -1, 0 or 1 as memcmp orders keys A and B.
int memcmp_sign(const std::byte* a, const std::byte* b, std::size_t n) {
  const int c = std::memcmp(a, b, n);
  return (c > 0) - (c < 0);
}

TEST(GenerateBytesKeys, SortedAndReverseAreInMemcmpOrderNearlySortedNearly) {
  for (std::size_t width : kBytesWidths) {
    const RecordLayout layout = bytes_records(width);
    SCOPED_TRACE(layout_name(layout));
    for (std::uint64_t n : {1, 7, 100003}) {
      const auto sorted = generate_in_uneven_chunks(layout, n, parse_distribution("sorted"), 10);
      const auto reverse = generate_in_uneven_chunks(layout, n, parse_distribution("reverse"), 10);
      const auto nearly = generate_in_one_call(layout, n, parse_distribution("nearly-sorted"), 10);
      std::uint64_t nearly_inversions = 0;
      for (std::uint64_t i = 1; i < n; ++i) {
        ASSERT_LE(memcmp_sign(key_of(layout, sorted, i - 1), key_of(layout, sorted, i), width), 0) << i;
        ASSERT_GE(memcmp_sign(key_of(layout, reverse, i - 1), key_of(layout, reverse, i), width), 0) << i;
        nearly_inversions += memcmp_sign(key_of(layout, nearly, i - 1), key_of(layout, nearly, i), width) > 0;
      }
      // About a third of neighbours inverted where the grid is finer than the keys (bytes:1 has 256
      // values for 100003 keys: mostly equal neighbours).
      if (n > 1000 && width >= 3) {
        EXPECT_GT(nearly_inversions, n / 5);
        EXPECT_LT(nearly_inversions, n / 2);
      }
    }
  }
}

TEST(GenerateBytesKeys, UniformZeroZipfBitsAndSpecial) {
  constexpr std::uint64_t n = 20000;
  for (std::size_t width : kBytesWidths) {
    const RecordLayout layout = bytes_records(width);
    const std::size_t number_bytes = std::min<std::size_t>(width, 8);
    SCOPED_TRACE(layout_name(layout));

    // uniform: every byte takes every value.
    const auto uniform = generate_in_one_call(layout, n, parse_distribution("uniform"), 11);
    for (std::size_t b = 0; b < width; ++b) {
      std::set<std::byte> values;
      for (std::uint64_t i = 0; i < n; ++i) values.insert(key_of(layout, uniform, i)[b]);
      EXPECT_EQ(values.size(), 256u) << "byte " << b;
    }

    const auto zero = generate_in_one_call(layout, n, parse_distribution("zero"), 11);
    for (std::uint64_t i = 1; i < n; ++i) ASSERT_EQ(std::memcmp(key_of(layout, zero, i), key_of(layout, zero, 0), width), 0);

    // zipf: ranks from 1; rank 1 the most frequent.
    const auto zipf = generate_in_one_call(layout, n, parse_distribution("zipf:1.5"), 11);
    std::map<std::uint64_t, std::uint64_t> frequency;
    for (std::uint64_t i = 0; i < n; ++i) ++frequency[big_endian(key_of(layout, zipf, i) + width - number_bytes, number_bytes)];
    EXPECT_EQ(frequency.count(0), 0u);
    const auto most = std::max_element(frequency.begin(), frequency.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    EXPECT_EQ(most->first, 1u);

    // bits:B: the number is below 2^B.
    const unsigned bits = unsigned(std::min<std::size_t>(8 * width, 64)) - 1;
    const auto few_bits = generate_in_one_call(layout, n, parse_distribution("bits:" + std::to_string(bits)), 11);
    for (std::uint64_t i = 0; i < n; ++i)
      ASSERT_EQ(big_endian(key_of(layout, few_bits, i) + width - number_bytes, number_bytes) >> bits, 0u) << i;

    // bits:B above 64 (keys of more than 8 bytes): the last 8 bytes are bits:64's, the B - 64 bits
    // above them random (the highest of them set in some key), every bit above B zero.
    if (width > 8) {
      const unsigned wide = unsigned(8 * width) - 3;
      const auto wide_bits = generate_in_one_call(layout, n, parse_distribution("bits:" + std::to_string(wide)), 11);
      const auto bits_64 = generate_in_one_call(layout, n, parse_distribution("bits:64"), 11);
      bool top_bit_set = false;
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::byte* key = key_of(layout, wide_bits, i);
        ASSERT_EQ(std::memcmp(key + width - 8, key_of(layout, bits_64, i) + width - 8, 8), 0) << i;
        ASSERT_EQ(std::to_integer<unsigned>(key[0]) >> 5, 0u) << i;  // bits 8 * width - 3 and up
        top_bit_set |= (std::to_integer<unsigned>(key[0]) >> 4) != 0;  // bit wide - 1
      }
      EXPECT_TRUE(top_bit_set);
      EXPECT_THROW((void)generate_in_one_call(layout, 1, parse_distribution("bits:" + std::to_string(8 * width + 1)), 11),
                   Error);
    }

    // special: every special key, and uniform keys besides.
    const auto special = generate_in_one_call(layout, n, parse_distribution("special"), 11);
    std::set<std::string> keys;
    for (std::uint64_t i = 0; i < n; ++i) keys.emplace(reinterpret_cast<const char*>(key_of(layout, special, i)), width);
    for (const detail::SpecialBytes& want : detail::kSpecialBytes) {
      std::string key(width, char(want.middle));
      key.back() = char(want.last);
      key.front() = char(want.first);
      EXPECT_EQ(keys.count(key), 1u) << "special key " << int(want.first) << " " << int(want.middle) << " "
                                     << int(want.last);
    }
    EXPECT_GT(keys.size(), width == 1 ? 200u : 5000u);
  }
}

// ---------------------------------------------------------------------------------------------------
// The Sort Benchmark layout

TEST(GenerateSortBenchmark, RecordsHaveGensortsFixedBytesIndexAndFiller) {
  const RecordLayout layout = RecordLayout::of({KeyType::bytes, 10}, 100, 0);
  ASSERT_TRUE(detail::is_sort_benchmark_layout(layout));
  constexpr std::uint64_t n = 70000;  // index digits beyond 0xffff
  const auto records = generate_in_one_call(layout, n, parse_distribution("uniform"), 12);
  const auto hex = [](std::uint64_t value, int digits) {
    std::string text(std::size_t(digits), '0');
    for (int d = digits - 1; d >= 0; --d, value >>= 4) text[std::size_t(d)] = "0123456789ABCDEF"[value & 0xf];
    return text;
  };
  std::set<std::string> keys;
  for (std::uint64_t i = 0; i < n; ++i) {
    const auto* record = reinterpret_cast<const unsigned char*>(records.data() + i * 100);
    ASSERT_EQ(record[10], 0x00);
    ASSERT_EQ(record[11], 0x11);
    ASSERT_EQ(std::string(reinterpret_cast<const char*>(record + 12), 32), hex(i, 32)) << i;
    ASSERT_EQ((std::array<unsigned char, 4>{record[44], record[45], record[46], record[47]}),
              (std::array<unsigned char, 4>{0x88, 0x99, 0xaa, 0xbb}));
    detail::KeyRandom random(detail::payload_stream(12), i);
    const std::string filler = hex(random.next() & 0xffffffffffff, 12);
    for (int d = 0; d < 12; ++d)
      for (int r = 0; r < 4; ++r) ASSERT_EQ(record[48 + 4 * d + r], filler[std::size_t(d)]) << i << " digit " << d;
    ASSERT_EQ((std::array<unsigned char, 4>{record[96], record[97], record[98], record[99]}),
              (std::array<unsigned char, 4>{0xcc, 0xdd, 0xee, 0xff}));
    keys.emplace(reinterpret_cast<const char*>(record), 10);
  }
  EXPECT_EQ(keys.size(), n);  // 80 random bits per key
  // Other distributions keep the layout around their keys.
  const auto sorted = generate_in_one_call(layout, 1000, parse_distribution("sorted"), 12);
  for (std::uint64_t i = 1; i < 1000; ++i) {
    ASSERT_LE(std::memcmp(sorted.data() + (i - 1) * 100, sorted.data() + i * 100, 10), 0);
    ASSERT_EQ(sorted[i * 100 + 11], std::byte{0x11});
  }
}

// Data sets must stay reproducible from one rmgsort version to the next: a changed value here means
// every previously generated file of records changed too.
TEST(GenerateRecords, RecordsArePinned) {
  const RecordLayout gensort = RecordLayout::of({KeyType::bytes, 10}, 100, 0);
  const auto benchmark = generate_in_one_call(gensort, 2, parse_distribution("uniform"), 42);
  const auto text = [](const std::byte* bytes, std::size_t n) {
    std::string hex;
    for (std::size_t b = 0; b < n; ++b) hex += "0123456789abcdef"[int(bytes[b]) >> 4], hex += "0123456789abcdef"[int(bytes[b]) & 15];
    return hex;
  };
  EXPECT_EQ(text(benchmark.data(), 10), "e35a6f7850d99eb2db26");
  EXPECT_EQ(text(benchmark.data() + 148, 4), "31313131");  // record 1's first filler digit, 4 times
  const RecordLayout u64 = RecordLayout::of({KeyType::u64, 8}, 21, 3);
  const auto records = generate_in_one_call(u64, 2, parse_distribution("uniform"), 42);
  // Record 1: its index's low 3 bytes, u64 uniform key 1 of seed 42 (generate_test's pinned
  // 0x57e1faba65107204), the index's other 5 bytes, 5 bytes of filler.
  EXPECT_EQ(text(records.data() + 21, 21), "01000004721065bafae1570000000000aea11a1aca");
}

}  // namespace
}  // namespace rmgsort
