#include "host/tag_sort.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>
#include <string>
#include <vector>

#include "host/record_tags_config.hpp"

namespace rmgsort {
namespace {

using record_tags_config::kInsertionSortTags;
using record_tags_config::kL1Tags;
using record_tags_config::kRankSortTags;
using record_tags_config::kSequentialTags;

// Tags as build_record_tags writes them: prefix(i) << index_bits | i.
template <class Prefix>
std::vector<std::uint64_t> tags_of(std::size_t count, int index_bits, Prefix prefix) {
  std::vector<std::uint64_t> tags(count);
  const int prefix_bits = 64 - index_bits;
  const std::uint64_t mask = prefix_bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << prefix_bits) - 1;
  for (std::size_t i = 0; i < count; ++i) tags[i] = (prefix(i) & mask) << index_bits | i;
  return tags;
}

void expect_sorted_like_std_sort(std::vector<std::uint64_t> tags, int index_bits, const std::string& what) {
  std::vector<std::uint64_t> want = tags, scratch(tags.size());
  std::sort(want.begin(), want.end());
  sort_tags(tags.data(), tags.size(), index_bits, scratch.data());
  ASSERT_EQ(tags, want) << what;
}

int index_bits_of(std::size_t count) { return count <= 1 ? 0 : int(std::bit_width(count - 1)); }

TEST(TagSort, PrefixesOfEveryWidthAtSizesAroundTheThresholds) {
  const std::size_t sizes[] = {0,
                               1,
                               2,
                               kRankSortTags,
                               kRankSortTags + 1,
                               kInsertionSortTags - 1,
                               kInsertionSortTags,
                               kInsertionSortTags + 1,
                               1000,
                               kL1Tags,
                               kL1Tags + 1,
                               kSequentialTags - 1,
                               kSequentialTags,
                               kSequentialTags + 1,
                               300'001,
                               (std::size_t{1} << 20) + 3};
  std::mt19937_64 random(1);
  for (std::size_t count : sizes) {
    const int index_bits = index_bits_of(count);
    // Prefix widths: all equal, 1 bit, a few (zipf-like), within the LSD span, beyond it, all 64.
    for (int bits : {0, 1, 3, 8, 20, 24, 25, 40, 64}) {
      const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
      const auto tags = tags_of(count, index_bits, [&](std::size_t) { return random() & mask; });
      expect_sorted_like_std_sort(tags, index_bits,
                                  "count " + std::to_string(count) + " prefix bits " + std::to_string(bits));
      if (HasFatalFailure()) return;
    }
    // Prefixes that differ only in their top bit and their lowest bit.
    const auto ends = tags_of(count, index_bits, [&](std::size_t) { return random() & 1 ? ~std::uint64_t{0} : 0x5; });
    expect_sorted_like_std_sort(ends, index_bits, "count " + std::to_string(count) + " top and bottom bits");
    // Already sorted and reversed prefixes.
    expect_sorted_like_std_sort(tags_of(count, index_bits, [](std::size_t i) { return i * 977; }), index_bits,
                                "sorted");
    expect_sorted_like_std_sort(tags_of(count, index_bits, [&](std::size_t i) { return (count - i) << 30; }),
                                index_bits, "reversed");
    if (HasFatalFailure()) return;
  }
}

TEST(TagSort, NoIndexBitsSortsWholeKeysWithDuplicates) {
  std::mt19937_64 random(2);
  for (std::size_t count : {std::size_t{100}, std::size_t{200'000}}) {
    std::vector<std::uint64_t> keys(count);
    for (auto& key : keys) key = random() % 3 == 0 ? 42 : random();
    expect_sorted_like_std_sort(keys, 0, "whole keys, count " + std::to_string(count));
  }
}

TEST(TagSort, PrefixesOfEveryMagnitude) {
  std::mt19937_64 random(4);
  for (std::size_t count : {kSequentialTags + 1, (std::size_t{1} << 20) + 3}) {
    const int index_bits = index_bits_of(count);
    const auto tags = tags_of(count, index_bits, [&](std::size_t) {
      const int width = int(random() % std::uint64_t(65 - index_bits));
      return width == 0 ? 0 : (std::uint64_t{1} << (width - 1)) | (random() & ((std::uint64_t{1} << (width - 1)) - 1));
    });
    expect_sorted_like_std_sort(tags, index_bits, "prefixes of every magnitude, count " + std::to_string(count));
  }
}

TEST(TagSort, FortyIndexBits) {
  std::mt19937_64 random(3);
  std::vector<std::uint64_t> tags(5000);
  for (std::size_t i = 0; i < tags.size(); ++i) tags[i] = (random() % 7) << 40 | (i * 1000);
  expect_sorted_like_std_sort(tags, 40, "40 index bits");
}

}  // namespace
}  // namespace rmgsort
