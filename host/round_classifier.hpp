// The classification behind partition_into_rounds (host/round_partition.hpp): the tree of 16-bit
// digit tables over the encoded radix bits that the counting passes build, the greedy packing of
// their digits into rounds that decides the cuts and the scatter buckets, and the two routers that
// send a key to its bucket in the hot loops.
//
// Table 0 (the root) counts keys by their top 16 bits. A digit holding more keys than a round
// ("heavy") gets a child table that counts its keys by lower bits, and so on. Buckets are the groups
// of consecutive digits packed into one round, plus one bucket per single value with more keys than
// a round (a "run", cut wherever the capacity says): about as many buckets as rounds, so the
// scatter's write-combining buffers, one per bucket, stay in L1. Every bucket is a contiguous range
// of encoded keys, starting at its `bucket_low`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "host/round_partition.hpp"

namespace rmgsort {

// A route entry: a bucket, or kToTable | the index of the child table that splits the digit.
inline constexpr std::uint32_t kToTable = 0x80000000u;

template <class Bits>
struct DigitTable {
  // Every key of the table has the bits `prefix` at and above bit top() (and no key elsewhere
  // does); the table counts them by bits [shift, top()).
  int shift = 0;
  int width = 0;
  Bits prefix = 0;
  // Once its pass has counted the keys: the bits in which they differ, and the AND of all of them
  // (which holds the bits they share), so that a child needs only the differing bits below this
  // table's digit and knows the others.
  Bits differing = 0;
  Bits common = 0;
  std::vector<std::uint64_t> counts;  // keys per digit
  std::vector<std::uint32_t> route;   // per digit: bucket, or kToTable | child table

  [[nodiscard]] int top() const { return shift + width; }
  [[nodiscard]] std::size_t digits() const { return std::size_t{1} << width; }
  [[nodiscard]] Bits mask() const { return Bits((std::uint64_t{1} << width) - 1); }
};

// Which scatter bucket a key goes to, and where the buckets begin.
template <class Bits>
struct BucketPlan {
  RoundPlan rounds;
  std::vector<std::uint64_t> begin;  // each bucket's first position, then the key count
  std::vector<Bits> low;             // each bucket's lowest encoded key (0 for the first)
  [[nodiscard]] std::size_t buckets() const { return low.size(); }
};

template <class Bits>
class RoundClassifier {
 public:
  static constexpr int kKeyBits = 8 * sizeof(Bits);
  static constexpr int kDigitBits = 16;
  static constexpr std::size_t kRootDigits = std::size_t{1} << kDigitBits;

  // The root table: `top_digit_counts` (kRootDigits entries) counts the keys by their top 16 bits;
  // `differing` and `common` as in DigitTable, over all keys.
  RoundClassifier(std::vector<std::uint64_t> top_digit_counts, Bits differing, Bits common,
                  std::uint64_t round_capacity);

  // Creates a child table for every heavy digit of the `counted` tables (whose counts, `differing`
  // and `common` are complete) that may hold more than one value; returns the new tables, which a
  // refinement pass must count next. A heavy digit whose keys agree on every bit below it is one
  // value: it gets no table and becomes a run.
  std::vector<std::uint32_t> add_children(const std::vector<std::uint32_t>& counted);

  // Packs the digits into rounds greedily, in key order, and routes every digit to its bucket.
  BucketPlan<Bits> plan();

  [[nodiscard]] DigitTable<Bits>& table(std::uint32_t index) { return tables_[index]; }
  [[nodiscard]] std::size_t tables() const { return tables_.size(); }
  // True when some digit was refined: then a bucket is not a set of top digits.
  [[nodiscard]] bool refined() const { return tables_.size() > 1; }

 private:
  class Packer;
  void route_digits(std::uint32_t index, Packer& packer);

  std::uint64_t capacity_;
  std::vector<DigitTable<Bits>> tables_;
};

// The router of a tree without refinement, where a bucket is a range of top digits. A 256-entry
// table of the top 8 bits (1 KiB, in L1) answers for every top byte whose top digits all go to one
// bucket; only the few others (about one per round boundary) look up the 256 KiB root route, which
// would otherwise cost an L1 miss per key (scatter of 2^28 uniform u64, 2 threads: 340 ms through
// the root route alone, 220 ms through the top byte).
template <class Bits>
class TopDigitRouter {
 public:
  static constexpr int kTopByteShift = 8 * sizeof(Bits) - 8;
  static constexpr int kRootShift = 8 * sizeof(Bits) - 16;

  explicit TopDigitRouter(const std::vector<std::uint32_t>& root_route);

  [[nodiscard]] std::uint32_t bucket_of(Bits encoded) const {
    const std::uint32_t direct = top_byte_[encoded >> kTopByteShift];
    if (!(direct & kToTable)) [[likely]] return direct;
    return root_route_[encoded >> kRootShift];
  }
  // (The same interface as SplitterRouter's.)
  void buckets_of4(const Bits* encoded, std::uint32_t* buckets) const {
    for (int k = 0; k < 4; ++k) buckets[k] = bucket_of(encoded[k]);
  }
  // The bucket of every key whose top byte is `byte`, or kToTable when they differ.
  [[nodiscard]] std::uint32_t top_byte(std::size_t byte) const { return top_byte_[byte]; }

 private:
  std::uint32_t top_byte_[256];
  const std::uint32_t* root_route_;
};

// The router of a refined tree: a branch-free search for the last bucket whose lowest key is not
// above the key, over an implicit binary tree (Eytzinger layout) of the buckets' lowest keys, in L1
// for any realistic bucket count. Unlike a walk down the digit tables, it costs the same for every
// key whatever the depth of its digit (zipf:1.0 keys spread over 1 to 4 levels: 10 ns a key by the
// tables, mispredicted branches and dependent lookups, against ~2 ns here).
template <class Bits>
class SplitterRouter {
 public:
  explicit SplitterRouter(const std::vector<Bits>& bucket_low);

  [[nodiscard]] std::uint32_t bucket_of(Bits encoded) const {
    std::size_t node = 1;
    for (int level = 0; level < levels_; ++level) node = 2 * node + std::size_t(encoded >= tree_[node]);
    return std::uint32_t(node - first_leaf_);
  }
  // Four searches interleaved level by level, so that their loads overlap.
  void buckets_of4(const Bits* encoded, std::uint32_t* buckets) const {
    std::size_t n0 = 1, n1 = 1, n2 = 1, n3 = 1;
    for (int level = 0; level < levels_; ++level) {
      n0 = 2 * n0 + std::size_t(encoded[0] >= tree_[n0]);
      n1 = 2 * n1 + std::size_t(encoded[1] >= tree_[n1]);
      n2 = 2 * n2 + std::size_t(encoded[2] >= tree_[n2]);
      n3 = 2 * n3 + std::size_t(encoded[3] >= tree_[n3]);
    }
    buckets[0] = std::uint32_t(n0 - first_leaf_);
    buckets[1] = std::uint32_t(n1 - first_leaf_);
    buckets[2] = std::uint32_t(n2 - first_leaf_);
    buckets[3] = std::uint32_t(n3 - first_leaf_);
  }

 private:
  std::vector<Bits> tree_;  // node n >= 1 holds the lowest key of its right subtree's first leaf
  int levels_ = 0;
  // Leaf l of the tree is node leaves + l; the buckets are the last leaves, after padding leaves
  // whose lowest key is 0 like the first bucket's, so that a search never ends on a pad:
  // bucket b is node first_leaf_ + b.
  std::size_t first_leaf_ = 1;
};

}  // namespace rmgsort
