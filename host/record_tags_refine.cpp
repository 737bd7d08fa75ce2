// refine_record_tags (host/record_tags.hpp): runs of tied prefixes put in key order. A short run is
// sorted by comparing its records' rank words; a long one gets new tags, cut from the bits below
// the ones its records share, and is sorted by sort_tags like a round of its own, down to its own
// tied runs. Skewed keys make long runs (zipf: four in ten keys below 2^27 share one 37-bit
// prefix when others reach 2^63), and so does any key that is wider than a prefix.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <vector>

#include "core/record_rank.hpp"
#include "host/record_tag_passes.hpp"
#include "host/record_tags.hpp"
#include "host/record_tags_config.hpp"
#include "host/tag_sort.hpp"

namespace rmgsort {
namespace {

using namespace record_tags_config;

template <class Rank>
class RunRefiner {
 public:
  RunRefiner(const Rank& rank, const std::byte* records, std::size_t record_size)
      : rank_(rank), records_(records), record_size_(record_size) {}

  // Puts every run of tied prefixes of tags[0, count) (cut by PLAN) in key order, equal keys by
  // position. SCRATCH: count tags, or nullptr (a long run then allocates its own).
  void refine(std::uint64_t* tags, std::uint64_t count, const TagPlan& plan, std::uint64_t* scratch) const {
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, kScanGrain),
                      [&](const auto& r) { refine_range(tags, count, plan, scratch, r.begin(), r.end()); });
  }

 private:
  const std::byte* record(std::uint64_t tag, const TagPlan& plan) const {
    return records_ + tag_position(tag, plan) * record_size_;
  }

  // Sorts every run that starts in [begin, end); a run that started before `begin` belongs to an
  // earlier range, and a run that starts here may extend past `end`.
  void refine_range(std::uint64_t* tags, std::uint64_t count, const TagPlan& plan, std::uint64_t* scratch,
                    std::uint64_t begin, std::uint64_t end) const {
    const int index_bits = plan.index_bits;
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
      sort_run(tags + i, run_end - i, plan, scratch == nullptr ? nullptr : scratch + i);
      i = run_end;
    }
  }

  // tags[0, n): one run, positions ascending; its records' rank words agree before plan.word.
  void sort_run(std::uint64_t* tags, std::uint64_t n, const TagPlan& plan, std::uint64_t* scratch) const {
    const auto less = [&](std::uint64_t a, std::uint64_t b) {
      const std::byte* x = record(a, plan);
      const std::byte* y = record(b, plan);
      for (int w = plan.word; w < rank_.words(); ++w) {
        const std::uint64_t p = rank_.word(x, w), q = rank_.word(y, w);
        if (p != q) return p < q;
      }
      return a < b;  // the same prefix: the tag orders as the position
    };
    if (n <= kInsertionSortRun) {
      for (std::uint64_t i = 1; i < n; ++i) {
        const std::uint64_t tag = tags[i];
        std::uint64_t j = i;
        for (; j > 0 && less(tag, tags[j - 1]); --j) tags[j] = tags[j - 1];
        tags[j] = tag;
      }
    } else if (n <= kComparisonRun) {
      std::sort(tags, tags + n, less);
    } else {
      retag_run(tags, n, plan.index_bits, scratch);
    }
  }

  // New tags for the run: the prefix cut below the bits its records share, the position kept.
  // Sorted, they leave runs of their own to refine, each time cut from lower bits: it ends.
  void retag_run(std::uint64_t* tags, std::uint64_t n, int index_bits, std::uint64_t* scratch) const {
    const std::uint64_t position_mask = detail::low_mask(index_bits);
    const auto position = [&](std::uint64_t i) { return tags[i] & position_mask; };
    const detail::WordBits differing =
        detail::differing_words(rank_, records_, record_size_, n, position, [](std::uint64_t, std::uint64_t) {});
    if (differing == detail::WordBits{}) return;  // equal keys: in position order already
    const TagPlan plan = detail::plan_tags(differing, rank_.words(), index_bits);
    detail::write_tags(rank_, records_, record_size_, n, plan, position, tags);
    std::vector<std::uint64_t> own_scratch(scratch == nullptr ? n : 0);
    if (scratch == nullptr) scratch = own_scratch.data();
    sort_tags(tags, n, index_bits, scratch);
    if (!plan.exact) refine(tags, n, plan, scratch);
  }

  Rank rank_;
  const std::byte* records_;
  std::size_t record_size_;
};

}  // namespace

void refine_record_tags(std::uint64_t* tags, std::uint64_t count, const TagPlan& plan, const std::byte* records,
                        const RecordLayout& layout, SortOrder order, std::uint64_t* scratch) {
  if (plan.exact || count < 2) return;
  visit_rank(layout, order, [&](const auto& rank) {
    RunRefiner(rank, records, layout.record_size).refine(tags, count, plan, scratch);
  });
}

}  // namespace rmgsort
