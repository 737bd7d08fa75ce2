// Where the distributed sort's ranks divide the sorted output, found from histograms that every rank
// counts over its own records and that are summed over all ranks (an MPI_Allreduce; this class
// itself does no communication, so its logic is tested without MPI).
//
// Rank j receives the records of global sorted positions [t_j, t_{j+1}), t_j = floor(j n / P): every
// rank n / P records, +-1. Boundary j (1 <= j < P) is found as a radix select: the first digit (the
// top kFirstDigitBits of the key, as the round partition's top-digit histogram,
// host/top_digit_histogram.hpp) is counted over every record; the bucket that holds t_j is kept and
// its records are counted by their next digit (kDigitBits), and so on, only in the buckets that hold
// a boundary, until the key's last bit: the boundary's bucket is then one key value v_j, and
// `below` the records of smaller keys. t_j - below of the records of key v_j, the first in global
// input order (the sort is stable), go before the boundary, the rest after it
// (dist/destinations.hpp).
//
// A level costs one pass over the rank's records and one sum of (distinct buckets held) x 2^digit
// counters: 2^16 at the first level, then at most (P - 1) x 256 (2^16 a bucket for 2 or 3 ranks).
// Once the buckets hold few records, the keys in them can be collected (collect()) and the later
// levels counted over those alone (count_keys()): dist/boundary_candidates.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "dist/rank_key.hpp"

namespace rmgsort::dist {

// floor(rank x total / ranks): where rank's part of TOTAL things starts (128-bit product, exact).
[[nodiscard]] inline std::uint64_t part_start(std::uint64_t total, int ranks, int rank) {
  return std::uint64_t((unsigned __int128)total * unsigned(rank) / unsigned(ranks));
}

// One boundary of the sorted output: the global sorted position it is at, and once the search is
// done, the key of the record there and the records of smaller keys.
struct Boundary {
  std::uint64_t target = 0;  // t_j
  RankKey value{};           // the prefix found so far; the key v_j once done
  std::uint64_t below = 0;   // records whose key ranks before every key with this prefix
  // Records of key `value` that go before the boundary (once done): the first ones in input order.
  [[nodiscard]] std::uint64_t equal_before() const { return target - below; }
};

class BoundarySearch {
 public:
  static constexpr int kFirstDigitBits = 16;  // the round partition's top digit
  // Later digits: 8 bits keep a level's sum at (P - 1) x 2 KiB; a 16-bit digit halves the levels
  // (u64: 4 instead of 7) but sums 512 KiB a bucket, and each counting thread holds as much: so only
  // while the boundaries lie in at most kWideBuckets buckets (2 or 3 ranks: 1 MiB a thread).
  static constexpr int kDigitBits = 8;
  static constexpr int kWideDigitBits = 16;
  static constexpr std::size_t kWideBuckets = 2;

  // The P - 1 boundaries of TOTAL records (every rank's together) over RANKS ranks, keys of LAYOUT.
  BoundarySearch(std::uint64_t total, int ranks, const RecordLayout& layout, SortOrder order);

  // Every boundary's bucket is one key value (or there is none to find: one rank, no record).
  [[nodiscard]] bool done() const { return bit_ >= bits_ || boundaries_.empty() || total_ == 0; }
  // The current level's digit, and the counters one rank's histogram has: buckets() x 2^digit.
  // (A digit never straddles two words of the key: a wide one only where it ends in its word.)
  [[nodiscard]] int digit_bits() const {
    if (bit_ == 0) return kFirstDigitBits;
    const bool wide = buckets_.size() <= kWideBuckets && bit_ % 64 + kWideDigitBits <= 64;
    return wide ? kWideDigitBits : kDigitBits;
  }
  [[nodiscard]] std::size_t counters() const { return buckets_.size() << digit_bits(); }
  // The distinct prefixes the boundaries are in at this level, ascending.
  [[nodiscard]] const std::vector<RankKey>& buckets() const { return buckets_; }
  [[nodiscard]] int level_bit() const { return bit_; }

  // Adds to COUNTS (counters() of them) the digits of the COUNT records at RECORDS whose key lies in
  // one of buckets(): counts[bucket << digit_bits() | digit]. Parallel (oneTBB).
  void count(const std::byte* records, std::uint64_t count, std::span<std::uint64_t> counts) const;
  // count() of COUNT keys given as rank words (key_words() words a key, as rank_key() makes them).
  void count_keys(const std::uint64_t* keys, std::uint64_t count, std::span<std::uint64_t> counts) const;
  // Appends to KEYS the rank words (key_words() a key) of those of the COUNT records at RECORDS whose
  // key lies in one of buckets(). On the calling thread.
  void collect(const std::byte* records, std::uint64_t count, std::vector<std::uint64_t>& keys) const;
  // After advance(): how many of the records LEVEL_COUNTS counted (one rank's counts of the level just
  // advanced) lie in the new buckets(): what collect() would collect from them.
  [[nodiscard]] std::uint64_t held(std::span<const std::uint64_t> level_counts) const;
  // Takes the level's counts summed over every rank: each boundary moves into the digit that holds
  // its target, and the next level's buckets are made.
  void advance(std::span<const std::uint64_t> global_counts);

  // Once done(): ascending by target (and so by value).
  [[nodiscard]] const std::vector<Boundary>& boundaries() const { return boundaries_; }

 private:
  void make_buckets();

  std::uint64_t total_;
  RecordLayout layout_;
  SortOrder order_;
  int bits_;
  int bit_ = 0;
  std::vector<Boundary> boundaries_;
  std::vector<RankKey> buckets_;
  std::vector<std::size_t> held_cells_;  // the last level's counters of the new buckets
};

}  // namespace rmgsort::dist
