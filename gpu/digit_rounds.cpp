#include "gpu/digit_rounds.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace rmgsort {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

}  // namespace

std::uint64_t first_trip_chunk_keys(std::uint64_t count, std::uint64_t capacity, unsigned lanes) {
  RMGSORT_EXPECTS(capacity > 0 && lanes > 0, "first_trip_chunk_keys: a capacity and a GPU");
  const std::uint64_t share = ceil_div(count, kChunksPerLane * lanes);
  return std::min(capacity, std::max(kLeastChunkKeys, share));
}

std::vector<DigitRound> plan_digit_rounds(std::span<const std::uint64_t> digit_totals, std::uint64_t capacity,
                                          unsigned lanes) {
  RMGSORT_EXPECTS(digit_totals.size() == kRoundDigits, "plan_digit_rounds: a count per digit");
  RMGSORT_EXPECTS(capacity > 0 && lanes > 0, "plan_digit_rounds: a capacity and a GPU");
  std::uint64_t keys = 0;
  for (const std::uint64_t n : digit_totals) keys += n;
  std::vector<DigitRound> rounds;
  if (keys == 0) return rounds;
  const std::uint64_t needed = ceil_div(keys, capacity);
  const std::uint64_t for_overlap = std::min(kChunksPerLane * lanes, ceil_div(keys, kLeastChunkKeys));
  const std::uint64_t wanted = ceil_div(std::max(needed, for_overlap), lanes) * lanes;
  // Round k (from 1) ends at the digit border nearest to k * keys / wanted, and earlier where the
  // next digit would take it beyond the capacity.
  const auto cut = [&](std::uint64_t k) { return k >= wanted ? keys : std::uint64_t(__uint128_t(k) * keys / wanted); };
  std::uint64_t k = 1, before = 0;  // before: the keys of the digits below `digit`
  DigitRound round;
  const auto close = [&](std::uint32_t end) {
    round.digit_end = end;
    rounds.push_back(round);
    round = DigitRound{end, 0, before, 0};
  };
  for (std::uint32_t digit = 0; digit < kRoundDigits; ++digit) {
    const std::uint64_t n = digit_totals[digit];
    if (n == 0) continue;
    if (n > capacity) {  // a heavy round, with the empty digits before it
      if (round.keys > 0) close(digit);
      round.keys = n;
      round.heavy = true;
      before += n;
      close(digit + 1);
      while (k < wanted && cut(k) <= before) ++k;
      continue;
    }
    const bool beyond_capacity = round.keys + n > capacity;
    const bool at_cut = before + n > cut(k) && before + n - cut(k) > cut(k) - std::min(before, cut(k));
    if (round.keys > 0 && (beyond_capacity || at_cut)) {
      close(digit);
      if (at_cut) ++k;  // this round took cut k, though it may end just short of it
      while (k < wanted && cut(k) <= before) ++k;
    }
    round.keys += n;
    before += n;
  }
  if (round.keys > 0) {
    close(std::uint32_t(kRoundDigits));
  } else {
    rounds.back().digit_end = std::uint32_t(kRoundDigits);  // the empty digits after the last heavy round
  }
  return rounds;
}

}  // namespace rmgsort
