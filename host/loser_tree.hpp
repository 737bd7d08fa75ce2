// A tournament tree of losers over the heads of k sorted sources: the smallest head in
// ceil(log2 k) comparisons per record taken, each usually one comparison of two cached 64-bit rank
// words (core/record_rank.hpp). Ties go to the source of the lower index, so a merge of sources
// given in input order is stable. The tree keeps, for each internal node, the source that lost the
// match played there; taking the winner's record and replaying its path to the root is all a step
// costs (Knuth, TAOCP 3, 5.4.1). Each node keeps its loser's first word, so a match reads one node.
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
    // two children). nodes_[0] holds the overall winner.
    nodes_.assign(k, Node{});
    std::vector<Node> winners(2 * k);
    for (std::size_t i = 0; i < k; ++i) winners[k + i] = node_of(std::uint32_t(i));
    for (std::size_t node = k - 1; node >= 1; --node) {
      Node a = winners[2 * node], b = winners[2 * node + 1];
      if (beats(b, a)) std::swap(a, b);
      winners[node] = a;
      nodes_[node] = b;
    }
    nodes_[0] = k > 1 ? winners[1] : winners[k];
  }

  // The source whose head comes first (never an exhausted one while any record is left).
  [[nodiscard]] std::uint32_t winner() const { return source_of(nodes_[0]); }
  [[nodiscard]] const LoserTreeLeaf& leaf(std::uint32_t source) const { return leaves_[source]; }

  // Takes the winner's head: its source moves on one record, and the matches on its path are replayed.
  void pop() {
    const std::uint32_t source = source_of(nodes_[0]);
    LoserTreeLeaf& leaf = leaves_[source];
    leaf.at += leaf.stride;
    ++leaf.position;
    load(leaf);
    Node w = node_of(source);
    for (std::size_t node = (source + nodes_.size()) >> 1; node > 0; node >>= 1) {
      if (beats(nodes_[node], w)) std::swap(nodes_[node], w);
    }
    nodes_[0] = w;
  }

 private:
  // A source and its head's first rank word, kept together in the tree so that a match reads one
  // node rather than two leaves. `order` breaks ties of words: the source, or for an exhausted
  // source (whose word is the largest) the source plus k, so that it loses to a real key of that word.
  struct Node {
    std::uint64_t word = 0;
    std::uint64_t order = 0;
  };

  [[nodiscard]] Node node_of(std::uint32_t source) const {
    return Node{leaves_[source].word, leaves_[source].done ? source + leaves_.size() : source};
  }
  [[nodiscard]] std::uint32_t source_of(const Node& node) const {
    return std::uint32_t(node.order >= leaves_.size() ? node.order - leaves_.size() : node.order);
  }

  void load(LoserTreeLeaf& leaf) const {
    leaf.done = leaf.at >= leaf.end;
    leaf.word = leaf.done ? std::numeric_limits<std::uint64_t>::max() : rank_.word(leaf.at, 0);
  }

  // Source a's head comes before source b's: by the first words; then, for a live pair, the rest of
  // the key; then the order (an exhausted source last).
  [[nodiscard]] bool beats(const Node& a, const Node& b) const {
    if (a.word != b.word) return a.word < b.word;
    if (a.order < leaves_.size() && b.order < leaves_.size()) {
      const std::byte* x = leaves_[a.order].at;
      const std::byte* y = leaves_[b.order].at;
      for (int w = 1; w < rank_.words(); ++w) {
        const std::uint64_t p = rank_.word(x, w), q = rank_.word(y, w);
        if (p != q) return p < q;
      }
    }
    return a.order < b.order;
  }

  Rank rank_;
  std::vector<LoserTreeLeaf> leaves_;
  std::vector<Node> nodes_;  // nodes_[i], i >= 1: the loser of the match at internal node i
};

}  // namespace rmgsort
