// SpillClassifier: a chunk's records grouped by round, each round's records in input order (stable),
// their input positions appended when asked, the rounds' ends and the extents of the classifying
// rank word as a plain loop finds them, for every key type and bytes:N, every layout, both orders,
// the first and later rank words, chunks of several blocks, of a few records and of none, empty
// rounds and heavy keys.
#include "host/spill_classifier.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/record_rank.hpp"
#include "spill_test_records.hpp"

namespace rmgsort {
namespace {

template <class Key>
class SpillClassifierTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpillClassifierTest, test::AllKeySpecs);

// Rank word WORD of every record of RECORDS.
std::vector<std::uint64_t> words_of(const std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order,
                                    int word) {
  std::vector<std::uint64_t> words;
  visit_rank(layout, order, [&](const auto& rank) {
    for (std::size_t at = 0; at < records.size(); at += layout.record_size)
      words.push_back(rank.word(records.data() + at, word));
  });
  return words;
}

// Classifies RECORDS into about ROUNDS rounds of rank word WORD (splitters from every 7th record),
// and checks the grouping, ends and extents against a plain loop. FIRST: the chunk's first position.
void expect_classified(const std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order, int word,
                       std::size_t rounds, bool append_position, std::uint64_t first = 1000) {
  const std::size_t in = layout.record_size, out = in + (append_position ? 8 : 0);
  const std::vector<std::uint64_t> words = words_of(records, layout, order, word);
  std::vector<std::uint64_t> sample;
  for (std::size_t i = 0; i < words.size(); i += 7) sample.push_back(words[i]);
  const auto splitters = Splitters<std::uint64_t>::from_sample(sample, rounds, 0, 0);
  // What a plain loop finds: each round's records in input order, positions after them.
  std::vector<std::vector<std::byte>> expected(splitters.rounds());
  std::vector<RoundExtent> expected_extents(splitters.rounds());
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::size_t r = splitters.round_of(words[i]);
    expected[r].insert(expected[r].end(), records.begin() + std::ptrdiff_t(i * in),
                       records.begin() + std::ptrdiff_t((i + 1) * in));
    if (append_position) {
      const std::uint64_t position = first + i;
      const auto* bytes = reinterpret_cast<const std::byte*>(&position);
      expected[r].insert(expected[r].end(), bytes, bytes + 8);
    }
    expected_extents[r].add({1, words[i], words[i]});
  }

  const SpillClassifier classifier(layout, order, word, splitters, append_position);
  ASSERT_EQ(classifier.record_bytes_out(), out);
  std::vector<RoundExtent> extents(splitters.rounds());
  std::vector<std::byte> grouped(records.size() / in * out);
  const std::vector<std::uint64_t> ends = classifier.classify(records, grouped.data(), extents, first);
  ASSERT_EQ(ends.size(), splitters.rounds());
  std::uint64_t begin = 0;
  for (std::size_t r = 0; r < splitters.rounds(); ++r) {
    SCOPED_TRACE("round " + std::to_string(r));
    ASSERT_EQ(ends[r] - begin, expected[r].size());
    EXPECT_TRUE(std::equal(expected[r].begin(), expected[r].end(), grouped.begin() + std::ptrdiff_t(begin)));
    EXPECT_EQ(extents[r].records, expected_extents[r].records);
    EXPECT_EQ(extents[r].lowest, expected_extents[r].lowest);
    EXPECT_EQ(extents[r].highest, expected_extents[r].highest);
    begin = ends[r];
  }
}

// The rank words worth classifying by: the first, and for bytes keys of several words the second
// and the last.
std::vector<int> words_to_test(const RecordLayout& layout) {
  const int words = visit_rank(layout, SortOrder::ascending, [](const auto& rank) { return rank.words(); });
  std::vector<int> tested{0};
  if (words > 1) tested.push_back(1);
  if (words > 2) tested.push_back(words - 1);
  return tested;
}

TYPED_TEST(SpillClassifierTest, GroupsByRoundInInputOrder) {
  for (const RecordLayout& layout : test::layouts_of(TypeParam::spec())) {
    SCOPED_TRACE(test::describe(layout));
    // Several blocks of records and a partial one (blocks of 2^16 records, or 512 KiB of wide ones),
    // only for the bare key and the widest records; fewer records than a block; 7, 1, none.
    std::vector<std::size_t> counts{3000, 7, 1, 0};
    const std::size_t block = std::min<std::size_t>(65536, (512 << 10) / layout.record_size);
    if (layout.record_size == layout.key_size || layout.record_size == 100) counts.push_back(3 * block + 123);
    for (const std::size_t n : counts) {
      for (const test::Keys keys : {test::Keys::spread, test::Keys::heavy, test::Keys::shared_prefix}) {
        SCOPED_TRACE(std::to_string(n) + " records, keys " + std::to_string(int(keys)));
        const std::vector<std::byte> records = test::make_records(layout, n, keys, n + 1);
        for (const int word : words_to_test(layout)) {
          SCOPED_TRACE("word " + std::to_string(word));
          expect_classified(records, layout, SortOrder::ascending, word, 9, false);
          expect_classified(records, layout, SortOrder::descending, word, 64, true);
        }
      }
    }
  }
}

TYPED_TEST(SpillClassifierTest, ExtentsAddUpOverChunks) {
  const RecordLayout layout = test::layouts_of(TypeParam::spec()).back();  // the widest, key last
  SCOPED_TRACE(test::describe(layout));
  // Four rounds evenly over [0, the highest word]: the extents of two chunks classified one after
  // the other are those of all records.
  const std::vector<std::byte> records = test::make_records(layout, 5000, test::Keys::spread);
  const std::vector<std::uint64_t> words = words_of(records, layout, SortOrder::ascending, 0);
  const std::uint64_t highest = *std::max_element(words.begin(), words.end());
  const auto splitters = Splitters<std::uint64_t>::evenly(4, 0, highest);
  ASSERT_GE(splitters.rounds(), 2u);
  const SpillClassifier classifier(layout, SortOrder::ascending, 0, splitters);
  std::vector<RoundExtent> extents(splitters.rounds());
  std::vector<std::byte> grouped(records.size());
  const std::span<const std::byte> bytes(records);
  const std::size_t first = 1200 * layout.record_size;
  (void)classifier.classify(bytes.first(first), grouped.data(), extents);
  (void)classifier.classify(bytes.subspan(first), grouped.data(), extents);
  std::vector<RoundExtent> expected(splitters.rounds());
  for (const std::uint64_t word : words) expected[splitters.round_of(word)].add({1, word, word});
  std::uint64_t total = 0;
  for (std::size_t r = 0; r < splitters.rounds(); ++r) {
    EXPECT_EQ(extents[r].records, expected[r].records);
    EXPECT_EQ(extents[r].lowest, expected[r].lowest);
    EXPECT_EQ(extents[r].highest, expected[r].highest);
    total += extents[r].records;
  }
  EXPECT_EQ(total, words.size());
}

TYPED_TEST(SpillClassifierTest, EqualKeysStayInInputOrder) {
  // One key in every record: one round holds them all, in input order, across blocks.
  for (const RecordLayout& layout : test::layouts_of(TypeParam::spec())) {
    SCOPED_TRACE(test::describe(layout));
    const std::size_t count = std::min<std::size_t>(65536, (512 << 10) / layout.record_size) * 2 + 5;
    const std::vector<std::byte> records = test::make_records(layout, count, test::Keys::equal);
    expect_classified(records, layout, SortOrder::descending, 0, 8, true, 0);
  }
}

}  // namespace
}  // namespace rmgsort
