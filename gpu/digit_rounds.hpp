// The host-side plan of the rounds sorted on the GPUs alone (gpu/rounds_on_gpus.hpp): how the keys
// are cut into chunks for the first trip, and, from the chunks' top-digit counts it brings back,
// which consecutive top digits make each round of the second trip. Pure host code: it sees counts,
// never keys.
//
// A digit is kRoundDigitBits of a key's encoded radix bits (core/key_order.hpp): the top ones, then,
// among keys that share them, the next ones. Digits in ascending order are value-ordered, and every
// round (a range of digits) is value-disjoint from the others. A digit holding more keys than a
// round can hold is a heavy round of its own, partitioned again by the next digit.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace rmgsort {

inline constexpr int kRoundDigitBits = 16;
inline constexpr std::uint64_t kRoundDigits = std::uint64_t{1} << kRoundDigitBits;

// Keys per chunk of the first trip for `count` keys on `lanes` GPUs whose buffers hold `capacity`
// keys: at most capacity, and small enough that every GPU gets at least kChunksPerLane chunks (each
// GPU's two buffers then take turns: one chunk's copy back beside the next one's copy in), but no
// smaller than kLeastChunkKeys (copies of a few MiB reach the link's rate; smaller ones would not).
inline constexpr std::uint64_t kChunksPerLane = 4;
inline constexpr std::uint64_t kLeastChunkKeys = std::uint64_t{1} << 20;
[[nodiscard]] std::uint64_t first_trip_chunk_keys(std::uint64_t count, std::uint64_t capacity, unsigned lanes);

// Round r holds the keys of digits [digit_begin, digit_end): `keys` of them, whose sorted place is
// [first, first + keys) of the output. A heavy round holds the keys of one digit, more than a round
// can hold (its other digits have none).
struct DigitRound {
  std::uint32_t digit_begin = 0;
  std::uint32_t digit_end = 0;
  std::uint64_t first = 0;
  std::uint64_t keys = 0;
  bool heavy = false;
};

// Rounds over digit_totals (kRoundDigits counts, summing to the keys) of at most `capacity` keys
// each but the heavy ones, about equal: as many as the capacity needs, rounded up to a multiple of
// `lanes` (each GPU sorts every lanes-th round) and to at least kChunksPerLane per lane when the
// keys are that many chunks' worth. Round k ends at the digit border nearest to k times the keys
// over that number, or before it where the next digit would not fit the capacity; a digit of more
// than `capacity` keys is a heavy round between the rounds before and after it. Digits with no keys
// join a neighbour; the rounds cover every digit, in order, and none is empty unless there are no
// keys (then there are none).
[[nodiscard]] std::vector<DigitRound> plan_digit_rounds(std::span<const std::uint64_t> digit_totals,
                                                        std::uint64_t capacity, unsigned lanes);

}  // namespace rmgsort
