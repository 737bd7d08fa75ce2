// The plan of the rounds sorted on the GPUs alone (gpu/digit_rounds.hpp): chunk sizes of the first
// trip, and rounds packed from top-digit counts, against their invariants (cover every digit in
// order, sum to the keys, stay within the capacity unless one digit alone is heavier, none empty),
// uniform, skewed and random counts.
#include "gpu/digit_rounds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace rmgsort {
namespace {

// Checks the invariants plan_digit_rounds promises; returns the rounds.
std::vector<DigitRound> checked_plan(const std::vector<std::uint64_t>& totals, std::uint64_t capacity, unsigned lanes) {
  const std::vector<DigitRound> rounds = plan_digit_rounds(totals, capacity, lanes);
  const std::uint64_t keys = std::accumulate(totals.begin(), totals.end(), std::uint64_t{0});
  if (keys == 0) {
    EXPECT_TRUE(rounds.empty());
    return rounds;
  }
  std::uint32_t digit = 0;
  std::uint64_t first = 0;
  for (const DigitRound& round : rounds) {
    EXPECT_EQ(round.digit_begin, digit);
    EXPECT_LT(round.digit_begin, round.digit_end);
    EXPECT_EQ(round.first, first);
    EXPECT_GT(round.keys, 0u);
    std::uint64_t in_digits = 0, digits_with_keys = 0, heaviest = 0;
    for (std::uint32_t d = round.digit_begin; d < round.digit_end; ++d) {
      in_digits += totals[d];
      digits_with_keys += totals[d] > 0;
      heaviest = std::max(heaviest, totals[d]);
    }
    EXPECT_EQ(in_digits, round.keys);
    // A heavy round is one digit heavier than a round; every other round fits one, and holds no
    // digit that would not.
    EXPECT_EQ(round.heavy, heaviest > capacity);
    if (round.heavy) {
      EXPECT_EQ(digits_with_keys, 1u);
    } else {
      EXPECT_LE(round.keys, capacity);
    }
    digit = round.digit_end;
    first += round.keys;
  }
  EXPECT_EQ(digit, kRoundDigits);
  EXPECT_EQ(first, keys);
  std::uint64_t light = 0, light_keys = 0;  // the rounds that are not heavy
  for (const DigitRound& round : rounds)
    if (!round.heavy) ++light, light_keys += round.keys;
  EXPECT_GE(light, (light_keys + capacity - 1) / capacity);
  return rounds;
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

TEST(DigitRoundsTest, ADigitHeavierThanARoundIsARoundOfItsOwn) {
  std::vector<std::uint64_t> totals(kRoundDigits, 0);
  totals[5] = 10;
  totals[77] = 501;
  totals[78] = 20;
  const std::vector<DigitRound> rounds = checked_plan(totals, 500, 2);
  ASSERT_EQ(rounds.size(), 3u);
  EXPECT_EQ(rounds[1].digit_begin, 77u);
  EXPECT_EQ(rounds[1].digit_end, 78u);
  EXPECT_EQ(rounds[1].first, 10u);
  EXPECT_TRUE(rounds[1].heavy);
  // Alone, with the empty digits on both sides.
  totals[5] = totals[78] = 0;
  const std::vector<DigitRound> alone = checked_plan(totals, 500, 2);
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_TRUE(alone[0].heavy);
  // Every key one value: one heavy round. Exactly the capacity is not heavy.
  totals[77] = 500;
  EXPECT_FALSE(checked_plan(totals, 500, 2).front().heavy);
  // Two heavy digits side by side, and one at each end.
  std::vector<std::uint64_t> ends(kRoundDigits, 1);
  ends[0] = ends[1] = ends[kRoundDigits - 1] = 1000;
  const std::vector<DigitRound> at_ends = checked_plan(ends, 999, 3);
  EXPECT_TRUE(at_ends[0].heavy && at_ends[1].heavy && at_ends.back().heavy);
}

TEST(DigitRoundsTest, SkewedAndRandomCountsKeepEveryInvariant) {
  std::mt19937_64 random(5);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::uint64_t> totals(kRoundDigits, 0);
    const std::uint64_t capacity = 1 + random() % 100'000;
    const int filled = 1 + int(random() % 300);
    // Some digits above the capacity (heavy) in a third of the trials.
    const std::uint64_t largest = trial % 3 == 0 ? 3 * capacity : capacity + 1;
    for (int i = 0; i < filled; ++i) totals[random() % kRoundDigits] = random() % largest;
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
