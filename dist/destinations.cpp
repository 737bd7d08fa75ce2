#include "dist/destinations.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>

#include "core/error.hpp"

namespace rmgsort::dist {

std::vector<RankKey> boundary_keys(const std::vector<Boundary>& boundaries) {
  std::vector<RankKey> keys;
  for (const Boundary& boundary : boundaries)
    if (keys.empty() || keys.back() != boundary.value) keys.push_back(boundary.value);
  return keys;
}

namespace {

// count_boundary_keys for keys of one word, as plain integers (the hot loop of every exchange).
template <class Rank>
void count_one_word(const Rank rank, const std::byte* records, std::uint64_t begin, std::uint64_t end,
                    std::size_t record_size, KeyShape shape, const std::vector<std::uint64_t>& keys,
                    std::uint64_t* counts) {
  const std::uint64_t low = keys.front(), high = keys.back();
  const std::uint64_t* first = keys.data();
  const std::uint64_t* last = keys.data() + keys.size();
  for (std::uint64_t i = begin; i != end; ++i) {
    const std::uint64_t key = rank_key_word(rank, records + i * record_size, shape);
    if (key < low || key > high) continue;
    const std::uint64_t* found = std::lower_bound(first, last, key);
    if (*found == key) ++counts[found - first];
  }
}

}  // namespace

std::vector<std::uint64_t> count_boundary_keys(const std::byte* records, std::uint64_t count,
                                               const RecordLayout& layout, SortOrder order,
                                               const std::vector<RankKey>& keys) {
  std::vector<std::uint64_t> counts(keys.size());
  if (keys.empty() || count == 0) return counts;
  const KeyShape shape = key_shape(layout);
  const KeyLess less{key_words(layout)};
  std::vector<std::uint64_t> words;
  for (const RankKey& key : keys) words.push_back(key[0]);
  tbb::enumerable_thread_specific<std::vector<std::uint64_t>> local([&] { return std::vector<std::uint64_t>(keys.size()); });
  visit_rank(layout, order, [&](const auto& rank) {
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, 1 << 16), [&](const auto& range) {
      std::vector<std::uint64_t>& mine = local.local();
      if (less.words == 1) {
        count_one_word(rank, records, range.begin(), range.end(), layout.record_size, shape, words, mine.data());
        return;
      }
      for (std::uint64_t i = range.begin(); i != range.end(); ++i) {
        const RankKey key = rank_key(rank, records + i * layout.record_size, shape);
        const auto found = std::lower_bound(keys.begin(), keys.end(), key, less);
        if (found != keys.end() && same_key(*found, key, less.words)) ++mine[std::size_t(found - keys.begin())];
      }
    });
  });
  for (const std::vector<std::uint64_t>& mine : local)
    for (std::size_t k = 0; k < counts.size(); ++k) counts[k] += mine[k];
  return counts;
}

Destinations::Destinations(const std::vector<Boundary>& boundaries, std::vector<std::uint64_t> equal_earlier,
                           int words)
    : less_{words}, keys_(boundary_keys(boundaries)), seen_(std::move(equal_earlier)) {
  RMGSORT_EXPECTS(seen_.size() == keys_.size(), "a count of earlier records per boundary key");
  for (const Boundary& boundary : boundaries) {
    values_.push_back(boundary.value);
    value_words_.push_back(boundary.value[0]);
    before_.push_back(boundary.equal_before());
  }
}

int Destinations::next(const RankKey& key) {
  const auto first = std::lower_bound(values_.begin(), values_.end(), key, less_);
  if (first == values_.end() || !same_key(*first, key, less_.words)) return int(first - values_.begin());
  // The key of boundaries [j, last): this record goes past those whose equal_before() it reaches.
  const auto last = std::upper_bound(first, values_.end(), key, less_);
  const std::size_t j = std::size_t(first - values_.begin());
  const std::size_t k = std::size_t(std::lower_bound(keys_.begin(), keys_.end(), key, less_) - keys_.begin());
  const std::uint64_t place = seen_[k]++;
  const auto before_first = before_.begin() + std::ptrdiff_t(j);
  const auto before_last = before_.begin() + std::ptrdiff_t(last - values_.begin());
  return int(j + std::size_t(std::upper_bound(before_first, before_last, place) - before_first));
}

}  // namespace rmgsort::dist
