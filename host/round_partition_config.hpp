// Tuning of partition_into_rounds (host/round_partition.hpp) and of the TopDigitHistogram that counts
// its first pass (host/top_digit_histogram.hpp), in one place (for --stats). Measured on the 2-core
// machine without GPU (AMD EPYC, 1 MiB L2 per core), 2^28 uniform u64, capacity 2^25, unless said
// otherwise.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rmgsort::partition_config {

// Every pass splits the keys into chunks of a fixed size that depends on the key count alone (so
// the output does not depend on the thread count; host/partition_chunks.hpp): at least
// kMinChunkKeys keys, at most kMaxChunks chunks. Each chunk keeps its 2^16-counter top-digit
// histogram (256 KiB, stored in `out` or in a TopDigitHistogram counted while reading) until the
// scatter, where it gives the chunk's destination in every bucket. 2^20 keys make the per-chunk
// work on the histograms (zero, sum, map to buckets) a few percent of counting the keys.
inline constexpr std::uint64_t kMinChunkKeys = std::uint64_t{1} << 20;
inline constexpr std::size_t kMaxChunks = 256;

// The scatter's write-combining buffer per bucket per thread: one block of `out`, a power of two of
// bytes aligned to its size; a full block goes out with non-temporal stores. Non-temporal 256-byte
// blocks spread over 9 streams wrote 2 GiB in 175 ms, 1 KiB blocks in 95 ms (as fast as one stream).
// (64-byte AVX-512 stores instead of 16-byte SSE2 ones: no difference, 2^26 keys, 75 ms either way.)
// On a 16-core Intel Xeon host, 2^30 uniform u64 keys in 9 and 65 rounds, two turns: 256 B to 4 KiB
// blocks all within the turns' spread (scatter 310-331 ms, 421-472 ms), ordinary stores instead of
// non-temporal ones 1.15x slower (364-389 ms, 514-554 ms).
inline constexpr std::size_t kWriteCombiningBytes = 1024;

// A refinement pass counts at most this many digits (4 MiB of 32-bit counters per chunk, or per
// thread when `out` has no room), so heavy digits beyond 16 full tables wait for another pass.
inline constexpr std::size_t kMaxRefinementDigits = std::size_t{1} << 20;

static_assert(kWriteCombiningBytes >= 64 && (kWriteCombiningBytes & (kWriteCombiningBytes - 1)) == 0,
              "write-combining blocks are whole, power-of-two numbers of cache lines");
static_assert(kMinChunkKeys % 64 == 0, "chunks begin on cache lines");

}  // namespace rmgsort::partition_config
