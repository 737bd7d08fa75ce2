// CPU MSB partitioning of a buffer of keys into "rounds" for the out-of-core sort (oneTBB): every key
// of round r precedes or equals every key of round r + 1 in KeyOrder, and each round is small enough
// to be sorted on its own (on the GPUs). Built to be memory-bandwidth bound: one read pass that
// counts, one pass that reads and writes each key once; skewed inputs add read-only passes (see
// below). On few cores it is compute bound instead: scripts/bench_partition.sh compares it with a
// parallel memcpy of the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "host/key_order.hpp"

namespace rmgsort {

// Tuning of partition_into_rounds, in one place (for --stats). Measured on the 2-core development
// machine (AMD EPYC, 1 MiB L2 per core), 2^28 uniform u64, capacity 2^25, unless said otherwise.
namespace partition_config {

// Every pass splits the keys into chunks of a fixed size that depends on the key count alone (so
// the output does not depend on the thread count): at least kMinChunkKeys keys, at most kMaxChunks
// chunks. Each chunk keeps its 2^16-counter top-digit histogram (256 KiB, stored in `out`) until the
// scatter, where it gives the chunk's destination in every bucket. 2^20 keys make the per-chunk
// work on the histograms (zero, sum, map to buckets) a few percent of counting the keys.
inline constexpr std::uint64_t kMinChunkKeys = std::uint64_t{1} << 20;
inline constexpr std::size_t kMaxChunks = 256;

// The scatter's write-combining buffer per bucket per thread: one block of `out`, a power of two of
// bytes aligned to its size; a full block goes out with non-temporal stores. Non-temporal 256-byte
// blocks spread over 9 streams wrote 2 GiB in 175 ms, 1 KiB blocks in 95 ms (as fast as one stream).
inline constexpr std::size_t kWriteCombiningBytes = 1024;

// A refinement pass counts at most this many digits per thread (4 MiB of 32-bit counters), so
// heavy digits beyond 16 full tables wait for another pass.
inline constexpr std::size_t kMaxRefinementDigits = std::size_t{1} << 20;

static_assert(kWriteCombiningBytes >= 64 && (kWriteCombiningBytes & (kWriteCombiningBytes - 1)) == 0,
              "write-combining blocks are whole, power-of-two numbers of cache lines");
static_assert(kMinChunkKeys % 64 == 0, "chunks begin on cache lines");

}  // namespace partition_config

// Rounds of a partitioned buffer: round r is positions [cuts[r], cuts[r+1]); cuts.front() == 0,
// cuts.back() == the key count; every cut lies between two digit ranges or inside a run of one repeated value.
struct RoundPlan {
  std::vector<std::uint64_t> cuts{0};
  [[nodiscard]] std::size_t rounds() const { return cuts.size() - 1; }
  [[nodiscard]] std::uint64_t round_keys(std::size_t r) const { return cuts[r + 1] - cuts[r]; }
};

// Where the time of one call went. histogram_ms: every read-only pass (the top-digit histogram, the
// refinement passes of heavy digits and, after refinement, the count of each chunk's keys per
// scatter bucket); plan_ms: building the classification tables, the cuts and the scatter offsets;
// scatter_ms: the pass that moves the keys. refinement_passes: the read passes beyond the first one
// that refine heavy digits (0 for inputs whose top 16 bits spread them over digits below capacity).
struct RoundPartitionStats {
  double histogram_ms = 0, plan_ms = 0, scatter_ms = 0;
  int refinement_passes = 0;
};

// Moves in[0, count) to out[0, count) grouped into rounds of at most round_capacity keys (>= 1) in `order`.
// Uses the calling thread's oneTBB arena (callers limit threads with tbb::task_arena). in and out do not overlap.
// If every key fits one round (count <= round_capacity) it still copies (callers may skip calling it).
//
// Keys are classified by their encoded radix bits (KeyOrder<T, order>::encode), 16 bits a level: a
// histogram of the top 16 bits; a digit holding more than round_capacity keys ("heavy") is refined
// on the bits below it by another read pass, level after level (skipping bits every key of the digit
// shares), until every digit fits a round or holds a single value. Rounds are packed greedily from
// consecutive digits; a single value with more keys than a round is split wherever the capacity
// says. After refinement one more read pass counts each chunk's keys per scatter bucket. The cuts
// depend only on the keys, the order and the capacity (not on the thread count); the keys within a
// round are in no particular order but the same for every thread count, and stay in their raw bit
// patterns. Synchronous.
//
// Memory beside in and out: 1 KiB per chunk of keys (the top-digit histograms themselves live in
// `out` until the scatter overwrites them; below 2^16 keys they take 256 KiB apart); 12 bytes per
// digit of each heavy digit's table (at most 2^16 digits, at most twice its keys); during a
// refinement pass, up to 4 MiB of counters per thread; during the scatter, a kWriteCombiningBytes
// buffer per bucket per thread, where the buckets are about the rounds plus twice the split values.
// Throws rmgsort::Error if round_capacity is 0.
template <class T>
RoundPlan partition_into_rounds(const T* in, T* out, std::uint64_t count, SortOrder order,
                                std::uint64_t round_capacity, RoundPartitionStats* stats = nullptr);

}  // namespace rmgsort
