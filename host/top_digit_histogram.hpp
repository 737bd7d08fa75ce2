// The top-digit histogram of partition_into_rounds (host/round_partition.hpp): how many keys have
// each value of their top 16 encoded radix bits (KeyOrder<T, order>::encode), counted apart for
// every chunk of the partition (host/partition_chunks.hpp), plus the OR and AND of all encoded keys.
// It is the partition's first pass, and it can be filled while the keys arrive instead: a reader's
// callback adds each range of keys (or bytes) as it lands, from any thread, in any order, and
// partition_into_rounds then skips its counting pass. Both ways run the same counting code, so the
// counts are the same integers, and so are the partition's rounds and output. It takes the key type
// at run time (KeyType), as app/ knows it, so that one object can be filled by read_file's callback
// and handed to the partition without a template around both.
//
//   TopDigitHistogram histogram(KeyType::u64, SortOrder::ascending, keys);
//   read_file(input, buffer, bytes, options, [&](std::uint64_t offset, const std::byte* data, std::size_t length) {
//     histogram.add_bytes(offset, data, length);
//   });
//   histogram.finish();
//   partition_into_rounds(keys_in, out, keys, SortOrder::ascending, capacity, &stats, &histogram);
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "core/key_order.hpp"
#include "core/key_type.hpp"
#include "host/partition_chunks.hpp"

namespace rmgsort {

class TopDigitHistogram {
 public:
  static constexpr int kDigitBits = 16;
  static constexpr std::size_t kDigits = std::size_t{1} << kDigitBits;
  // One chunk's counters: kDigits 32-bit counts.
  static constexpr std::size_t kChunkBytes = kDigits * sizeof(std::uint32_t);

  // The counters of every chunk of `count` keys take storage_bytes(count) bytes (256 KiB a chunk, at
  // most 64 MiB while count < 2^40); besides, each thread that adds keys holds 256 KiB of its own
  // until finish().
  [[nodiscard]] static std::uint64_t storage_bytes(std::uint64_t count) {
    return PartitionChunks(count).chunks() * std::uint64_t{kChunkBytes};
  }

  // A histogram of `count` keys of `type`, counted for `order`, empty. `storage`, when given, holds
  // the counters (storage_bytes(count) bytes, any alignment, owned by the caller and not otherwise
  // used until this object is gone); otherwise they are allocated here.
  TopDigitHistogram(KeyType type, SortOrder order, std::uint64_t count, std::byte* storage = nullptr);
  ~TopDigitHistogram();
  TopDigitHistogram(const TopDigitHistogram&) = delete;
  TopDigitHistogram& operator=(const TopDigitHistogram&) = delete;

  // Counts all `count` keys at `keys` (the whole input) with the calling thread's oneTBB arena,
  // chunk by chunk, and finishes: the partition's own first pass. Not with add() or add_bytes().
  void count_all(const std::byte* keys);

  // Thread-safe, from any threads at once, in any order, until finish(): adds keys
  // [first, first + n) of the input, whose bytes begin at `keys` (any alignment). Every key must be
  // added exactly once, whether by add() or add_bytes(). Each thread counts into counters of its
  // own (no shared cache lines) and merges them into a chunk's counters when it moves on to another
  // chunk: readers that deliver each thread's keys in long runs (read_file's parts) merge about
  // once per chunk.
  void add(std::uint64_t first, const std::byte* keys, std::uint64_t n);

  // Thread-safe like add(): adds bytes [offset, offset + length) of the input, whose memory begins at
  // `data` (read_file's BlockCallback, as it is). Ranges need not hold whole keys: the bytes of a key
  // that straddles the ends of a range are kept aside until the rest of the key arrives in other
  // ranges, and it is counted then. The ranges added must not overlap and must lie within the keys'
  // count * width bytes.
  void add_bytes(std::uint64_t offset, const std::byte* data, std::size_t length);

  // After every add() and add_bytes() has returned, not concurrently with them: merges the threads'
  // counters, counts the straddling keys and computes the totals. Throws rmgsort::Error if the keys
  // added are not `count` keys or a straddling key was not completed.
  void finish();

  [[nodiscard]] bool finished() const { return finished_; }
  [[nodiscard]] KeyType type() const { return type_; }
  [[nodiscard]] SortOrder order() const { return order_; }
  [[nodiscard]] std::uint64_t count() const { return chunks_.count(); }
  [[nodiscard]] const PartitionChunks& chunks() const { return chunks_; }

  // Once finished: keys per top digit over all keys (kDigits entries);
  [[nodiscard]] const std::vector<std::uint64_t>& totals() const { return totals_; }
  // the OR and the AND of every encoded key (radix bits; the low 32 bits for 32-bit keys);
  [[nodiscard]] std::uint64_t any_bits() const { return any_; }
  [[nodiscard]] std::uint64_t all_bits() const { return all_; }
  // chunk c's counters (kDigits 32-bit counts, read with load()) and its keys per top 8 bits
  // (256 sums of 256 counters).
  [[nodiscard]] const std::byte* chunk_counts(std::size_t chunk) const { return storage_ + chunk * kChunkBytes; }
  [[nodiscard]] const std::uint32_t* top_byte_sums(std::size_t chunk) const { return byte_sums_.data() + chunk * 256; }

  // Counters live in bytes that may be the caller's keys' buffer: always accessed through memcpy,
  // which may read and write the bytes of any object.
  [[nodiscard]] static std::uint32_t load(const std::byte* counts, std::size_t digit) {
    std::uint32_t value;
    std::memcpy(&value, counts + digit * sizeof value, sizeof value);
    return value;
  }
  static void store(std::byte* counts, std::size_t digit, std::uint32_t value) {
    std::memcpy(counts + digit * sizeof value, &value, sizeof value);
  }

 private:
  struct Counting;  // the counting code of the key type and order, chosen once at construction
  struct Adding;    // what add() and add_bytes() share until finish()
  struct ThreadCounts;

  std::byte* counters_of(std::size_t chunk) { return storage_ + chunk * kChunkBytes; }
  void merge(ThreadCounts& local);
  void keep_partial(std::uint64_t key, std::size_t first_byte, const std::byte* data, std::size_t length);
  void sum_totals();

  KeyType type_;
  SortOrder order_;
  std::size_t width_;
  PartitionChunks chunks_;
  const Counting* counting_;
  std::unique_ptr<std::byte[]> owned_;
  std::byte* storage_;
  std::vector<std::uint32_t> byte_sums_;
  std::vector<std::uint64_t> totals_;
  std::uint64_t any_ = 0, all_ = ~std::uint64_t{0};
  bool finished_ = false;
  std::unique_ptr<Adding> adding_;  // until finish()
};

}  // namespace rmgsort
