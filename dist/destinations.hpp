// Which rank each record goes to, once the boundaries are found (dist/boundary_search.hpp). A
// record of key k goes past every boundary whose key is smaller than k; where k is a boundary's key
// v_j, the records of key k are counted in global input order, and the first equal_before() of them
// stay before boundary j. So rank j receives exactly the records of sorted positions
// [t_j, t_{j+1}), however many records share a key, and the records of one key keep their input
// order from rank to rank: what a stable sort of one process gives.
//
// A record's place among the records of its key is its rank's records of that key before it plus
// those of every lower rank (an MPI_Exscan of count_boundary_keys()); the classifier then counts on
// as it is given the rank's records in input order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "dist/boundary_search.hpp"
#include "dist/rank_key.hpp"

namespace rmgsort::dist {

// The distinct keys of BOUNDARIES (done), ascending.
[[nodiscard]] std::vector<RankKey> boundary_keys(const std::vector<Boundary>& boundaries);

// How many of the COUNT records at RECORDS have each of KEYS (boundary_keys()). Parallel (oneTBB).
[[nodiscard]] std::vector<std::uint64_t> count_boundary_keys(const std::byte* records, std::uint64_t count,
                                                             const RecordLayout& layout, SortOrder order,
                                                             const std::vector<RankKey>& keys);

class Destinations {
 public:
  // BOUNDARIES found (done); EQUAL_EARLIER[v]: the records of boundary_keys()[v] that precede, in
  // global input order, the first record this classifier will be given; WORDS: key_words() of the
  // layout.
  Destinations(const std::vector<Boundary>& boundaries, std::vector<std::uint64_t> equal_earlier, int words);

  // The rank the next record goes to, given its key; records must come in input order. (Stateful
  // only for the records of a boundary's key.)
  [[nodiscard]] int next(const RankKey& key);
  // The rank of a key that is no boundary's, without next()'s state; -1 for a boundary's key, whose
  // rank next() gives. For a key of one word (key_words() == 1), given as rank_key_word(), among
  // plain integers (30 M u64 keys, 2 ranks, one thread: 0.53 s through RankKeys and next(), 0.28 s
  // so).
  [[nodiscard]] int settled_word(std::uint64_t key) const {
    const auto first = std::lower_bound(value_words_.begin(), value_words_.end(), key);
    if (first == value_words_.end() || *first != key) return int(first - value_words_.begin());
    return -1;
  }
  [[nodiscard]] int settled(const RankKey& key) const {
    const auto first = std::lower_bound(values_.begin(), values_.end(), key, less_);
    if (first == values_.end() || !same_key(*first, key, less_.words)) return int(first - values_.begin());
    return -1;
  }
  // The index in keys() of a boundary's KEY (settled() gave -1).
  [[nodiscard]] std::size_t key_index(const RankKey& key) const {
    return std::size_t(std::lower_bound(keys_.begin(), keys_.end(), key, less_) - keys_.begin());
  }

  [[nodiscard]] const std::vector<RankKey>& keys() const { return keys_; }
  // Per boundary key: its records given so far, and earlier. Replacing them starts the classifier
  // elsewhere in the input (dist/parallel_destinations.hpp gives each block of records its own).
  [[nodiscard]] const std::vector<std::uint64_t>& seen() const { return seen_; }
  void set_seen(std::vector<std::uint64_t> seen) { seen_ = std::move(seen); }

 private:
  KeyLess less_;
  std::vector<RankKey> values_;        // each boundary's key, ascending
  std::vector<std::uint64_t> value_words_;  // their first words
  std::vector<std::uint64_t> before_;  // each boundary's equal_before(), ascending among equal keys
  std::vector<RankKey> keys_;          // the distinct values_
  std::vector<std::uint64_t> seen_;    // per distinct key: records of it given so far, and earlier
};

}  // namespace rmgsort::dist
