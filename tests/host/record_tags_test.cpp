#include "host/record_tags.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/record_rank.hpp"
#include "generate/generate.hpp"
#include "generate/special_keys.hpp"
#include "host/radix_sort.hpp"
#include "host/tag_sort.hpp"
#include "host/record_tags_config.hpp"

namespace rmgsort {
namespace {

// --- Key kinds: the six number types and bytes:N --------------------------------------------------

// Keys as raw bytes, `width` each; `mix` is "uniform", "special" (about half special values) or
// "duplicates" (only a handful of distinct keys).
template <class T>
struct NumberKeys {
  static constexpr KeySpec kSpec{KeyTypeOf<T>::value, sizeof(T)};

  static std::vector<std::byte> make(std::size_t count, const std::string& mix, std::uint64_t seed) {
    std::vector<T> keys(count);
    if (mix == "duplicates") {
      static constexpr auto kPatterns = detail::special_bit_patterns<T>();
      std::mt19937_64 random(seed);
      for (T& key : keys) key = std::bit_cast<T>(kPatterns[random() % kPatterns.size()]);
    } else if (count > 0) {
      generate_keys(keys.data(), 0, count, count, parse_distribution(mix), seed);
    }
    std::vector<std::byte> bytes(count * sizeof(T));
    if (count > 0) std::memcpy(bytes.data(), keys.data(), bytes.size());
    return bytes;
  }
};

template <std::size_t N>
struct BytesKeys {
  static constexpr KeySpec kSpec{KeyType::bytes, N};

  // "special": every key starts with the same 8 bytes (so rank word 0 ties when N > 8) and the
  // rest comes from few values.
  static std::vector<std::byte> make(std::size_t count, const std::string& mix, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<std::byte> bytes(count * N);
    std::vector<std::byte> few(4 * N);
    for (std::byte& b : few) b = std::byte(random());
    few[N] = std::byte{0}, few[2 * N] = std::byte{0xff};
    for (std::size_t i = 0; i < count; ++i) {
      std::byte* key = bytes.data() + i * N;
      for (std::size_t k = 0; k < N; ++k) key[k] = std::byte(random());
      if (mix == "duplicates") std::memcpy(key, few.data() + random() % 4 * N, N);
      if (mix == "special") {
        std::memcpy(key, few.data(), std::min<std::size_t>(N, 8));
        if (N > 8 && random() % 2 == 0) std::memcpy(key + 8, few.data() + random() % 4 * N + 8, N - 8);
      }
    }
    return bytes;
  }
};

using KeyKinds = ::testing::Types<NumberKeys<std::uint32_t>, NumberKeys<std::uint64_t>, NumberKeys<std::int32_t>,
                                  NumberKeys<std::int64_t>, NumberKeys<float>, NumberKeys<double>, BytesKeys<1>,
                                  BytesKeys<3>, BytesKeys<8>, BytesKeys<10>, BytesKeys<16>, BytesKeys<32>>;

// --- Records and the reference -------------------------------------------------------------------

// COUNT records of LAYOUT holding KEYS (key_size bytes each) at the key offset; every other byte
// holds the record's position (its little-endian bytes, over and over), so that the output shows
// which record went where.
std::vector<std::byte> make_records(const std::vector<std::byte>& keys, std::size_t count, const RecordLayout& layout) {
  std::vector<std::byte> records(count * layout.record_size);
  for (std::size_t i = 0; i < count; ++i) {
    std::byte* record = records.data() + i * layout.record_size;
    for (std::size_t b = 0, payload = 0; b < layout.record_size; ++b)
      if (b < layout.key_offset || b >= layout.key_offset + layout.key_size)
        record[b] = std::byte(i >> (8 * (payload++ % 8)));
    std::memcpy(record + layout.key_offset, keys.data() + i * layout.key_size, layout.key_size);
  }
  return records;
}

// The stable order: positions sorted by compare_ranks, ties in input order.
std::vector<std::uint64_t> reference_order(const std::vector<std::byte>& records, std::size_t count,
                                           const RecordLayout& layout, SortOrder order) {
  std::vector<std::uint64_t> positions(count);
  std::iota(positions.begin(), positions.end(), 0);
  visit_rank(layout, order, [&](const auto& rank) {
    std::stable_sort(positions.begin(), positions.end(), [&](std::uint64_t a, std::uint64_t b) {
      return compare_ranks(rank, records.data() + a * layout.record_size, records.data() + b * layout.record_size) < 0;
    });
  });
  return positions;
}

std::string describe(const RecordLayout& layout, SortOrder order, std::size_t count) {
  return layout.key().name() + " record_size=" + std::to_string(layout.record_size) +
         " offset=" + std::to_string(layout.key_offset) + (layout.equal_nans ? "" : " nans-by-bits") +
         (order == SortOrder::ascending ? " ascending" : " descending") + " count=" + std::to_string(count);
}

// The four steps as the CPU engine composes them (sort/record_tag_sorter.cpp), with the tag sort
// of host/tag_sort.hpp: the sorted records.
std::vector<std::byte> sort_through_tags(const std::vector<std::byte>& records, std::size_t count,
                                         const RecordLayout& layout, SortOrder order) {
  std::vector<std::uint64_t> tags(count + 1), scratch(count + 1);
  const TagPlan plan = build_record_tags(records.data(), count, layout, order, tags.data());
  sort_tags(tags.data(), count, plan.index_bits, scratch.data());
  refine_record_tags(tags.data(), count, plan, records.data(), layout, order);
  std::vector<std::byte> out(count * layout.record_size);
  gather_records(tags.data(), count, plan, records.data(), layout.record_size, out.data());
  return out;
}

// Sorts the records through the four steps with each u64 sort, and checks both against the
// reference: the positions the refined tags hold, and the output bytes. An exact plan must need no
// refinement.
void expect_sorts(const std::vector<std::byte>& records, std::size_t count, const RecordLayout& layout, SortOrder order,
                  const std::string& what) {
  const std::vector<std::uint64_t> want = reference_order(records, count, layout, order);
  std::vector<std::uint64_t> tags(count);
  const TagPlan plan = build_record_tags(records.data(), count, layout, order, tags.data());
  EXPECT_EQ(plan.index_bits, count <= 1 ? 0 : int(std::bit_width(count - 1))) << what;
  for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(tag_position(tags[i], plan), i) << what;
  radix_sort<std::uint64_t>(tags.data(), count, SortOrder::ascending);
  const auto positions = [&] {
    std::vector<std::uint64_t> got(count);
    for (std::size_t j = 0; j < count; ++j) got[j] = tag_position(tags[j], plan);
    return got;
  };
  if (plan.exact) {
    ASSERT_EQ(positions(), want) << what << ": the plan claims exact tags";
  }
  refine_record_tags(tags.data(), count, plan, records.data(), layout, order);
  ASSERT_EQ(positions(), want) << what;

  std::vector<std::byte> want_bytes(records.size());
  for (std::size_t j = 0; j < count; ++j)
    std::memcpy(want_bytes.data() + j * layout.record_size, records.data() + want[j] * layout.record_size,
                layout.record_size);
  std::vector<std::byte> gathered(records.size());
  gather_records(tags.data(), count, plan, records.data(), layout.record_size, gathered.data());
  ASSERT_TRUE(gathered == want_bytes) << what << ": gather_records";

  ASSERT_TRUE(sort_through_tags(records, count, layout, order) == want_bytes) << what << ": with sort_tags";
}

template <class Kind>
class RecordTagsTest : public ::testing::Test {};
TYPED_TEST_SUITE(RecordTagsTest, KeyKinds);

// Record sizes key, key + 1, 12, 13 and 100 (those the key fits), each with the key at offset 0,
// in the middle and last.
template <class Kind>
std::vector<RecordLayout> every_layout() {
  const std::size_t width = Kind::kSpec.width;
  std::vector<RecordLayout> layouts;
  for (std::size_t size : {width, width + 1, std::size_t{12}, std::size_t{13}, std::size_t{100}}) {
    if (size < width) continue;
    for (std::size_t offset : {std::size_t{0}, (size - width) / 2, size - width}) {
      const RecordLayout layout = RecordLayout::of(Kind::kSpec, size, offset);
      if (std::find_if(layouts.begin(), layouts.end(), [&](const RecordLayout& l) {
            return l.record_size == size && l.key_offset == offset;
          }) == layouts.end())
        layouts.push_back(layout);
    }
  }
  return layouts;
}

TYPED_TEST(RecordTagsTest, EveryLayoutBothOrdersSmallCounts) {
  using Kind = TypeParam;
  std::uint64_t seed = 1;
  for (const RecordLayout& layout : every_layout<Kind>()) {
    for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
      for (std::size_t count : {0, 1, 2, 7, 1000}) {
        for (const char* mix : {"uniform", "special", "duplicates"}) {
          const auto records = make_records(Kind::make(count, mix, seed++), count, layout);
          expect_sorts(records, count, layout, order, describe(layout, order, count) + " " + mix);
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

TYPED_TEST(RecordTagsTest, LargeCountsAcrossTheScanChunks) {
  using Kind = TypeParam;
  const std::size_t width = Kind::kSpec.width;
  std::uint64_t seed = 100;
  for (const RecordLayout& layout :
       {RecordLayout::of(Kind::kSpec, width + 5, 5), RecordLayout::of(Kind::kSpec, 100, 100 - width)}) {
    for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
      for (const char* mix : {"uniform", "special", "duplicates"}) {
        const std::size_t count = 100'003;
        const auto records = make_records(Kind::make(count, mix, seed++), count, layout);
        expect_sorts(records, count, layout, order, describe(layout, order, count) + " " + mix);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// --- The tag plan and its edge cases -------------------------------------------------------------

template <class T>
std::vector<std::byte> records_of(const std::vector<T>& keys, const RecordLayout& layout) {
  std::vector<std::byte> bytes(keys.size() * sizeof(T));
  if (!keys.empty()) std::memcpy(bytes.data(), keys.data(), bytes.size());
  return make_records(bytes, keys.size(), layout);
}

const RecordLayout kU64Pair = RecordLayout::of(KeySpec{KeyType::u64, 8}, 16, 0);

TEST(RecordTagsPlan, AllKeysEqualGiveExactTagsThatAreThePositions) {
  for (std::size_t count : {1, 2, 7, 70'000}) {
    const auto records = records_of(std::vector<std::uint64_t>(count, 42), kU64Pair);
    std::vector<std::uint64_t> tags(count);
    const TagPlan plan = build_record_tags(records.data(), count, kU64Pair, SortOrder::descending, tags.data());
    EXPECT_TRUE(plan.exact);
    for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(tags[i], i) << "count " << count;
    expect_sorts(records, count, kU64Pair, SortOrder::descending, "all equal, count " + std::to_string(count));
  }
}

TEST(RecordTagsPlan, NoRecordsNoTags) {
  const TagPlan plan = build_record_tags(nullptr, 0, kU64Pair, SortOrder::ascending, nullptr);
  EXPECT_EQ(plan.index_bits, 0);
  EXPECT_TRUE(plan.exact);
  refine_record_tags(nullptr, 0, plan, nullptr, kU64Pair, SortOrder::ascending);
  gather_records(nullptr, 0, plan, nullptr, 16, nullptr);
}

TEST(RecordTagsPlan, ThirtyTwoBitKeysAreExact) {
  const RecordLayout layout = RecordLayout::of(KeySpec{KeyType::i32, 4}, 13, 3);
  const std::size_t count = 100'000;
  std::vector<std::int32_t> keys(count);
  generate_keys(keys.data(), 0, count, count, parse_distribution("uniform"), 3);
  const auto records = records_of(keys, layout);
  std::vector<std::uint64_t> tags(count);
  EXPECT_TRUE(build_record_tags(records.data(), count, layout, SortOrder::ascending, tags.data()).exact);
  expect_sorts(records, count, layout, SortOrder::ascending, "i32 uniform");
}

TEST(RecordTagsPlan, SixtyFourBitKeysSpreadOverEveryBitNeedRefinement) {
  const std::size_t count = 200'000;
  std::vector<std::uint64_t> keys(count);
  generate_keys(keys.data(), 0, count, count, parse_distribution("uniform"), 5);
  // Pairs that tie in the prefix and differ below it, in both orders of their low bits.
  for (std::size_t i = 0; i + 1 < count; i += 1000) keys[i + 1] = keys[i] ^ (i % 2000 == 0 ? 1 : 0x1234);
  const auto records = records_of(keys, kU64Pair);
  std::vector<std::uint64_t> tags(count);
  const TagPlan plan = build_record_tags(records.data(), count, kU64Pair, SortOrder::ascending, tags.data());
  EXPECT_FALSE(plan.exact);
  EXPECT_EQ(plan.shift, 64 - (64 - plan.index_bits));
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending})
    expect_sorts(records, count, kU64Pair, order, "u64 uniform with near pairs");
}

TEST(RecordTagsPlan, OneRunOfEveryRecordWhenTheKeysDifferOnlyBelowThePrefix) {
  // One key has the top bit; the others agree on every prefix bit and differ in the low 16: the
  // sorted tags are one run of count - 1 records (a parallel sort of the run).
  const std::size_t count = 100'000;
  std::vector<std::uint64_t> keys(count);
  std::mt19937_64 random(9);
  for (auto& key : keys) key = random() & 0xffff;
  keys[count / 2] = std::uint64_t{1} << 63;
  const auto records = records_of(keys, kU64Pair);
  std::vector<std::uint64_t> tags(count);
  EXPECT_FALSE(build_record_tags(records.data(), count, kU64Pair, SortOrder::ascending, tags.data()).exact);
  static_assert(100'000 > record_tags_config::kSequentialRun);
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending})
    expect_sorts(records, count, kU64Pair, order, "one run");
}

TEST(RecordTagsPlan, RunsThatCrossTheScanChunks) {
  // Keys group << 20 | low 20 random bits, plus one with the top bit: runs of ~3000 equal
  // prefixes, some across every multiple of the scan grain.
  const std::size_t count = 3 * record_tags_config::kScanGrain + 17;
  std::vector<std::uint64_t> keys(count);
  std::mt19937_64 random(11);
  for (std::size_t i = 0; i < count; ++i) keys[i] = (i % 4) << 20 | (random() & 0xfffff);
  keys[0] = ~std::uint64_t{0};
  const auto records = records_of(keys, kU64Pair);
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending})
    expect_sorts(records, count, kU64Pair, order, "runs across chunks");
}

TEST(RecordTagsPlan, BytesKeysWhoseFirstWordTiesCutTheSecond) {
  const RecordLayout layout = RecordLayout::of(KeySpec{KeyType::bytes, 16}, 21, 2);
  const std::size_t count = 50'000;
  auto keys = BytesKeys<16>::make(count, "uniform", 13);
  for (std::size_t i = 0; i < count; ++i) std::memcpy(keys.data() + i * 16, "common08", 8);
  const auto records = make_records(keys, count, layout);
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    std::vector<std::uint64_t> tags(count);
    const TagPlan plan = build_record_tags(records.data(), count, layout, order, tags.data());
    EXPECT_EQ(plan.word, 1);
    EXPECT_FALSE(plan.exact);
    expect_sorts(records, count, layout, order, "bytes:16, first 8 bytes common");
  }
}

TEST(RecordTagsPlan, BytesKeysWhoseFirstWordFitsThePrefixStillRefineTheNext) {
  // Word 0 differs only in its low 4 bits (the prefix holds them all), word 1 differs too.
  const RecordLayout layout = RecordLayout::of(KeySpec{KeyType::bytes, 10}, 100, 90);
  const std::size_t count = 20'000;
  auto keys = BytesKeys<10>::make(count, "uniform", 19);
  for (std::size_t i = 0; i < count; ++i) {
    std::memset(keys.data() + i * 10, 0, 7);
    keys[i * 10 + 7] = std::byte(i % 16);
  }
  const auto records = make_records(keys, count, layout);
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    std::vector<std::uint64_t> tags(count);
    const TagPlan plan = build_record_tags(records.data(), count, layout, order, tags.data());
    EXPECT_EQ(plan.word, 0);
    EXPECT_EQ(plan.shift, 0);
    EXPECT_FALSE(plan.exact);
    expect_sorts(records, count, layout, order, "bytes:10, word 0 narrow");
  }
}

TEST(RecordTagsPlan, IndexBitsAtPowersOfTwo) {
  std::uint64_t seed = 17;
  for (int k : {1, 2, 5, 8, 16, 17}) {
    for (std::size_t count : {(std::size_t{1} << k) - 1, std::size_t{1} << k, (std::size_t{1} << k) + 1}) {
      std::vector<std::uint64_t> keys(count);
      generate_keys(keys.data(), 0, count, count, parse_distribution("zipf:1.0"), seed++);
      expect_sorts(records_of(keys, kU64Pair), count, kU64Pair, SortOrder::ascending, "count " + std::to_string(count));
    }
  }
}

TEST(RecordTagsPlan, FortyIndexBits) {
  // A round of 2^40 records does not fit a test; a plan with 40 index bits over a few records
  // checks the shifts: the positions below bit 40, the prefixes above.
  const TagPlan plan{40, 0, 0, false};
  EXPECT_EQ(tag_position((std::uint64_t{5} << 40) | 3, plan), 3u);
  EXPECT_EQ(tag_position(~std::uint64_t{0}, plan), (std::uint64_t{1} << 40) - 1);
  // Records 0..3 with keys 9, 7, 9, 8 whose prefixes (their top bit, here) tie: one run.
  const std::vector<std::uint64_t> keys = {9, 7, 9, 8};
  const auto records = records_of(keys, kU64Pair);
  std::vector<std::uint64_t> tags = {(std::uint64_t{1} << 40) | 0, (std::uint64_t{1} << 40) | 1,
                                     (std::uint64_t{1} << 40) | 2, (std::uint64_t{1} << 40) | 3};
  refine_record_tags(tags.data(), 4, plan, records.data(), kU64Pair, SortOrder::ascending);
  std::vector<std::byte> out(records.size());
  gather_records(tags.data(), 4, plan, records.data(), 16, out.data());
  std::vector<std::uint64_t> got(4);
  for (std::size_t j = 0; j < 4; ++j) std::memcpy(&got[j], out.data() + j * 16 + 8, 8);
  EXPECT_EQ(got, (std::vector<std::uint64_t>{1, 3, 0, 2}));
}

// --- The order contract, spelled out -------------------------------------------------------------

template <class T>
class RecordTagsFloatTest : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RecordTagsFloatTest, FloatTypes);

TYPED_TEST(RecordTagsFloatTest, NansLastInInputOrderAndNegativeZeroFirstInBothOrders) {
  using T = TypeParam;
  using Limits = std::numeric_limits<T>;
  const RecordLayout layout = RecordLayout::of(KeySpec{KeyTypeOf<T>::value, sizeof(T)}, sizeof(T) + 8, 0);
  const T nan = Limits::quiet_NaN();
  const std::vector<T> keys = {
      -nan, T(1), T(0), nan, -T(0), Limits::infinity(), std::bit_cast<T>(std::bit_cast<RadixBits<T>>(nan) | 5), T(-2)};
  const auto records = records_of(keys, layout);
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
    const std::vector<std::byte> out = sort_through_tags(records, keys.size(), layout, order);
    std::vector<std::uint64_t> positions(keys.size());
    for (std::size_t j = 0; j < keys.size(); ++j)
      std::memcpy(&positions[j], out.data() + j * layout.record_size + sizeof(T), 8);
    const std::vector<std::uint64_t> want = order == SortOrder::ascending
                                                ? std::vector<std::uint64_t>{7, 4, 2, 1, 5, 0, 3, 6}
                                                : std::vector<std::uint64_t>{5, 1, 2, 4, 7, 0, 3, 6};
    EXPECT_EQ(positions, want) << (order == SortOrder::ascending ? "ascending" : "descending");
  }
}

TYPED_TEST(RecordTagsFloatTest, NansByBitsWhenTheyDoNotRankEqual) {
  using Kind = NumberKeys<TypeParam>;
  for (std::size_t size : {Kind::kSpec.width, std::size_t{13}}) {
    RecordLayout layout = RecordLayout::of(Kind::kSpec, size, size - Kind::kSpec.width);
    layout.equal_nans = false;
    for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
      const std::size_t count = 5000;
      const auto records = make_records(Kind::make(count, "duplicates", 7), count, layout);
      expect_sorts(records, count, layout, order, describe(layout, order, count));
    }
  }
}

}  // namespace
}  // namespace rmgsort
