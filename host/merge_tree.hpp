// The stable k-way merge of one part (host/multiway_merge.hpp) as a binary tree of 2-way merges,
// each node merging its two children's heads into a small buffer of its own, refilled when the
// parent has taken it all. A record passes ceil(log2 k) nodes, as in a loser tree, but each step is
// one compare of cached rank words and a conditional select in a loop without unpredictable branches
// (a loser tree's matches branch on the data: about one misprediction per level per record), and a
// node's buffer stays in cache while it is merged. The records themselves are copied once, from
// their run to the target: the buffers hold each record's first rank word, its address and (when
// the target takes them) its position.
//
// Ties go to the left child, whose runs precede the right child's in input order, so the merge of
// runs given in input order is stable.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/record_rank.hpp"
#include "host/merge_run.hpp"

namespace rmgsort {

// The bytes of one part's node buffers, together: about a core's L2, so that the buffers near the
// root, which every record passes, stay in cache; each node holds kMergeTreeBudget / (2k entries),
// from kMergeTreeMinEntries (1 KiB per run for k above 1024) to kMergeTreeMaxEntries. Measured with
// merge_runs of 16M u64 keys in k runs, one thread, CPU seconds (2-core Intel Xeon, 2 MiB L2 per
// core), budget / min entries:  k = 8      64     512
//                   256 KiB / 16         0.195  0.383  0.871
//                   1 MiB / 32           0.199  0.383  0.669
//                   2 MiB / 64           0.202  0.388  0.658
// (the loser tree this replaced: 0.594, 1.057, 1.586 wall seconds; 2 runs 0.207 -> 0.093 CPU s).
inline constexpr std::size_t kMergeTreeBudget = std::size_t{1024} << 10;
inline constexpr std::size_t kMergeTreeMinEntries = 32;
inline constexpr std::size_t kMergeTreeMaxEntries = 1024;

// One record in a buffer: its first rank word (the whole key for numbers), where it lies, and its
// position when kPositions.
template <bool kPositions>
struct MergeEntry;
template <>
struct MergeEntry<false> {
  std::uint64_t word;
  const std::byte* record;
};
template <>
struct MergeEntry<true> {
  std::uint64_t word;
  const std::byte* record;
  std::uint64_t position;
};

template <class Rank, bool kPositions>
class MergeTree {
 public:
  using Entry = MergeEntry<kPositions>;

  // PIECES: the runs to merge, in input order (a lower index wins a tie), at least one. Positions are counted from each run's first_position
  // or read after each record (MergeRun::carries_positions).
  MergeTree(const Rank& rank, std::vector<MergeRun> pieces) : rank_(rank), pieces_(std::move(pieces)) {
    const std::size_t k = pieces_.size();
    // Heap layout: node 1 is the root, node n's children are 2n and 2n + 1; the k leaves are nodes
    // k .. 2k - 1 (any k: every internal node then has two children). Left to right, the leaves are
    // those of the deepest level, nodes p2 .. 2k - 1 (p2 the least power of two >= k), then nodes
    // k .. p2 - 1 of the level above: the pieces are laid out in that order, so that every node's
    // left subtree holds earlier pieces than its right one.
    entries_ = std::clamp(kMergeTreeBudget / (2 * k * sizeof(Entry)), kMergeTreeMinEntries, kMergeTreeMaxEntries);
    nodes_.resize(2 * k);
    buffers_.resize(2 * k * entries_);
    const std::size_t p2 = std::bit_ceil(k), deep = 2 * k - p2;  // leaves on the deepest level
    for (std::size_t i = 0; i < k; ++i) nodes_[i < deep ? p2 + i : k + (i - deep)].piece = i;
  }

  // Hands the merged entries, in order, to EMIT (called with each Entry); the tree is used up.
  template <class Emit>
  void drain(Emit&& emit) {
    const std::size_t root = 1;  // (a leaf when k is 1)
    for (;;) {
      Node& node = nodes_[root];
      if (node.head == node.tail) {
        if (node.done) return;
        fill(root);
        continue;
      }
      const Entry* buffer = buffer_of(root);
      for (std::uint32_t i = node.head; i < node.tail; ++i) emit(buffer[i]);
      node.head = node.tail;
    }
  }

 private:
  struct Node {
    std::uint32_t head = 0, tail = 0;  // the entries not yet taken: buffer [head, tail)
    bool done = false;                 // the subtree is used up (once the buffer is empty, nothing is left)
    std::size_t piece = SIZE_MAX;      // a leaf's piece
    std::uint64_t next = 0;            // a leaf's next record in its piece
  };

  Entry* buffer_of(std::size_t node) { return buffers_.data() + node * entries_; }

  // Right's head comes before left's: by the first words, then the rest of the key; a tie keeps
  // left first.
  [[nodiscard]] bool before(const Entry& right, const Entry& left) const {
    if (rank_.words() == 1 || right.word != left.word) return right.word < left.word;
    for (int w = 1; w < rank_.words(); ++w) {
      const std::uint64_t p = rank_.word(right.record, w), q = rank_.word(left.record, w);
      if (p != q) return p < q;
    }
    return false;
  }

  // Node N's buffer emptied and refilled from its children (or its piece); done when nothing is left.
  void fill(std::size_t n) {
    Node& node = nodes_[n];
    Entry* out = buffer_of(n);
    node.head = node.tail = 0;
    if (node.piece != SIZE_MAX) {
      fill_leaf(node, out);
      return;
    }
    Node& left = nodes_[2 * n];
    Node& right = nodes_[2 * n + 1];
    std::uint32_t filled = 0;
    while (filled < entries_) {
      if (left.head == left.tail && !left.done) fill(2 * n);
      if (right.head == right.tail && !right.done) fill(2 * n + 1);
      const std::uint32_t l_left = left.tail - left.head, r_left = right.tail - right.head;
      if (l_left == 0 && r_left == 0) break;  // both children used up
      const Entry* l = buffer_of(2 * n) + left.head;
      const Entry* r = buffer_of(2 * n + 1) + right.head;
      Entry* o = out + filled;
      const std::uint32_t room = std::uint32_t(entries_) - filled;
      if (l_left == 0 || r_left == 0) {  // one child is used up: the other's entries are copied
        const std::uint32_t take = std::min(room, l_left + r_left);
        std::memcpy(static_cast<void*>(o), l_left ? l : r, take * sizeof(Entry));
        (l_left ? left : right).head += take;
        filled += take;
        continue;
      }
      // Neither child can run out within `steps` selections: no bounds are tested in the loop.
      const std::uint32_t steps = std::min(room, std::min(l_left, r_left));
      const Entry* const l_begin = l;
      const Entry* const r_begin = r;
      // The select indexes an array: GCC turned `take_right ? r : l` into a branch, which the data
      // mispredicts half the time (16M u64 keys in 8 runs, one thread: 0.287 CPU s with the branch,
      // 0.199 s without).
      for (std::uint32_t s = 0; s < steps; ++s) {
        const std::size_t take_right = before(*r, *l) ? 1 : 0;
        const Entry* heads[2] = {l, r};
        o[s] = *heads[take_right];
        r += take_right;
        l += 1 - take_right;
      }
      left.head += std::uint32_t(l - l_begin);
      right.head += std::uint32_t(r - r_begin);
      filled += steps;
    }
    node.tail = filled;
    node.done = filled == 0;
  }

  void fill_leaf(Node& node, Entry* out) {
    const MergeRun& piece = pieces_[node.piece];
    const std::uint64_t take = std::min<std::uint64_t>(entries_, piece.count - node.next);
    const std::byte* record = piece.record(node.next);
    for (std::uint64_t i = 0; i < take; ++i, record += piece.stride) {
      if constexpr (kPositions) {
        std::uint64_t position = piece.first_position + node.next + i;
        // (A run that carries positions has each one in the 8 bytes that end its record's stride.)
        if (piece.carries_positions) std::memcpy(&position, record + piece.stride - 8, 8);
        out[i] = Entry{rank_.word(record, 0), record, position};
      } else {
        out[i] = Entry{rank_.word(record, 0), record};
      }
    }
    node.next += take;
    node.tail = std::uint32_t(take);
    node.done = take == 0;
  }

  Rank rank_;
  std::vector<MergeRun> pieces_;
  std::vector<Node> nodes_;
  std::size_t entries_;         // per node buffer
  std::vector<Entry> buffers_;  // node n's at n * entries_
};

}  // namespace rmgsort
