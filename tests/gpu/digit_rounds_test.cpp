// The plan of the rounds sorted on the GPUs alone (gpu/digit_rounds.hpp): chunk sizes of the first
// trip, and rounds packed from top-digit counts, against their invariants (cover every digit in
// order, sum to the keys, stay within the capacity, none empty), uniform, skewed and random counts.
#include "gpu/digit_rounds.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace rmgsort {
namespace {

// Checks the invariants plan_digit_rounds promises; returns the rounds.
std::vector<DigitRound> checked_plan(const std::vector<std::uint64_t>& totals, std::uint64_t capacity, unsigned lanes) {
  const auto rounds = plan_digit_rounds(totals, capacity, lanes);
  EXPECT_TRUE(rounds.has_value());
  if (!rounds) return {};
  const std::uint64_t keys = std::accumulate(totals.begin(), totals.end(), std::uint64_t{0});
  if (keys == 0) {
    EXPECT_TRUE(rounds->empty());
    return *rounds;
  }
  EXPECT_GE(rounds->size(), (keys + capacity - 1) / capacity);
  std::uint32_t digit = 0;
  std::uint64_t first = 0;
  for (const DigitRound& round : *rounds) {
    EXPECT_EQ(round.digit_begin, digit);
    EXPECT_LT(round.digit_begin, round.digit_end);
    EXPECT_EQ(round.first, first);
    EXPECT_GT(round.keys, 0u);
    EXPECT_LE(round.keys, capacity);
    std::uint64_t in_digits = 0;
    for (std::uint32_t d = round.digit_begin; d < round.digit_end; ++d) in_digits += totals[d];
    EXPECT_EQ(in_digits, round.keys);
    digit = round.digit_end;
    first += round.keys;
  }
  EXPECT_EQ(digit, kRoundDigits);
  EXPECT_EQ(first, keys);
  return *rounds;
}

TEST(DigitRoundsTest, FirstTripChunksStayWithinTheCapacityAndGiveEveryGpuItsTurns) {
  EXPECT_EQ(first_trip_chunk_keys(0, 1000, 2), 1000u);  // no keys: any size, within the capacity
  EXPECT_EQ(first_trip_chunk_keys(std::uint64_t{1} << 40, std::uint64_t{1} << 28, 2), std::uint64_t{1} << 28);
  // 2^30 keys on 2 GPUs of room for 2^29: 8 chunks, 4 per GPU.
  EXPECT_EQ(first_trip_chunk_keys(std::uint64_t{1} << 30, std::uint64_t{1} << 29, 2), std::uint64_t{1} << 27);
  // Few keys: not below kLeastChunkKeys, unless the capacity is smaller.
  EXPECT_EQ(first_trip_chunk_keys(1000, std::uint64_t{1} << 29, 4), kLeastChunkKeys);
  EXPECT_EQ(first_trip_chunk_keys(1000, 100, 4), 100u);
  EXPECT_THROW((void)first_trip_chunk_keys(10, 0, 1), Error);
}

TEST(DigitRoundsTest, UniformCountsGiveEqualRoundsInMultiplesOfTheGpus) {
  const std::vector<std::uint64_t> totals(kRoundDigits, 1000);  // 65.5 M keys
  for (const unsigned lanes : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE(std::to_string(lanes) + " GPUs");
    const auto rounds = checked_plan(totals, 10'000'000, lanes);
    // 7 needed by the capacity, rounded up to the GPUs (and at least 4 per GPU).
    const std::uint64_t wanted = std::max<std::uint64_t>((7 + lanes - 1) / lanes * lanes, 4 * lanes);
    EXPECT_EQ(rounds.size(), wanted);
    for (const DigitRound& round : rounds) EXPECT_LE(round.keys, kRoundDigits * 1000 / wanted + 1000);
  }
}

TEST(DigitRoundsTest, NoKeysNoRounds) {
  EXPECT_TRUE(checked_plan(std::vector<std::uint64_t>(kRoundDigits, 0), 10, 2).empty());
}

TEST(DigitRoundsTest, OneKeyOrOneFullDigitIsOneRoundOverEveryDigit) {
  for (const std::uint32_t digit : {0u, 1234u, std::uint32_t(kRoundDigits - 1)}) {
    std::vector<std::uint64_t> totals(kRoundDigits, 0);
    totals[digit] = 1;
    ASSERT_EQ(checked_plan(totals, 1, 2).size(), 1u);
    totals[digit] = 500;  // exactly the capacity
    ASSERT_EQ(checked_plan(totals, 500, 4).size(), 1u);
  }
}

TEST(DigitRoundsTest, ADigitHeavierThanARoundCannotBePlanned) {
  std::vector<std::uint64_t> totals(kRoundDigits, 1);
  totals[77] = 501;
  EXPECT_FALSE(plan_digit_rounds(totals, 500, 2).has_value());
  totals[77] = 500;
  (void)checked_plan(totals, 500, 2);
}

TEST(DigitRoundsTest, SkewedAndRandomCountsKeepEveryInvariant) {
  std::mt19937_64 random(5);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::uint64_t> totals(kRoundDigits, 0);
    const std::uint64_t capacity = 1 + random() % 100'000;
    const int filled = 1 + int(random() % 300);
    for (int i = 0; i < filled; ++i) totals[random() % kRoundDigits] = random() % (capacity + 1);
    const unsigned lanes = 1 + unsigned(random() % 4);
    SCOPED_TRACE("trial " + std::to_string(trial));
    (void)checked_plan(totals, capacity, lanes);
  }
}

TEST(DigitRoundsTest, RejectsCountsOfAnotherDigitWidthAndNoCapacity) {
  EXPECT_THROW((void)plan_digit_rounds(std::vector<std::uint64_t>(256, 1), 10, 1), Error);
  EXPECT_THROW((void)plan_digit_rounds(std::vector<std::uint64_t>(kRoundDigits, 1), 0, 1), Error);
}

}  // namespace
}  // namespace rmgsort
