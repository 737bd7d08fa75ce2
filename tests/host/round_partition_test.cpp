#include "host/round_partition.hpp"

#include <gtest/gtest.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>

#include "host/checksum.hpp"
#include "generate/generate.hpp"
#include "tests/generate/generated_keys.hpp"
#include "host/top_digit_histogram.hpp"
#include "core/error.hpp"
#include "tests/core/key_types.hpp"

namespace rmgsort {
namespace {

using testing::AllKeyTypes;
using testing::bits_of;

template <class T>
class RoundPartitionTest : public ::testing::Test {};
TYPED_TEST_SUITE(RoundPartitionTest, AllKeyTypes);

template <class T>
using Bits = RadixBits<T>;

template <class T>
Bits<T> encoded(T key, SortOrder order) {
  return order == SortOrder::ascending ? KeyOrder<T, SortOrder::ascending>::encode(key)
                                       : KeyOrder<T, SortOrder::descending>::encode(key);
}

// The key whose ascending radix bits are `bits` (to build keys bit by bit for every type).
template <class T>
T from_bits(Bits<T> bits) {
  return KeyOrder<T, SortOrder::ascending>::decode(bits);
}

struct Partitioned {
  RoundPlan plan;
  RoundPartitionStats stats;
};

// Partitions `input` and checks everything the API promises: the cuts cover the keys, no round is
// empty or over capacity, every key of a round precedes-or-equals (encoded) every key of the next,
// the output is a permutation of the input's bit patterns; and the packing is greedy: two
// consecutive rounds always hold more than a round's capacity together (or they would be one).
template <class T>
void partition_and_check(const std::vector<T>& input, SortOrder order, std::uint64_t capacity, const std::string& what,
                         Partitioned& result, std::vector<T>* output = nullptr) {
  std::vector<T> out(input.size());
  result.plan = partition_into_rounds(input.data(), out.data(), input.size(), order, capacity, &result.stats);
  const RoundPlan& plan = result.plan;
  ASSERT_FALSE(plan.cuts.empty()) << what;
  ASSERT_EQ(plan.cuts.front(), 0u) << what;
  ASSERT_EQ(plan.cuts.back(), input.size()) << what;
  if (input.empty()) {
    ASSERT_EQ(plan.rounds(), 0u) << what;
  }
  Bits<T> previous_max = 0;
  for (std::size_t r = 0; r < plan.rounds(); ++r) {
    ASSERT_GT(plan.round_keys(r), 0u) << what << ": round " << r << " is empty";
    ASSERT_LE(plan.round_keys(r), capacity) << what << ": round " << r << " is over capacity";
    if (r + 1 < plan.rounds()) {
      ASSERT_GT(plan.round_keys(r) + plan.round_keys(r + 1), capacity)
          << what << ": rounds " << r << " and " << r + 1 << " would fit one";
    }
    Bits<T> low = std::numeric_limits<Bits<T>>::max(), high = 0;
    for (std::uint64_t i = plan.cuts[r]; i < plan.cuts[r + 1]; ++i) {
      low = std::min(low, encoded(out[i], order));
      high = std::max(high, encoded(out[i], order));
    }
    if (r > 0) {
      ASSERT_LE(previous_max, low) << what << ": round " << r << " holds a key below round " << r - 1 << "'s";
    }
    previous_max = high;
  }
  // The same multiset of bit patterns, by the order-independent checksum that --verify uses.
  const auto checksum = [](const std::vector<T>& keys) {
    return checksum_keys(reinterpret_cast<const std::byte*>(keys.data()), keys.size() * sizeof(T), sizeof(T));
  };
  ASSERT_TRUE(checksum(out) == checksum(input)) << what << ": output is not a permutation of the input";

  // Histogram while reading: the top-digit histogram counted beforehand, from byte ranges that split
  // keys, gives the same rounds and the same output.
  TopDigitHistogram histogram(KeyTypeOf<T>::value, order, input.size());
  const auto* bytes = reinterpret_cast<const std::byte*>(input.data());
  const std::uint64_t total = input.size() * sizeof(T), split = std::min(total, total / 3 + 1);
  histogram.add_bytes(split, bytes + split, total - split);
  histogram.add_bytes(0, bytes, split);
  histogram.finish();
  std::vector<T> given_out(input.size());
  RoundPartitionStats given_stats;
  const RoundPlan given_plan = partition_into_rounds(input.data(), given_out.data(), input.size(), order, capacity,
                                                     &given_stats, &histogram);
  EXPECT_EQ(given_plan.cuts, plan.cuts) << what << ": other rounds with a given histogram";
  EXPECT_TRUE(testing::same_bits(given_out, out)) << what << ": other output with a given histogram";
  EXPECT_EQ(given_stats.refinement_passes, result.stats.refinement_passes) << what;
  EXPECT_EQ(given_stats.top_digits_given, input.size() > capacity) << what;
  EXPECT_FALSE(result.stats.top_digits_given) << what;
  if (output) *output = std::move(out);
}

std::string describe(const std::string& what, std::size_t n, std::uint64_t capacity, SortOrder order) {
  return what + " n=" + std::to_string(n) + " capacity=" + std::to_string(capacity) +
         (order == SortOrder::ascending ? " ascending" : " descending");
}

constexpr SortOrder kBothOrders[] = {SortOrder::ascending, SortOrder::descending};

TYPED_TEST(RoundPartitionTest, EmptyInputHasNoRounds) {
  Partitioned result;
  partition_and_check<TypeParam>({}, SortOrder::ascending, 1, "empty", result);
  EXPECT_EQ(result.plan.cuts, std::vector<std::uint64_t>{0});
}

TYPED_TEST(RoundPartitionTest, OneKeyIsOneRound) {
  using T = TypeParam;
  for (std::uint64_t capacity : {1, 5}) {
    Partitioned result;
    std::vector<T> out;
    partition_and_check<T>({T(7)}, SortOrder::descending, capacity, "one key", result, &out);
    EXPECT_EQ(result.plan.cuts, (std::vector<std::uint64_t>{0, 1}));
    EXPECT_EQ(bits_of(out[0]), bits_of(T(7)));
  }
}

TYPED_TEST(RoundPartitionTest, CapacityOfAllKeysCopiesIntoOneRound) {
  using T = TypeParam;
  const auto input = testing::generated_keys<T>("uniform", 1000, 3);
  for (std::uint64_t capacity : {1000, 5000}) {
    Partitioned result;
    std::vector<T> out;
    partition_and_check(input, SortOrder::ascending, capacity, "one round", result, &out);
    EXPECT_EQ(result.plan.cuts, (std::vector<std::uint64_t>{0, 1000}));
    EXPECT_TRUE(testing::same_bits(out, input));
  }
}

TYPED_TEST(RoundPartitionTest, CapacityOneMakesARoundPerKey) {
  using T = TypeParam;
  auto input = testing::generated_keys<T>("uniform", 300, 4);
  for (std::size_t i = 0; i < 40; ++i) input[i * 7] = input[5];  // a repeated value, split one key a round
  for (SortOrder order : kBothOrders) {
    Partitioned result;
    partition_and_check(input, order, 1, describe("capacity 1", input.size(), 1, order), result);
    EXPECT_EQ(result.plan.rounds(), input.size());
  }
}

TYPED_TEST(RoundPartitionTest, AllKeysEqualSplitIntoCeilNOverCRounds) {
  using T = TypeParam;
  const std::size_t n = 100000;
  for (const T value : {T(0), from_bits<T>(Bits<T>(0x5a5a5a5a5a5a5a5aull))}) {
    const std::vector<T> input(n, value);
    for (std::uint64_t capacity : {7777, 50000, 99999}) {
      for (SortOrder order : kBothOrders) {
        Partitioned result;
        partition_and_check(input, order, capacity, describe("all equal", n, capacity, order), result);
        if (::testing::Test::HasFatalFailure()) return;
        EXPECT_EQ(result.plan.rounds(), (n + capacity - 1) / capacity);
        EXPECT_EQ(result.stats.refinement_passes, 0) << "the keys agree on every bit: no refinement";
      }
    }
  }
}

TYPED_TEST(RoundPartitionTest, OneValueFillingMostOfTheInputAmongOthers) {
  using T = TypeParam;
  auto input = testing::generated_keys<T>("uniform", 200000, 11);
  for (std::size_t i = 0; i < input.size(); i += 1 + i % 7) input[i] = input[0];
  for (std::uint64_t capacity : {1000, 30000, 150000}) {
    for (SortOrder order : kBothOrders) {
      Partitioned result;
      partition_and_check(input, order, capacity, describe("mostly one value", input.size(), capacity, order), result);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TYPED_TEST(RoundPartitionTest, EveryDistributionBothOrders) {
  using T = TypeParam;
  const char* distributions[] = {"uniform", "normal",  "zipf:1.0",      "zipf:2.0", "bits:0", "bits:10",
                                 "bits:20", "sorted", "reverse", "nearly-sorted", "zero",     "special"};
  const std::size_t n = 100000;
  std::uint64_t seed = 1;
  for (const char* distribution : distributions) {
    const auto input = testing::generated_keys<T>(distribution, n, seed++);
    for (std::uint64_t capacity : {n / 3, n / 17, n / 1000}) {
      for (SortOrder order : kBothOrders) {
        Partitioned result;
        partition_and_check(input, order, capacity, describe(distribution, n, capacity, order), result);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// Floats: -inf < negatives < -0.0 < +0.0 < positives < +inf < NaNs (both signs, any payload), in
// the encoded order; integers: their extremes. Small capacities put cuts among the special values.
TYPED_TEST(RoundPartitionTest, SpecialValuesAndExtremes) {
  using T = TypeParam;
  auto input = testing::generated_keys<T>("uniform", 30000, 9);
  std::vector<T> specials;
  if constexpr (std::is_floating_point_v<T>) {
    using Limits = std::numeric_limits<T>;
    specials = {Limits::quiet_NaN(), -Limits::quiet_NaN(), Limits::infinity(), -Limits::infinity(), T(0.0),
                T(-0.0), from_bits<T>(~Bits<T>(0)), Limits::denorm_min(), -Limits::denorm_min(), Limits::max(),
                Limits::lowest()};
    specials.push_back(__builtin_bit_cast(T, Bits<T>(bits_of(Limits::quiet_NaN()) | 1)));          // payload
    specials.push_back(__builtin_bit_cast(T, Bits<T>(bits_of(-Limits::quiet_NaN()) | 0x51)));       // negative payload
    specials.push_back(__builtin_bit_cast(T, Bits<T>(bits_of(Limits::infinity()) | 1)));            // signalling NaN
  } else {
    using Limits = std::numeric_limits<T>;
    specials = {Limits::min(), Limits::max(), T(0), T(1), T(Limits::min() + 1), T(Limits::max() - 1)};
  }
  std::mt19937_64 random(5);
  for (std::size_t i = 0; i < input.size(); i += 2) input[i] = specials[random() % specials.size()];
  for (std::uint64_t capacity : {1000, 2500, 20000}) {
    for (SortOrder order : kBothOrders) {
      Partitioned result;
      partition_and_check(input, order, capacity, describe("specials", input.size(), capacity, order), result);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// Keys concentrated on one value P, with neighbours that share P's top 48, 32 and 16 bits and
// differ below: the heavy top digit is refined on bits 32-47 (64-bit keys), then 16-31, then 0-15.
TYPED_TEST(RoundPartitionTest, HeavyDigitsRefinedOverSeveralLevels) {
  using T = TypeParam;
  constexpr int kBits = 8 * sizeof(T);
  const Bits<T> center = Bits<T>(0x9e3779b97f4a7c15ull);
  std::mt19937_64 random(17);
  std::vector<T> input;
  for (int i = 0; i < 60000; ++i) {
    Bits<T> bits = center;
    switch (i % 6) {
      case 0: bits = Bits<T>(random()); break;                                        // anywhere
      case 1: bits ^= Bits<T>(random()) & Bits<T>((Bits<T>(1) << (kBits - 16)) - 1); break;  // same top 16 bits
      case 2: if (kBits == 64) bits ^= Bits<T>(random() & 0xffffffffull); break;     // same top 32 bits
      case 3: bits ^= Bits<T>(random() & 0xffff); break;                              // same top bits but 16
      default: break;                                                                 // the value itself
    }
    input.push_back(from_bits<T>(bits));
  }
  for (std::uint64_t capacity : {500, 4000}) {
    for (SortOrder order : kBothOrders) {
      Partitioned result;
      partition_and_check(input, order, capacity, describe("deep refinement", input.size(), capacity, order), result);
      if (::testing::Test::HasFatalFailure()) return;
      EXPECT_GE(result.stats.refinement_passes, kBits == 64 ? 3 : 1);
    }
  }
}

// Sizes above partition_config::kMinChunkKeys: several chunks, whose ranges in every bucket meet
// inside cache lines written by two tasks.
TYPED_TEST(RoundPartitionTest, SeveralChunks) {
  using T = TypeParam;
  const std::size_t n = 2 * partition_config::kMinChunkKeys + 12345;
  // Uniform: every bucket from the top-digit histograms; zipf: refined, counted by a read pass.
  const std::pair<const char*, SortOrder> cases[] = {{"uniform", SortOrder::ascending},
                                                     {"zipf:1.0", SortOrder::descending}};
  for (const auto& [distribution, order] : cases) {
    Partitioned result;
    partition_and_check(testing::generated_keys<T>(distribution, n, 21), order, n / 9, describe(distribution, n, n / 9, order), result);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Five heavy top digits, each of keys that differ in all the bits below: one refinement pass counts
// all five tables, telling each key's table by its prefix.
TYPED_TEST(RoundPartitionTest, SeveralHeavyDigitsRefinedInOnePass) {
  using T = TypeParam;
  constexpr int kBits = 8 * sizeof(T);
  std::mt19937_64 random(29);
  std::vector<T> input;
  for (const std::uint64_t top : {0x0001u, 0x00ffu, 0x7fffu, 0x8000u, 0xfffeu}) {
    for (int i = 0; i < 20000; ++i) {
      const Bits<T> low = Bits<T>(random()) & Bits<T>((Bits<T>(1) << (kBits - 16)) - 1);
      input.push_back(from_bits<T>(Bits<T>(Bits<T>(top) << (kBits - 16)) | low));
    }
  }
  std::shuffle(input.begin(), input.end(), random);
  for (SortOrder order : kBothOrders) {
    Partitioned result;
    partition_and_check(input, order, 5000, describe("five heavy digits", input.size(), 5000, order), result);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_EQ(result.stats.refinement_passes, 1);
  }
}

TYPED_TEST(RoundPartitionTest, RandomSizesAndCapacities) {
  using T = TypeParam;
  const char* distributions[] = {"uniform", "zipf:1.0", "bits:12", "normal", "sorted"};
  std::mt19937_64 random(23);
  for (int round = 0; round < 12; ++round) {
    const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 200000)(random);
    // Capacities from n / 1000 to 2n, log-uniform.
    const double low = std::log(std::max<double>(1, double(n) / 1000)), high = std::log(2.0 * double(n) + 2);
    const auto capacity = std::uint64_t(std::exp(std::uniform_real_distribution<double>(low, high)(random)));
    const char* distribution = distributions[random() % std::size(distributions)];
    const SortOrder order = random() % 2 ? SortOrder::ascending : SortOrder::descending;
    Partitioned result;
    partition_and_check(testing::generated_keys<T>(distribution, n, random()), order, std::max<std::uint64_t>(capacity, 1),
                        describe(distribution, n, capacity, order), result);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TYPED_TEST(RoundPartitionTest, RoundsAndOutputAreIndependentOfTheThreadCount) {
  using T = TypeParam;
  const std::size_t n = 2 * partition_config::kMinChunkKeys + 777;
  const auto input = testing::generated_keys<T>("zipf:1.0", n, 5);
  std::vector<std::vector<std::uint64_t>> cuts;
  std::vector<std::vector<T>> outputs;
  for (int threads : {1, 2, 4}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    std::vector<T> out(n);
    cuts.push_back(partition_into_rounds(input.data(), out.data(), n, SortOrder::descending, n / 10).cuts);
    outputs.push_back(std::move(out));
    // And given a histogram that as many threads counted, in pieces of 100000 keys.
    TopDigitHistogram histogram(KeyTypeOf<T>::value, SortOrder::descending, n);
    tbb::parallel_for(std::size_t{0}, (n + 99999) / 100000, [&](std::size_t piece) {
      const std::size_t first = piece * 100000;
      histogram.add(first, reinterpret_cast<const std::byte*>(input.data() + first), std::min<std::size_t>(100000, n - first));
    });
    histogram.finish();
    std::vector<T> given_out(n);
    cuts.push_back(
        partition_into_rounds(input.data(), given_out.data(), n, SortOrder::descending, n / 10, nullptr, &histogram).cuts);
    outputs.push_back(std::move(given_out));
  }
  for (std::size_t run = 1; run < cuts.size(); ++run) {
    EXPECT_EQ(cuts[0], cuts[run]) << "run " << run;
    EXPECT_TRUE(testing::same_bits(outputs[0], outputs[run])) << "run " << run;
  }
}

// Refined inputs count each chunk's keys per bucket from the chunks' table counters in `out`,
// without a read pass of their own.
TEST(RoundPartitionStatsTest, RefinedInputsNeedNoBucketCountingPass) {
  for (const char* distribution : {"zipf:1.0", "bits:10"}) {
    const auto input = testing::generated_keys<std::uint64_t>(distribution, 1 << 20, 2);
    std::vector<std::uint64_t> out(input.size());
    RoundPartitionStats stats;
    (void)partition_into_rounds(input.data(), out.data(), input.size(), SortOrder::ascending, 1 << 17, &stats);
    EXPECT_GE(stats.refinement_passes, 1) << distribution;
    EXPECT_FALSE(stats.bucket_counting_pass) << distribution;
  }
}

TEST(RoundPartitionStatsTest, UniformKeysNeedNoRefinement) {
  const auto input = testing::generated_keys<std::uint64_t>("uniform", 1 << 20, 2);
  std::vector<std::uint64_t> out(input.size());
  RoundPartitionStats stats;
  const RoundPlan plan =
      partition_into_rounds(input.data(), out.data(), input.size(), SortOrder::ascending, 1 << 17, &stats);
  EXPECT_EQ(stats.refinement_passes, 0);
  EXPECT_LE(plan.rounds(), 9u) << "2^20 keys in rounds of 2^17, top digits of ~16 keys each";
  EXPECT_GT(stats.scatter_ms, 0);
}

TEST(RoundPartitionStatsTest, AHistogramOfOtherKeysIsAnError) {
  const auto input = testing::generated_keys<std::uint64_t>("uniform", 5000, 2);
  std::vector<std::uint64_t> out(input.size());
  const auto* bytes = reinterpret_cast<const std::byte*>(input.data());
  const auto partition = [&](const TopDigitHistogram& histogram) {
    return partition_into_rounds(input.data(), out.data(), input.size(), SortOrder::ascending, 1000, nullptr,
                                 &histogram);
  };
  TopDigitHistogram unfinished(KeyType::u64, SortOrder::ascending, input.size());
  EXPECT_THROW(partition(unfinished), Error);
  TopDigitHistogram descending(KeyType::u64, SortOrder::descending, input.size());
  descending.count_all(bytes);
  EXPECT_THROW(partition(descending), Error);
  TopDigitHistogram signed_keys(KeyType::i64, SortOrder::ascending, input.size());
  signed_keys.count_all(bytes);
  EXPECT_THROW(partition(signed_keys), Error);
  TopDigitHistogram fewer(KeyType::u64, SortOrder::ascending, input.size() - 1);
  fewer.count_all(bytes);
  EXPECT_THROW(partition(fewer), Error);
  TopDigitHistogram right(KeyType::u64, SortOrder::ascending, input.size());
  right.count_all(bytes);
  EXPECT_EQ(partition(right).cuts.back(), input.size());
}

// Heavy digits refined with too little room in `out` for every chunk's counters of every table
// (3000 keys of one top digit, capacity 1: a 2^12-digit table, then hundreds of small ones): the
// passes count per thread and a read pass counts each chunk's keys per bucket.
TYPED_TEST(RoundPartitionTest, RefinementWithoutRoomForPerChunkCounters) {
  using T = TypeParam;
  constexpr int kBits = 8 * sizeof(T);
  std::mt19937_64 random(31);
  std::vector<T> input;
  for (int i = 0; i < 3000; ++i)
    input.push_back(from_bits<T>(Bits<T>(Bits<T>(0x1234) << (kBits - 16)) |
                                 Bits<T>(Bits<T>(random()) & Bits<T>((Bits<T>(1) << (kBits - 16)) - 1))));
  for (SortOrder order : kBothOrders) {
    Partitioned result;
    partition_and_check(input, order, 1, describe("no room", input.size(), 1, order), result);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_GE(result.stats.refinement_passes, 2);
    EXPECT_TRUE(result.stats.bucket_counting_pass);
  }
}

TEST(RoundPartitionStatsTest, ZeroCapacityIsAnError) {
  std::vector<std::uint32_t> input(4), out(4);
  EXPECT_THROW(partition_into_rounds(input.data(), out.data(), 4, SortOrder::ascending, 0), std::exception);
}

}  // namespace
}  // namespace rmgsort
