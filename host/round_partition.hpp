// CPU MSB partitioning of a buffer of keys into "rounds" for the out-of-core sort (oneTBB): every key
// of round r precedes or equals every key of round r + 1 in KeyOrder, and each round is small enough
// to be sorted on its own (on the GPUs). Built to be memory-bandwidth bound: one read pass that
// counts (or none, when the keys were counted while they were read: host/top_digit_histogram.hpp),
// one pass that reads and writes each key once; skewed inputs add read-only passes (see below). On
// few cores it is compute bound instead: scripts/bench_partition.sh compares it with a parallel
// memcpy of the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/key_order.hpp"
#include "host/round_partition_config.hpp"

namespace rmgsort {

// Rounds of a partitioned buffer: round r is positions [cuts[r], cuts[r+1]); cuts.front() == 0,
// cuts.back() == the key count; every cut lies between two digit ranges or inside a run of one repeated value.
struct RoundPlan {
  std::vector<std::uint64_t> cuts{0};
  [[nodiscard]] std::size_t rounds() const { return cuts.size() - 1; }
  [[nodiscard]] std::uint64_t round_keys(std::size_t r) const { return cuts[r + 1] - cuts[r]; }
};

// Where the time of one call went. histogram_ms: every read-only pass (the top-digit histogram
// unless given, the refinement passes of heavy digits and, when there is one, the bucket counting
// pass); plan_ms: building the classification tables, the cuts and the scatter offsets; scatter_ms:
// the pass that moves the keys. refinement_passes: the read passes beyond the first one that refine
// heavy digits (0 for inputs whose top 16 bits spread them over digits below capacity).
// top_digits_given: the call was given a TopDigitHistogram and did not count the top digits itself.
// bucket_counting_pass: after refinement, a read pass counted each chunk's keys per scatter bucket
// (only when `out` had no room for every chunk's counters of every refined table).
struct RoundPartitionStats {
  double histogram_ms = 0, plan_ms = 0, scatter_ms = 0;
  int refinement_passes = 0;
  bool top_digits_given = false;
  bool bucket_counting_pass = false;
};

class TopDigitHistogram;

// Moves in[0, count) to out[0, count) grouped into rounds of at most round_capacity keys (>= 1) in `order`.
// Uses the calling thread's oneTBB arena (callers limit threads with tbb::task_arena). in and out do not overlap.
// If every key fits one round (count <= round_capacity) it still copies (callers may skip calling it).
//
// Keys are classified by their encoded radix bits (KeyOrder<T, order>::encode), 16 bits a level: a
// histogram of the top 16 bits; a digit holding more than round_capacity keys ("heavy") is refined
// on the bits below it by another read pass, level after level (skipping bits every key of the digit
// shares), until every digit fits a round or holds a single value. Rounds are packed greedily from
// consecutive digits; a single value with more keys than a round is split wherever the capacity
// says. Every pass counts each chunk of keys apart (host/partition_chunks.hpp), so each chunk's
// keys per scatter bucket are sums of its counters; only when `out` has no room for the refinement
// passes' counters of every chunk do they count per thread, and one more read pass counts each
// chunk's keys per bucket. The cuts depend only on the keys, the order and the capacity (not on the
// thread count, nor on whether the top-digit histogram was given); the keys within a round are in
// no particular order but the same for every thread count, and stay in their raw bit patterns.
// Synchronous.
//
// Memory beside in and out: 1 KiB per chunk of keys. The top-digit histogram's counters (256 KiB a
// chunk) and the refinement passes' (4 bytes per chunk per digit of each heavy digit's table, at
// most 2^16 digits and twice its keys) live in `out` until the scatter overwrites them; below 2^16
// keys the top-digit counters take 256 KiB apart, and refinement passes without room there count
// per thread, up to 4 MiB of counters each. 12 bytes per digit of each table; during the scatter, a
// kWriteCombiningBytes buffer per bucket per thread, where the buckets are about the rounds plus
// twice the split values.
// Throws rmgsort::Error if round_capacity is 0.
//
// top_digits, when given, is the finished histogram of exactly these keys, for this key type and
// order (host/top_digit_histogram.hpp, counted while they were read): the call then skips its first
// pass and gives the same rounds and output as without it. Throws rmgsort::Error if it is not
// finished or was counted for another type, order or key count.
template <class T>
RoundPlan partition_into_rounds(const T* in, T* out, std::uint64_t count, SortOrder order,
                                std::uint64_t round_capacity, RoundPartitionStats* stats = nullptr,
                                const TopDigitHistogram* top_digits = nullptr);

}  // namespace rmgsort
