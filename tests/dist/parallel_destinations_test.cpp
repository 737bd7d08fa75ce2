// classify_records (blocks classified in parallel, each started at the counts before it) gives every
// record the rank Destinations::next gives it record by record: heavy boundary keys that span many
// blocks and several ranks, across calls that continue one another.
#include "dist/parallel_destinations.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "dist/boundary_search.hpp"
#include "dist/classified_slice.hpp"
#include "dist/slice_reader.hpp"
#include "tests/host/record_test_layouts.hpp"

namespace rmgsort::dist {
namespace {

std::vector<Boundary> boundaries_of(const std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order,
                                    int ranks) {
  const std::uint64_t n = records.size() / layout.record_size;
  BoundarySearch search(n, ranks, layout, order);
  while (!search.done()) {
    std::vector<std::uint64_t> counts(search.counters());
    search.count(records.data(), n, counts);
    search.advance(counts);
  }
  return search.boundaries();
}

// Each record's destination as CLASSIFIER's next() gives it, one record after the other.
std::vector<std::uint32_t> each_destination(Destinations& classifier, const std::vector<std::byte>& records,
                                            const RecordLayout& layout, SortOrder order) {
  const std::uint64_t n = records.size() / layout.record_size;
  std::vector<std::uint32_t> destinations(n);
  visit_rank(layout, order, [&](const auto& rank) {
    for (std::uint64_t i = 0; i < n; ++i)
      destinations[i] =
          std::uint32_t(classifier.next(rank_key(rank, records.data() + i * layout.record_size, key_shape(layout))));
  });
  return destinations;
}

// The splitters of RANKS ranks over RECORDS, and each record's destination as a classifier's next()
// gives it one record after the other: what the parallel classification must reproduce.
struct Reference {
  Reference(const std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order, int ranks)
      : boundaries(boundaries_of(records, layout, order, ranks)),
        zero(boundary_keys(boundaries).size()),
        one_by_one(boundaries, zero, key_words(layout)),
        expected(each_destination(one_by_one, records, layout, order)) {}
  std::vector<Boundary> boundaries;
  std::vector<std::uint64_t> zero;  // equal_earlier: no record of a boundary key precedes these
  Destinations one_by_one;
  std::vector<std::uint32_t> expected;
};

void expect_same_as_sequential(const std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order,
                               int ranks) {
  const std::uint64_t n = records.size() / layout.record_size;
  const Reference reference(records, layout, order, ranks);
  // In three calls of uneven length, as the exchange's windows continue one another.
  Destinations parallel(reference.boundaries, reference.zero, key_words(layout));
  std::vector<std::uint32_t> got(n);
  const std::uint64_t cuts[] = {0, n / 3, n / 3 + 1, n};
  for (int c = 0; c < 3; ++c)
    classify_records(parallel, records.data() + cuts[c] * layout.record_size, cuts[c + 1] - cuts[c], layout, order,
                     got.data() + cuts[c]);
  EXPECT_EQ(got, reference.expected);
  EXPECT_EQ(parallel.seen(), reference.one_by_one.seen());
}

template <class T>
class ParallelDestinationsTest : public ::testing::Test {};
using NumberTypes = ::testing::Types<std::uint32_t, std::uint64_t, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(ParallelDestinationsTest, NumberTypes);

// 300 000 keys (5 blocks) of 4 values: every boundary's key spans several blocks.
TYPED_TEST(ParallelDestinationsTest, HeavyKeysAcrossBlocksMatchOneByOne) {
  std::mt19937_64 random(9);
  std::vector<TypeParam> keys(300000);
  for (TypeParam& key : keys) key = TypeParam(random() % 4);
  std::vector<std::byte> records(keys.size() * sizeof(TypeParam));
  std::memcpy(records.data(), keys.data(), records.size());
  const RecordLayout layout = RecordLayout::bare_key(KeyTypeOf<TypeParam>::value);
  for (SortOrder order : {SortOrder::ascending, SortOrder::descending})
    for (int ranks : {2, 5, 16}) expect_same_as_sequential(records, layout, order, ranks);
}

TEST(ParallelDestinationsTest, RecordLayoutsMatchOneByOne) {
  for (const RecordLayout& layout : testing::record_test_layouts()) {
    SCOPED_TRACE(testing::layout_name(layout));
    const std::vector<std::byte> records = testing::random_records(layout, 70000, 3);
    expect_same_as_sequential(records, layout, SortOrder::ascending, 3);
  }
}

TEST(ParallelDestinationsTest, NoRecords) {
  const RecordLayout layout = RecordLayout::bare_key(KeyType::u64);
  Destinations classifier(std::vector<Boundary>{Boundary{0}}, {0}, 1);
  classify_records(classifier, nullptr, 0, layout, SortOrder::ascending, static_cast<std::uint32_t*>(nullptr));
  EXPECT_EQ(classifier.seen(), std::vector<std::uint64_t>{0});
}

// A ClassifiedSlice, kept (in memory) or read window by window and classified again on every pass,
// gives each record the rank next() gives it and each block its counts, pass after pass.
void expect_classified_slice(const std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order,
                             int ranks) {
  const std::uint64_t n = records.size() / layout.record_size;
  const Reference reference(records, layout, order, ranks);
  SliceReader memory(records.data(), n, layout.record_size);
  SliceReader windows([&](std::uint64_t first, std::uint64_t count, std::byte* dst) {
    std::memcpy(dst, records.data() + first * layout.record_size, count * layout.record_size);
  }, n, layout.record_size);
  for (SliceReader* reader : {&memory, &windows}) {
    ClassifiedSlice slice(Destinations(reference.boundaries, reference.zero, key_words(layout)), *reader, layout, order,
                          ranks);
    EXPECT_EQ(slice.kept(), reader == &memory || n == 0);
    for (int pass = 0; pass < 2; ++pass) {
      slice.rewind();
      std::vector<std::uint32_t> got;
      while (slice.next()) {
        const ClassifiedWindow& window = slice.window();
        EXPECT_EQ(window.first, got.size());
        visit_destination_width(slice.width(), [&]<class D>(D) {
          const D* destinations = window.destinations_as<D>();
          for (std::size_t b = 0; b < window.blocks(); ++b) {
            std::vector<std::uint32_t> counts(std::size_t(ranks), 0);
            const std::uint64_t end = std::min(window.count, (b + 1) * kClassifyBlockRecords);
            for (std::uint64_t i = b * kClassifyBlockRecords; i < end; ++i) ++counts[destinations[i]];
            EXPECT_EQ(counts, std::vector<std::uint32_t>(window.block_counts + b * std::size_t(ranks),
                                                         window.block_counts + (b + 1) * std::size_t(ranks)));
          }
          got.insert(got.end(), destinations, destinations + window.count);
        });
      }
      EXPECT_EQ(got, reference.expected) << (reader == &memory ? "kept" : "windows") << ", pass " << pass;
    }
  }
}

// 2.5 M u32 keys of 6 values (several windows of the reader, many blocks): destinations of one
// byte; 300 ranks: of two.
TEST(ClassifiedSliceTest, KeptAndReadByWindowsMatchOneByOne) {
  std::mt19937_64 random(23);
  std::vector<std::uint32_t> keys(2500000);
  for (std::uint32_t& key : keys) key = std::uint32_t(random() % 6);
  std::vector<std::byte> records(keys.size() * 4);
  std::memcpy(records.data(), keys.data(), records.size());
  const RecordLayout layout = RecordLayout::bare_key(KeyType::u32);
  expect_classified_slice(records, layout, SortOrder::ascending, 3);
  expect_classified_slice(records, layout, SortOrder::descending, 300);
  expect_classified_slice(records, layout, SortOrder::ascending, 1);
}

TEST(ClassifiedSliceTest, RecordLayouts) {
  for (const RecordLayout& layout : testing::record_test_layouts()) {
    SCOPED_TRACE(testing::layout_name(layout));
    expect_classified_slice(testing::random_records(layout, 70000, 5), layout, SortOrder::descending, 4);
    expect_classified_slice(testing::random_records(layout, 7, 5), layout, SortOrder::ascending, 16);
    expect_classified_slice({}, layout, SortOrder::ascending, 2);
  }
}

}  // namespace
}  // namespace rmgsort::dist
