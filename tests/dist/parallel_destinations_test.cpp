// classify_records (blocks classified in parallel, each started at the counts before it) gives every
// record the rank Destinations::next gives it record by record: heavy boundary keys that span many
// blocks and several ranks, across calls that continue one another.
#include "dist/parallel_destinations.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "dist/boundary_search.hpp"
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

void expect_same_as_sequential(const std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order,
                               int ranks) {
  const std::uint64_t n = records.size() / layout.record_size;
  const std::vector<Boundary> boundaries = boundaries_of(records, layout, order, ranks);
  const std::vector<std::uint64_t> zero(boundary_keys(boundaries).size());
  Destinations one_by_one(boundaries, zero, key_words(layout));
  std::vector<std::uint32_t> expected(n);
  visit_rank(layout, order, [&](const auto& rank) {
    for (std::uint64_t i = 0; i < n; ++i)
      expected[i] = std::uint32_t(one_by_one.next(rank_key(rank, records.data() + i * layout.record_size, key_shape(layout))));
  });
  // In three calls of uneven length, as the exchange's windows continue one another.
  Destinations parallel(boundaries, zero, key_words(layout));
  std::vector<std::uint32_t> got(n);
  const std::uint64_t cuts[] = {0, n / 3, n / 3 + 1, n};
  for (int c = 0; c < 3; ++c)
    classify_records(parallel, records.data() + cuts[c] * layout.record_size, cuts[c + 1] - cuts[c], layout, order,
                     got.data() + cuts[c]);
  EXPECT_EQ(got, expected);
  EXPECT_EQ(parallel.seen(), one_by_one.seen());
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
  classify_records(classifier, nullptr, 0, layout, SortOrder::ascending, nullptr);
  EXPECT_EQ(classifier.seen(), std::vector<std::uint64_t>{0});
}

}  // namespace
}  // namespace rmgsort::dist
