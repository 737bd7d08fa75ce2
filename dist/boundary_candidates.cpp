#include "dist/boundary_candidates.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>

namespace rmgsort::dist {

BoundaryCandidates::BoundaryCandidates(const BoundarySearch& search, SliceReader& slice, const RecordLayout& layout)
    : words_(key_words(layout)) {
  slice.for_each_window([&](const std::byte* records, std::uint64_t, std::uint64_t count) {
    add(search, records, count, layout.record_size);
  });
}

BoundaryCandidates::BoundaryCandidates(const BoundarySearch& search, const std::byte* records, std::uint64_t count,
                                       const RecordLayout& layout)
    : words_(key_words(layout)) {
  add(search, records, count, layout.record_size);
}

void BoundaryCandidates::add(const BoundarySearch& search, const std::byte* records, std::uint64_t count,
                             std::size_t record_size) {
  tbb::enumerable_thread_specific<std::vector<std::uint64_t>> local;
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, 1 << 16), [&](const auto& range) {
    search.collect(records + range.begin() * record_size, range.end() - range.begin(), local.local());
  });
  for (std::vector<std::uint64_t>& part : local)
    if (!part.empty()) parts_.push_back(std::move(part));
}

std::uint64_t BoundaryCandidates::size() const {
  std::uint64_t words = 0;
  for (const std::vector<std::uint64_t>& part : parts_) words += part.size();
  return words / std::uint64_t(words_);
}

void BoundaryCandidates::count(const BoundarySearch& search, std::span<std::uint64_t> counts) const {
  for (const std::vector<std::uint64_t>& part : parts_)
    search.count_keys(part.data(), part.size() / std::size_t(words_), counts);
}

std::vector<std::uint64_t> BoundaryCandidates::count_keys(const std::vector<RankKey>& keys) const {
  std::vector<std::uint64_t> counts(keys.size());
  const KeyLess less{words_};
  const std::size_t words = std::size_t(words_);
  for (const std::vector<std::uint64_t>& part : parts_)
    for (std::size_t at = 0; at < part.size(); at += words) {
      RankKey key{};
      std::copy_n(part.data() + at, words, key.begin());
      const auto found = std::lower_bound(keys.begin(), keys.end(), key, less);
      if (found != keys.end() && same_key(*found, key, words_)) ++counts[std::size_t(found - keys.begin())];
    }
  return counts;
}

}  // namespace rmgsort::dist
