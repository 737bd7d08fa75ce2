// A tournament tree of losers over the heads of k sorted sources: the smallest head in
// ceil(log2 k) comparisons per record taken, each usually one comparison of two cached 64-bit rank
// words (core/record_rank.hpp). Ties go to the source of the lower index, so a merge of sources
// given in input order is stable. The tree keeps, for each internal node, the source that lost the
// match played there; taking the winner's record and replaying its path to the root is all a step
// costs (Knuth, TAOCP 3, 5.4.1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "core/record_rank.hpp"

namespace rmgsort {

// One source's head. An exhausted source's word is the largest there is and `done` is set; it
// loses to every other source (tie() tells it from a real key of that word).
struct LoserTreeLeaf {
  const std::byte* at = nullptr;   // the head record
  const std::byte* end = nullptr;  // past the last record
  std::size_t stride = 0;
  std::uint64_t word = 0;          // the head's first rank word
  std::uint64_t position = 0;      // the head's position, when the source counts them (MergeRun)
  bool done = false;
};

template <class Rank>
class LoserTree {
 public:
  // LEAVES: the sources in input order (a lower index wins a tie); each non-empty ([at, end) holds
  // whole records of its stride). RANK reads the keys.
  LoserTree(const Rank& rank, std::vector<LoserTreeLeaf> leaves) : rank_(rank), leaves_(std::move(leaves)) {
    const std::size_t k = leaves_.size();
    for (LoserTreeLeaf& leaf : leaves_) load(leaf);
    // Heap layout: internal nodes 1 .. k-1, leaf i at node k + i (any k: every internal node has
    // two children). losers_[0] holds the overall winner.
    losers_.assign(k, 0);
    std::vector<std::uint32_t> winners(2 * k);
    for (std::size_t i = 0; i < k; ++i) winners[k + i] = std::uint32_t(i);
    for (std::size_t node = k - 1; node >= 1; --node) {
      std::uint32_t a = winners[2 * node], b = winners[2 * node + 1];
      if (beats(b, a)) std::swap(a, b);
      winners[node] = a;
      losers_[node] = b;
    }
    losers_[0] = k > 1 ? winners[1] : 0;
  }

  // The source whose head comes first (never an exhausted one while any record is left).
  [[nodiscard]] std::uint32_t winner() const { return losers_[0]; }
  [[nodiscard]] const LoserTreeLeaf& leaf(std::uint32_t source) const { return leaves_[source]; }

  // Takes the winner's head: its source moves on one record, and the matches on its path are replayed.
  void pop() {
    std::uint32_t w = losers_[0];
    LoserTreeLeaf& leaf = leaves_[w];
    leaf.at += leaf.stride;
    ++leaf.position;
    load(leaf);
    const std::size_t k = leaves_.size();
    for (std::size_t node = (w + k) >> 1; node > 0; node >>= 1) {
      if (beats(losers_[node], w)) std::swap(losers_[node], w);
    }
    losers_[0] = w;
  }

 private:
  void load(LoserTreeLeaf& leaf) const {
    leaf.done = leaf.at >= leaf.end;
    leaf.word = leaf.done ? std::numeric_limits<std::uint64_t>::max() : rank_.word(leaf.at, 0);
  }

  // Source a's head comes before source b's.
  [[nodiscard]] bool beats(std::uint32_t a, std::uint32_t b) const {
    const LoserTreeLeaf& x = leaves_[a];
    const LoserTreeLeaf& y = leaves_[b];
    if (x.word != y.word) return x.word < y.word;
    return tie(a, b);
  }

  // Equal first words: an exhausted source loses; then the rest of the key; then the lower source.
  [[nodiscard]] bool tie(std::uint32_t a, std::uint32_t b) const {
    const LoserTreeLeaf& x = leaves_[a];
    const LoserTreeLeaf& y = leaves_[b];
    if (x.done || y.done) return !x.done;
    for (int w = 1; w < rank_.words(); ++w) {
      const std::uint64_t p = rank_.word(x.at, w), q = rank_.word(y.at, w);
      if (p != q) return p < q;
    }
    return a < b;
  }

  Rank rank_;
  std::vector<LoserTreeLeaf> leaves_;
  std::vector<std::uint32_t> losers_;
};

}  // namespace rmgsort
