// The engines' record sort as the drivers use it, on the CPU engine: records of every kind of layout
// sorted stably, as pairs in place (core/record_pair.hpp) or by tags (sort/record_tag_sorter.hpp)
// into output buffers used in turn, and the input positions (--index-output) from the sort's input
// or appended to each record by a spill pass. The reference is std::stable_sort by compare_ranks
// (core/record_rank.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "core/record_pair.hpp"
#include "core/record_rank.hpp"
#include "sort/cpu_engine.hpp"

namespace rmgsort {
namespace {

// `count` records of `layout`: keys from few distinct random values (ties everywhere), the rest of
// each record its index, so that stability and the gather show.
std::vector<std::byte> make_records(const RecordLayout& layout, std::uint64_t count, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::uint64_t> values(5);
  for (auto& v : values) v = random();
  values[0] = 0x7ff8000000000000ull;  // a NaN for f64 keys (for f32: the low half, a number)
  std::vector<std::byte> records(count * layout.record_size);
  for (std::uint64_t i = 0; i < count; ++i) {
    std::byte* record = records.data() + i * layout.record_size;
    for (std::size_t b = 0; b < layout.record_size; ++b) record[b] = std::byte((i >> (8 * (b % 8))) & 0xff);
    const std::uint64_t value = values[random() % values.size()];
    for (std::size_t b = 0; b < layout.key_size; ++b) record[layout.key_offset + b] = std::byte((value >> (8 * (b % 8))) & 0xff);
  }
  return records;
}

// The stable order of the records' positions.
std::vector<std::uint64_t> reference_order(const std::vector<std::byte>& records, const RecordLayout& layout,
                                           SortOrder order) {
  std::vector<std::uint64_t> positions(records.size() / layout.record_size);
  std::iota(positions.begin(), positions.end(), 0);
  visit_rank(layout, order, [&](auto rank) {
    std::stable_sort(positions.begin(), positions.end(), [&](std::uint64_t a, std::uint64_t b) {
      return compare_ranks(rank, records.data() + a * layout.record_size, records.data() + b * layout.record_size) < 0;
    });
  });
  return positions;
}

std::vector<std::byte> gathered(const std::vector<std::byte>& records, std::size_t size,
                                const std::vector<std::uint64_t>& positions) {
  std::vector<std::byte> out(positions.size() * size);
  for (std::size_t j = 0; j < positions.size(); ++j)
    std::memcpy(out.data() + j * size, records.data() + positions[j] * size, size);
  return out;
}

struct Case {
  const char* name;
  RecordLayout layout;
};

const Case kCases[] = {
    {"u64 key, u64 payload", RecordLayout::of({KeyType::u64, 8}, 16, 0)},
    {"u64 at offset 3 of 13 bytes", RecordLayout::of({KeyType::u64, 8}, 13, 3)},
    {"f64 last in 12 bytes", RecordLayout::of({KeyType::f64, 8}, 12, 4)},
    {"i32 at offset 1 of 5 bytes", RecordLayout::of({KeyType::i32, 4}, 5, 1)},
    {"bytes:10 of 100 bytes", RecordLayout::of({KeyType::bytes, 10}, 100, 0)},
    {"bytes:3 in the middle of 12 bytes", RecordLayout::of({KeyType::bytes, 3}, 12, 4)},
    {"bare u32", RecordLayout::bare_key(KeyType::u32)},
};

TEST(RecordEngineTest, SortsEveryLayoutStablyIntoOutputsUsedInTurn) {
  for (const Case& c : kCases) {
    for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
      SCOPED_TRACE(std::string(c.name) + (order == SortOrder::ascending ? " ascending" : " descending"));
      CpuEngine engine(c.layout, c.layout.is_bare_key() ? PositionSource::sort_input : PositionSource::none);
      engine.allocate(3000);
      std::vector<std::span<const std::byte>> outputs;
      for (std::uint64_t count : {0u, 1u, 7u, 3000u, 2999u}) {
        std::vector<std::byte> records = make_records(c.layout, count, count);
        const std::vector<std::byte> input = records;
        const SortedRound sorted = engine.sort(records.data(), count, order);
        const std::vector<std::uint64_t> expected = reference_order(input, c.layout, order);
        ASSERT_EQ(sorted.records.size(), count * c.layout.record_size);
        ASSERT_TRUE(std::equal(sorted.records.begin(), sorted.records.end(),
                               gathered(input, c.layout.record_size, expected).begin()))
            << count << " records";
        if (c.layout.is_bare_key()) {
          ASSERT_EQ(std::vector<std::uint64_t>(sorted.positions.begin(), sorted.positions.end()), expected);
        } else {
          EXPECT_TRUE(sorted.positions.empty());
        }
        if (sorted_as_pairs(c.layout, c.layout.is_bare_key())) {  // sorted as pairs: in place, no output buffer
          EXPECT_EQ(engine.output_bytes(count), 0u);
          if (count > 0) {
            EXPECT_EQ(sorted.records.data(), records.data());
          }
        } else if (count > 0) {
          outputs.push_back(sorted.records);
        }
      }
      // Each sort's records stay where they are until the next sort: two buffers, in turn.
      for (std::size_t i = 1; i < outputs.size(); ++i) EXPECT_NE(outputs[i].data(), outputs[i - 1].data());
    }
  }
}

TEST(RecordEngineTest, PositionsAppendedByASpillPassLeaveWithoutTheRecords) {
  const RecordLayout user = RecordLayout::of({KeyType::bytes, 10}, 100, 0);
  const RecordLayout wide = user.with_position();
  const std::uint64_t count = 1000;
  const std::vector<std::byte> input = make_records(user, count, 7);
  // The spill pass's records: each with its position in the whole input (here 5000 + i) appended.
  std::vector<std::byte> records(count * wide.record_size);
  for (std::uint64_t i = 0; i < count; ++i) {
    std::memcpy(records.data() + i * wide.record_size, input.data() + i * user.record_size, user.record_size);
    const std::uint64_t position = 5000 + i;
    std::memcpy(records.data() + i * wide.record_size + user.record_size, &position, 8);
  }
  CpuEngine engine(wide, PositionSource::appended);
  engine.allocate(count);
  const SortedRound sorted = engine.sort(records.data(), count, SortOrder::descending);
  const std::vector<std::uint64_t> expected = reference_order(input, user, SortOrder::descending);
  const std::vector<std::byte> expected_records = gathered(input, user.record_size, expected);
  ASSERT_EQ(sorted.records.size(), expected_records.size());
  EXPECT_TRUE(std::equal(sorted.records.begin(), sorted.records.end(), expected_records.begin()));
  ASSERT_EQ(sorted.positions.size(), count);
  for (std::uint64_t j = 0; j < count; ++j) ASSERT_EQ(sorted.positions[j], 5000 + expected[j]) << j;
}

TEST(RecordEngineTest, BareKeysWithoutPositionsStillSortInPlace) {
  CpuEngine engine(RecordLayout::bare_key(KeyType::f32));
  std::vector<float> keys{3.0f, -0.0f, 0.0f, -1.0f};
  engine.allocate(keys.size());
  const SortedRound sorted = engine.sort(reinterpret_cast<std::byte*>(keys.data()), keys.size(), SortOrder::ascending);
  EXPECT_EQ(sorted.records.data(), reinterpret_cast<std::byte*>(keys.data()));
  EXPECT_EQ(engine.output_bytes(4), 0u);
  EXPECT_EQ(keys[0], -1.0f);
  EXPECT_TRUE(std::signbit(keys[1]));
  EXPECT_FALSE(std::signbit(keys[2]));
}

}  // namespace
}  // namespace rmgsort
