#include "host/record_tags.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "core/error.hpp"
#include "core/record_rank.hpp"
#include "host/record_tags_config.hpp"

namespace rmgsort {
namespace {

using namespace record_tags_config;

// bytes:32, the widest key, has four rank words.
constexpr int kMaxRankWords = int((kMaxBytesKey + 7) / 8);
using WordBits = std::array<std::uint64_t, kMaxRankWords>;

constexpr std::uint64_t low_mask(int bits) { return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }

const std::byte* record_at(const std::byte* records, std::uint64_t i, std::size_t record_size) {
  return records + i * record_size;
}

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
  for (std::uint64_t i = step; i < count; i += step)
    differing |= rank.word(record_at(records, i, record_size), 0) ^ first;
  if (differing == 0) return -1;
  return std::max(int(std::bit_width(differing)) - (64 - index_bits), 0);
}

// First pass: tags[i] = the tag of the guessed shift (rank word 0 itself when there is none);
// returns, per rank word, the bits in which some record of [begin, end) differs from record 0
// (`first`).
template <class Rank>
WordBits scan_words(const Rank& rank, const std::byte* records, std::size_t record_size, std::uint64_t begin,
                    std::uint64_t end, const WordBits& first, int guessed_shift, int index_bits, std::uint64_t* tags,
                    WordBits differing) {
  const int words = rank.words();
  const std::uint64_t prefix_mask = low_mask(64 - index_bits);
  const auto scan = [&](auto tag_of) {
    for (std::uint64_t i = begin; i < end; ++i) {
      const std::byte* record = record_at(records, i, record_size);
      const std::uint64_t word0 = rank.word(record, 0);
      tags[i] = tag_of(word0, i);
      differing[0] |= word0 ^ first[0];
      for (int w = 1; w < words; ++w) differing[std::size_t(w)] |= rank.word(record, w) ^ first[std::size_t(w)];
    }
  };
  if (guessed_shift < 0) {
    scan([](std::uint64_t word0, std::uint64_t) { return word0; });
  } else {
    scan([&](std::uint64_t word0, std::uint64_t i) {
      return ((word0 >> guessed_shift) & prefix_mask) << index_bits | i;
    });
  }
  return differing;
}

// Where the prefix is cut: the highest rank bit in which records differ, and the 64 - index_bits
// bits from there down.
TagPlan plan_tags(const WordBits& differing, int words, int index_bits) {
  TagPlan plan;
  plan.index_bits = index_bits;
  int word = 0;
  while (word < words && differing[std::size_t(word)] == 0) ++word;
  if (word == words) return plan;  // all keys equal: prefix 0, exact
  const std::uint64_t bits = differing[std::size_t(word)];
  plan.word = word;
  plan.shift = std::max(int(std::bit_width(bits)) - (64 - index_bits), 0);
  plan.exact = (bits & low_mask(plan.shift)) == 0;
  for (int w = word + 1; w < words; ++w) plan.exact = plan.exact && differing[std::size_t(w)] == 0;
  return plan;
}

// Second pass: tags[i] = prefix << index_bits | i, the prefix cut from rank word 0 where the
// first pass left it in tags[] (`word0_in_tags`), else from the record.
template <class Rank>
void write_tags(const Rank& rank, const std::byte* records, std::size_t record_size, std::uint64_t count,
                const TagPlan& plan, bool word0_in_tags, std::uint64_t* tags) {
  const std::uint64_t prefix_mask = low_mask(64 - plan.index_bits);
  const int shift = plan.shift, index_bits = plan.index_bits, word = plan.word;
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, kScanGrain), [&](const auto& r) {
    if (word == 0 && word0_in_tags) {
      for (std::uint64_t i = r.begin(); i < r.end(); ++i)
        tags[i] = ((tags[i] >> shift) & prefix_mask) << index_bits | i;
    } else {
      for (std::uint64_t i = r.begin(); i < r.end(); ++i)
        tags[i] = ((rank.word(record_at(records, i, record_size), word) >> shift) & prefix_mask) << index_bits | i;
    }
  });
}

template <class Rank>
TagPlan build_tags(const Rank& rank, const std::byte* records, std::uint64_t count, std::size_t record_size,
                   std::uint64_t* tags) {
  const int words = rank.words();
  const int index_bits = count <= 1 ? 0 : int(std::bit_width(count - 1));
  WordBits first{};
  for (int w = 0; w < words; ++w) first[std::size_t(w)] = rank.word(records, w);
  const int guessed_shift = guess_shift(rank, records, count, record_size, index_bits);
  const WordBits differing = tbb::parallel_reduce(
      tbb::blocked_range<std::uint64_t>(0, count, kScanGrain), WordBits{},
      [&](const auto& r, WordBits bits) {
        return scan_words(rank, records, record_size, r.begin(), r.end(), first, guessed_shift, index_bits, tags, bits);
      },
      [](WordBits a, const WordBits& b) {
        for (std::size_t w = 0; w < a.size(); ++w) a[w] |= b[w];
        return a;
      });
  const TagPlan plan = plan_tags(differing, words, index_bits);
  if (differing == WordBits{}) {
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, kScanGrain), [&](const auto& r) {
      for (std::uint64_t i = r.begin(); i < r.end(); ++i) tags[i] = i;
    });
  } else if (guessed_shift < 0 || plan.word != 0 || plan.shift != guessed_shift) {
    write_tags(rank, records, record_size, count, plan, guessed_shift < 0, tags);
  }
  return plan;
}

// --- refine --------------------------------------------------------------------------------------

// Puts the tags of one run (equal prefixes, so equal rank words before plan.word) in key order,
// equal keys by position: the tag, since within a run it orders as the position does.
template <class Rank>
class RunSorter {
 public:
  RunSorter(const Rank& rank, const TagPlan& plan, const std::byte* records, std::size_t record_size)
      : rank_(rank), plan_(plan), records_(records), record_size_(record_size) {}

  bool operator()(std::uint64_t a, std::uint64_t b) const {
    const std::byte* x = record_at(records_, tag_position(a, plan_), record_size_);
    const std::byte* y = record_at(records_, tag_position(b, plan_), record_size_);
    for (int w = plan_.word; w < rank_.words(); ++w) {
      const std::uint64_t p = rank_.word(x, w), q = rank_.word(y, w);
      if (p != q) return p < q;
    }
    return a < b;
  }

  void sort(std::uint64_t* begin, std::uint64_t* end) const {
    const auto n = std::uint64_t(end - begin);
    if (n <= kInsertionSortRun) {
      for (std::uint64_t* i = begin + 1; i < end; ++i) {
        const std::uint64_t tag = *i;
        std::uint64_t* j = i;
        for (; j > begin && (*this)(tag, j[-1]); --j) *j = j[-1];
        *j = tag;
      }
    } else if (n <= kSequentialRun) {
      std::sort(begin, end, *this);
    } else {
      tbb::parallel_sort(begin, end, *this);
    }
  }

 private:
  Rank rank_;
  TagPlan plan_;
  const std::byte* records_;
  std::size_t record_size_;
};

// Sorts every run of length >= 2 that starts in [begin, end); a run that started before `begin`
// belongs to an earlier range, and a run that starts here may extend past `end`.
template <class Rank>
void refine_range(const RunSorter<Rank>& sorter, std::uint64_t* tags, std::uint64_t count, std::uint64_t begin,
                  std::uint64_t end, int index_bits) {
  const auto prefix = [&](std::uint64_t i) { return tags[i] >> index_bits; };
  // The first i in [from, end) whose prefix is tags[i + 1]'s (end if none). Most prefixes are
  // unique: blocks of kTieBlock pairs are tested without a branch per pair.
  const auto next_tie = [&](std::uint64_t from) {
    const std::uint64_t last = std::min(end, count - 1);  // pairs (i, i + 1) with i + 1 < count
    std::uint64_t i = from;
    for (; i + kTieBlock <= last; i += kTieBlock) {
      bool tie = false;
      for (std::uint64_t k = i; k < i + kTieBlock; ++k) tie |= ((tags[k] ^ tags[k + 1]) >> index_bits) == 0;
      if (tie) break;
    }
    for (; i < last; ++i)
      if (prefix(i) == prefix(i + 1)) return i;
    return end;
  };
  std::uint64_t i = begin;
  if (begin > 0)
    while (i < end && prefix(i) == prefix(begin - 1)) ++i;
  while ((i = next_tie(i)) < end) {
    std::uint64_t run_end = i + 2;
    while (run_end < count && prefix(run_end) == prefix(i)) ++run_end;
    sorter.sort(tags + i, tags + run_end);
    i = run_end;
  }
}

// --- gather --------------------------------------------------------------------------------------

// out[j] = the record tags[j] points at, for j in [begin, end). The reads are random, so their
// latency bounds a plain loop: the record kPrefetch tags ahead is fetched meanwhile, into L2 (see
// record_tags_config.hpp), every cache line of it.
void gather_range(const std::uint64_t* tags, std::uint64_t begin, std::uint64_t end, const TagPlan& plan,
                  const std::byte* records, std::size_t record_size, std::byte* out) {
  const std::uint64_t position_mask = low_mask(plan.index_bits);
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

void refine_record_tags(std::uint64_t* tags, std::uint64_t count, const TagPlan& plan, const std::byte* records,
                        const RecordLayout& layout, SortOrder order) {
  if (plan.exact || count < 2) return;
  visit_rank(layout, order, [&](const auto& rank) {
    const RunSorter sorter(rank, plan, records, layout.record_size);
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, kScanGrain),
                      [&](const auto& r) { refine_range(sorter, tags, count, r.begin(), r.end(), plan.index_bits); });
  });
}

void gather_records(const std::uint64_t* tags, std::uint64_t count, const TagPlan& plan, const std::byte* records,
                    std::size_t record_size, std::byte* out) {
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, kGatherGrain), [&](const auto& r) {
    gather_range(tags, r.begin(), r.end(), plan, records, record_size, out);
  });
}

}  // namespace rmgsort
