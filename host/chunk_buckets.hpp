// The counting sort both CPU partitions share (host/round_partition.cpp, host/spill_classifier.cpp):
// every chunk of keys (host/partition_chunks.hpp) counts its keys per bucket, the counts become each
// chunk's first destination in every bucket, and every chunk scatters its keys there, all chunks in
// parallel. Bucket b holds chunk 0's keys first, then chunk 1's...: each bucket keeps its keys in
// input order, whatever the thread count.
#pragma once

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "host/partition_chunks.hpp"

namespace rmgsort {

class ChunkBuckets {
 public:
  // count_chunk(chunk, row) adds each of the chunk's keys to row[its bucket] (row: `buckets` zeroed
  // counters of the chunk's own), for every chunk of `chunks` in parallel.
  template <class CountChunk>
  void count(const PartitionChunks& chunks, std::size_t buckets, CountChunk&& count_chunk) {
    chunks_ = chunks.chunks();
    buckets_ = buckets;
    table_.assign(chunks_ * buckets_, 0);
    tbb::parallel_for(std::size_t{0}, chunks_, [&](std::size_t chunk) {
      // Counted apart from table_, whose rows share cache lines with other chunks' rows.
      std::vector<std::uint64_t> row(buckets);
      count_chunk(chunk, row.data());
      std::copy(row.begin(), row.end(), table_.begin() + std::ptrdiff_t(chunk * buckets));
    });
  }

  // Turns the counts into destinations, bucket b from bucket_begin[b] on (buckets + 1 entries, the
  // last the key count; the plan the counts were made for).
  void place(const std::vector<std::uint64_t>& bucket_begin) {
    RMGSORT_EXPECTS(bucket_begin.size() == buckets_ + 1, "a bucket plan for other buckets");
    for (std::size_t b = 0; b < buckets_; ++b) {
      std::uint64_t position = bucket_begin[b];
      for (std::size_t chunk = 0; chunk < chunks_; ++chunk)
        position += std::exchange(table_[chunk * buckets_ + b], position);
      RMGSORT_EXPECTS(position == bucket_begin[b + 1], "the chunks' bucket counts disagree with the plan");
    }
  }

  // The same, the buckets packed one after another from 0: returns where each begins (buckets + 1
  // entries, the last the key count).
  std::vector<std::uint64_t> place_packed() {
    std::vector<std::uint64_t> begin(buckets_ + 1, 0);
    for (std::size_t b = 0; b < buckets_; ++b) {
      begin[b + 1] = begin[b];
      for (std::size_t chunk = 0; chunk < chunks_; ++chunk) begin[b + 1] += table_[chunk * buckets_ + b];
    }
    place(begin);
    return begin;
  }

  // scatter_chunk(chunk, next) moves each of the chunk's keys to next[its bucket]++ (`next`: the
  // chunk's first destinations, placed), for every chunk in parallel.
  template <class ScatterChunk>
  void scatter(ScatterChunk&& scatter_chunk) {
    tbb::parallel_for(std::size_t{0}, chunks_, [&](std::size_t chunk) { scatter_chunk(chunk, row(chunk)); });
  }

  [[nodiscard]] std::size_t buckets() const { return buckets_; }
  // Chunk's counts per bucket until placed, then its first destination in each.
  [[nodiscard]] std::uint64_t* row(std::size_t chunk) { return table_.data() + chunk * buckets_; }

 private:
  std::size_t chunks_ = 0;
  std::size_t buckets_ = 0;
  std::vector<std::uint64_t> table_;  // [chunk][bucket]
};

}  // namespace rmgsort
