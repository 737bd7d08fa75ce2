// The passes that cut tags out of records' rank words (host/record_tags.hpp), shared by the tags of
// a round (record_tags.cpp) and the new tags of a long run of tied prefixes (record_tags_refine.cpp).
// Both see their records through POSITION(i), the record of tag slot i: i itself in a round, the
// position the slot's tag holds in a run.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "core/key_type.hpp"
#include "host/record_tags.hpp"
#include "host/record_tags_config.hpp"

namespace rmgsort::detail {

// bytes:32, the widest key, has four rank words.
inline constexpr int kMaxRankWords = int((kMaxBytesKey + 7) / 8);
using WordBits = std::array<std::uint64_t, kMaxRankWords>;

constexpr std::uint64_t low_mask(int bits) { return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }

// The bits, per rank word, in which the records of slots [0, count) differ from slot 0's. Calls
// visit(i, rank word 0 of slot i) on the way (the round's first pass stores tags meanwhile).
template <class Rank, class Position, class Visit>
WordBits differing_words(const Rank& rank, const std::byte* records, std::size_t record_size, std::uint64_t count,
                         Position position, Visit visit) {
  const int words = rank.words();
  WordBits first{};
  for (int w = 0; w < words; ++w) first[std::size_t(w)] = rank.word(records + position(0) * record_size, w);
  return tbb::parallel_reduce(
      tbb::blocked_range<std::uint64_t>(0, count, record_tags_config::kScanGrain), WordBits{},
      [&](const auto& r, WordBits differing) {
        for (std::uint64_t i = r.begin(); i < r.end(); ++i) {
          const std::byte* record = records + position(i) * record_size;
          const std::uint64_t word0 = rank.word(record, 0);
          visit(i, word0);
          differing[0] |= word0 ^ first[0];
          for (int w = 1; w < words; ++w) differing[std::size_t(w)] |= rank.word(record, w) ^ first[std::size_t(w)];
        }
        return differing;
      },
      [](WordBits a, const WordBits& b) {
        for (std::size_t w = 0; w < a.size(); ++w) a[w] |= b[w];
        return a;
      });
}

// Where the prefix is cut: the highest rank bit in which records differ, and the 64 - index_bits
// bits from there down. All keys equal: prefix 0, exact.
inline TagPlan plan_tags(const WordBits& differing, int words, int index_bits) {
  TagPlan plan;
  plan.index_bits = index_bits;
  int word = 0;
  while (word < words && differing[std::size_t(word)] == 0) ++word;
  if (word == words) return plan;
  const std::uint64_t bits = differing[std::size_t(word)];
  plan.word = word;
  plan.shift = std::max(int(std::bit_width(bits)) - (64 - index_bits), 0);
  plan.exact = (bits & low_mask(plan.shift)) == 0;
  for (int w = word + 1; w < words; ++w) plan.exact = plan.exact && differing[std::size_t(w)] == 0;
  return plan;
}

// The prefix of PLAN cut from rank word WORD.
inline std::uint64_t tag_of(std::uint64_t word, std::uint64_t position, const TagPlan& plan) {
  return ((word >> plan.shift) & low_mask(64 - plan.index_bits)) << plan.index_bits | position;
}

// tags[i] = tag_of(the plan's rank word of slot i's record, position(i)), for slots [0, count).
// A slot's position is read before its tag is written, so POSITION may read tags[i].
template <class Rank, class Position>
void write_tags(const Rank& rank, const std::byte* records, std::size_t record_size, std::uint64_t count,
                const TagPlan& plan, Position position, std::uint64_t* tags) {
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, record_tags_config::kScanGrain), [&](const auto& r) {
    for (std::uint64_t i = r.begin(); i < r.end(); ++i) {
      const std::uint64_t at = position(i);
      tags[i] = tag_of(rank.word(records + at * record_size, plan.word), at, plan);
    }
  });
}

}  // namespace rmgsort::detail
