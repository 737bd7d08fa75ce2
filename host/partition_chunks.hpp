// The chunks every pass of partition_into_rounds (host/round_partition.hpp) splits the keys into, and
// that a TopDigitHistogram (host/top_digit_histogram.hpp) counts apart: keys
// [c * keys_per_chunk(), min((c + 1) * keys_per_chunk(), count)), a function of the key count only,
// so that neither the histograms nor the partition's output depend on the thread count or on the
// order in which a reader delivers the keys. host/chunk_buckets.hpp counts and scatters by them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "host/round_partition_config.hpp"

namespace rmgsort {

class PartitionChunks {
 public:
  explicit PartitionChunks(std::uint64_t count) : count_(count) {
    using partition_config::kMaxChunks;
    using partition_config::kMinChunkKeys;
    // At least kMinChunkKeys keys, at most kMaxChunks chunks, and never more keys than a 32-bit
    // per-chunk counter holds.
    const std::uint64_t chunks = std::max<std::uint64_t>(
        std::clamp<std::uint64_t>((count + kMinChunkKeys - 1) / kMinChunkKeys, 1, kMaxChunks),
        (count + UINT32_MAX - 1) / UINT32_MAX);
    keys_ = std::max<std::uint64_t>(64, ((count + chunks - 1) / chunks + 63) / 64 * 64);  // on cache lines
    chunks_ = std::size_t((count + keys_ - 1) / keys_);
  }

  // Chunks of exactly `keys_per_chunk` keys but the last, for a pass whose chunks need not carry a
  // top-digit histogram each (the spill path's: many small chunks, so that every thread has some).
  [[nodiscard]] static PartitionChunks of_size(std::uint64_t count, std::uint64_t keys_per_chunk) {
    PartitionChunks chunks(0);
    chunks.count_ = count;
    chunks.keys_ = std::max<std::uint64_t>(1, keys_per_chunk);
    chunks.chunks_ = std::size_t((count + chunks.keys_ - 1) / chunks.keys_);
    return chunks;
  }

  [[nodiscard]] std::uint64_t count() const { return count_; }
  [[nodiscard]] std::size_t chunks() const { return chunks_; }  // 0 for no keys
  [[nodiscard]] std::uint64_t keys_per_chunk() const { return keys_; }
  [[nodiscard]] std::uint64_t begin(std::size_t chunk) const { return chunk * keys_; }
  [[nodiscard]] std::uint64_t end(std::size_t chunk) const { return std::min(count_, (chunk + 1) * keys_); }
  [[nodiscard]] std::uint64_t size(std::size_t chunk) const { return end(chunk) - begin(chunk); }
  [[nodiscard]] std::size_t chunk_of(std::uint64_t key) const { return std::size_t(key / keys_); }

 private:
  std::uint64_t count_;
  std::uint64_t keys_ = 64;
  std::size_t chunks_ = 0;
};

}  // namespace rmgsort
