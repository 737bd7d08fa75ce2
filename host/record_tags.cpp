#include "host/record_tags.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "core/error.hpp"
#include "core/record_rank.hpp"
#include "host/record_tag_passes.hpp"
#include "host/record_tags_config.hpp"

namespace rmgsort {
namespace {

using namespace record_tags_config;

using detail::differing_words;
using detail::plan_tags;
using detail::tag_of;
using detail::WordBits;

// --- build ---------------------------------------------------------------------------------------

// The prefix shift that a sample of records suggests for rank word 0, or -1 when word 0 is the
// same in the whole sample. The sample's highest differing bit is the round's for most inputs
// (any spread of the top bit shows in kShiftSample records); then the first pass writes the final
// tags, and the second pass is saved.
template <class Rank>
int guess_shift(const Rank& rank, const std::byte* records, std::uint64_t count, std::size_t record_size,
                int index_bits) {
  const std::uint64_t step = std::max<std::uint64_t>(count / kShiftSample, 1);
  const std::uint64_t first = rank.word(records, 0);
  std::uint64_t differing = 0;
  for (std::uint64_t i = step; i < count; i += step) differing |= rank.word(records + i * record_size, 0) ^ first;
  if (differing == 0) return -1;
  return std::max(int(std::bit_width(differing)) - (64 - index_bits), 0);
}

// First pass: the bits in which records differ, storing the tags of the guessed shift (or, with
// none, rank word 0 itself). Second pass, unless the guess was right: the tags, from rank word 0
// in tags[] or from the records.
template <class Rank>
TagPlan build_tags(const Rank& rank, const std::byte* records, std::uint64_t count, std::size_t record_size,
                   std::uint64_t* tags) {
  const int index_bits = count <= 1 ? 0 : int(std::bit_width(count - 1));
  const auto slot = [](std::uint64_t i) { return i; };
  const int guessed_shift = guess_shift(rank, records, count, record_size, index_bits);
  const TagPlan guess{index_bits, 0, std::max(guessed_shift, 0), false};
  const WordBits differing =
      guessed_shift < 0
          ? differing_words(rank, records, record_size, count, slot,
                            [&](std::uint64_t i, std::uint64_t word0) { tags[i] = word0; })
          : differing_words(rank, records, record_size, count, slot,
                            [&](std::uint64_t i, std::uint64_t word0) { tags[i] = tag_of(word0, i, guess); });
  const TagPlan plan = plan_tags(differing, rank.words(), index_bits);
  const auto for_each_slot = [&](auto f) {
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, kScanGrain), [&](const auto& r) {
      for (std::uint64_t i = r.begin(); i < r.end(); ++i) f(i);
    });
  };
  if (differing == WordBits{}) {
    for_each_slot([&](std::uint64_t i) { tags[i] = i; });
  } else if (guessed_shift < 0 && plan.word == 0) {
    for_each_slot([&](std::uint64_t i) { tags[i] = tag_of(tags[i], i, plan); });
  } else if (guessed_shift < 0 || plan.word != 0 || plan.shift != guessed_shift) {
    detail::write_tags(rank, records, record_size, count, plan, slot, tags);
  }
  return plan;
}

// --- gather --------------------------------------------------------------------------------------

// out[j] = the record tags[j] points at, for j in [begin, end). The reads are random, so their
// latency bounds a plain loop: the record kPrefetch tags ahead is fetched meanwhile, into L2 (see
// record_tags_config.hpp), every cache line of it.
void gather_range(const std::uint64_t* tags, std::uint64_t begin, std::uint64_t end, const TagPlan& plan,
                  const std::byte* records, std::size_t record_size, std::byte* out) {
  const std::uint64_t position_mask = detail::low_mask(plan.index_bits);
  for (std::uint64_t j = begin; j < end; ++j) {
    if (j + kPrefetch < end) {
      const std::byte* ahead = records + (tags[j + kPrefetch] & position_mask) * record_size;
      const std::byte* line = ahead - reinterpret_cast<std::uintptr_t>(ahead) % 64;
      __builtin_prefetch(line, 0, 2);
      for (line += 64; line < ahead + record_size; line += 64) __builtin_prefetch(line, 0, 2);
    }
    std::memcpy(out + j * record_size, records + (tags[j] & position_mask) * record_size, record_size);
  }
}

}  // namespace

TagPlan build_record_tags(const std::byte* records, std::uint64_t count, const RecordLayout& layout, SortOrder order,
                          std::uint64_t* tags) {
  RMGSORT_EXPECTS(layout.valid(), "build_record_tags: the key does not fit the record");
  RMGSORT_EXPECTS(count <= kMaxTaggedRecords, "build_record_tags: more records in one round than tags can index");
  if (count == 0) return TagPlan{};
  return visit_rank(layout, order,
                    [&](const auto& rank) { return build_tags(rank, records, count, layout.record_size, tags); });
}

void gather_records(const std::uint64_t* tags, std::uint64_t count, const TagPlan& plan, const std::byte* records,
                    std::size_t record_size, std::byte* out) {
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, kGatherGrain),
                    [&](const auto& r) { gather_range(tags, r.begin(), r.end(), plan, records, record_size, out); });
}

}  // namespace rmgsort
