// The in-place radix pass alone (host/radix_block_partition.hpp): every key lands in its bucket's
// range and none is lost, at sizes around its block (whole blocks, a partial last block that goes
// through the overflow block, fewer keys than one block) and with any number of stripes.
#include "host/radix_block_partition.hpp"

#include <gtest/gtest.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "host/radix_digits.hpp"

namespace rmgsort::radix_sort_detail {
namespace {

template <class Bits>
class BlockPartitionTest : public ::testing::Test {};
using BitsTypes = ::testing::Types<std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(BlockPartitionTest, BitsTypes);

struct Identity {
  template <class Bits>
  Bits operator()(const Bits* p) const {
    return *p;
  }
};

// Keys whose digit at `shift` follows `shape`; their other bits random.
template <class Bits>
std::vector<Bits> keys_shaped(const std::string& shape, std::size_t n, int shift, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<Bits> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    Bits digit = 0;
    if (shape == "uniform") digit = Bits(random() % kBuckets);
    if (shape == "two") digit = Bits(random() % 2 == 0 ? 3 : 200);
    if (shape == "one-mostly") digit = Bits(random() % 16 == 0 ? random() % kBuckets : 77);
    if (shape == "ascending") digit = Bits(i * kBuckets / n);
    if (shape == "descending") digit = Bits((n - 1 - i) * kBuckets / n);
    if (shape == "last-bucket") digit = Bits(kBuckets - 1);
    keys[i] = Bits(random() & ((Bits(1) << shift) - 1)) | Bits(digit << shift);
  }
  return keys;
}

// Partitions INPUT by DIGIT (a RadixDigit by default: 8 bits at `shift`) and checks every key.
template <class Bits, class Digit = RadixDigit>
void expect_partitioned(const std::vector<Bits>& input, int shift, std::size_t stripes, const std::string& what,
                        Digit digit = RadixDigit{0, 0}) {
  if constexpr (std::is_same_v<Digit, RadixDigit>) digit = RadixDigit{shift, kBuckets - 1};
  std::vector<Bits> keys = input;
  StripeBufferPool<Bits> pool;
  const PassOutcome<Bits> outcome = block_partition(keys.data(), keys.size(), digit, stripes, Identity{}, pool);
  ASSERT_EQ(outcome.bucket_begin[0], 0u) << what;
  ASSERT_EQ(outcome.bucket_begin[kBuckets], keys.size()) << what;
  for (std::size_t d = 0; d < kBuckets; ++d) {
    for (std::size_t i = outcome.bucket_begin[d]; i < outcome.bucket_begin[d + 1]; ++i)
      ASSERT_EQ(digit(keys[i]), d) << what << ": key " << i;
  }
  Bits any = 0, all = Bits(~Bits(0));
  for (Bits key : input) {
    any |= key;
    all &= key;
  }
  EXPECT_EQ(outcome.differing, Bits(any ^ all)) << what;
  std::vector<Bits> sorted_input = input;
  std::sort(sorted_input.begin(), sorted_input.end());
  std::sort(keys.begin(), keys.end());
  ASSERT_EQ(keys, sorted_input) << what << ": not a permutation of the input";
}

TYPED_TEST(BlockPartitionTest, EveryKeyInItsBucketAtSizesAroundTheBlock) {
  using Bits = TypeParam;
  constexpr std::size_t B = StripeBuffers<Bits>::kBlockKeys;
  const int shift = int(8 * sizeof(Bits)) - 8;
  const std::size_t sizes[] = {1,         7,         B - 1,           B,           B + 1,      2 * B - 1, 2 * B,
                               2 * B + 1, 5 * B + 3, kBuckets * B - 1, kBuckets * B, kBuckets * B + 1,
                               1000 * B + 17};
  std::uint64_t seed = 1;
  for (const std::string shape : {"uniform", "two", "one-mostly", "ascending", "descending", "last-bucket"}) {
    for (std::size_t n : sizes) {
      for (std::size_t stripes : {1, 2, 3, 7}) {
        expect_partitioned(keys_shaped<Bits>(shape, n, shift, seed++), shift, stripes,
                           shape + " n=" + std::to_string(n) + " stripes=" + std::to_string(stripes));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TYPED_TEST(BlockPartitionTest, AllKeysEqualAndALowDigit) {
  using Bits = TypeParam;
  constexpr std::size_t B = StripeBuffers<Bits>::kBlockKeys;
  for (std::size_t n : {std::size_t{7}, 3 * B, 300 * B + 1}) {
    expect_partitioned(std::vector<Bits>(n, Bits(0x1234)), 0, 3, "all equal n=" + std::to_string(n));
    expect_partitioned(keys_shaped<Bits>("uniform", n, 0, n), 0, 3, "digit at bit 0, n=" + std::to_string(n));
  }
}

// A logarithmic digit (keys of every magnitude, as Zipf's law makes them): every key in the bucket
// of its magnitude and leading bits, buckets in key order.
TYPED_TEST(BlockPartitionTest, EveryKeyInItsLogarithmicBucket) {
  using Bits = TypeParam;
  constexpr std::size_t B = StripeBuffers<Bits>::kBlockKeys;
  constexpr int kBits = int(8 * sizeof(Bits));
  std::mt19937_64 random(11);
  for (const int bit_end : {kBits, kBits - 5, 9}) {
    const LogDigit digit(bit_end, 8);
    ASSERT_LE(digit.buckets(), kBuckets);
    for (std::size_t n : {std::size_t{5}, 3 * B + 1, 700 * B + 9}) {
      std::vector<Bits> keys(n);
      for (Bits& key : keys) {  // a random width, then random bits below it; the bits above bit_end equal
        const int width = int(random() % std::uint64_t(bit_end + 1));
        const Bits below = width == 0 ? 0 : Bits(random() >> (64 - width));
        key = Bits(bit_end >= kBits ? below : Bits(Bits(0x5) << bit_end) | below);
      }
      expect_partitioned(keys, 0, 3, "log digit, bit_end=" + std::to_string(bit_end) + " n=" + std::to_string(n),
                         digit);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// More stripes than this machine has cores: the permutation's threads wait for each other only
// while one copies a block, so they finish however the scheduler interleaves them.
TYPED_TEST(BlockPartitionTest, EightThreadsOnAnyMachine) {
  using Bits = TypeParam;
  constexpr std::size_t B = StripeBuffers<Bits>::kBlockKeys;
  tbb::global_control more(tbb::global_control::max_allowed_parallelism, 8);  // (the cores less one, else)
  tbb::task_arena arena(8);
  arena.execute([&] {
    for (const std::string shape : {"uniform", "two", "one-mostly"}) {
      expect_partitioned(keys_shaped<Bits>(shape, 2000 * B + 5, 16, 3), 16, 8, shape + ", 8 stripes");
      if (::testing::Test::HasFatalFailure()) return;
    }
  });
}

}  // namespace
}  // namespace rmgsort::radix_sort_detail
