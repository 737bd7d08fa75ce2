// The bytes of a generated record outside its key (its payload), so that a sorted file shows both
// stability and permutation: the payload starts with the record's index i.
//
//   any layout      the payload (the record's bytes before the key, then those after it) is i as a
//                   u64, little-endian (its low bytes, when fewer than 8 fit), then filler: the
//                   bytes, little-endian, of draws 0, 1, 2, ... of KeyRandom(payload_stream(seed), i)
//   Sort Benchmark  bytes:10 at offset 0 of 100-byte records, laid out as gensort (the Sort
//                   Benchmark's generator) lays out its binary records: the key, 0x00 0x11, i as 32
//                   upper-case hex digits, 0x88 0x99 0xAA 0xBB, 48 bytes of filler (12 hex digits
//                   of 48 random bits, each repeated 4 times), 0xCC 0xDD 0xEE 0xFF. gensort takes
//                   its filler from the bits its key was cut from; here the 48 bits are the low
//                   bits of draw 0 of the payload stream.
//
// Record i's payload is a pure function of (layout, seed, i), like its key.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/record_layout.hpp"

namespace rmgsort::detail {

// The stream the payloads draw from: splitmix64's second output for `seed` (the keys draw from the
// first, generate/number_keys.hpp).
[[nodiscard]] std::uint64_t payload_stream(std::uint64_t seed);

// bytes:10 keys at offset 0 of 100-byte records: the Sort Benchmark's records.
[[nodiscard]] constexpr bool is_sort_benchmark_layout(const RecordLayout& layout) {
  return layout.key_type == KeyType::bytes && layout.key_size == 10 && layout.record_size == 100 &&
         layout.key_offset == 0;
}

class RecordPayload {
 public:
  RecordPayload(const RecordLayout& layout, std::uint64_t seed);

  // Writes record I's payload into RECORD (record_size bytes), leaving its key's bytes as they are.
  void write(std::uint64_t i, std::byte* record) const;

 private:
  void write_any(std::uint64_t i, std::byte* record) const;
  void write_sort_benchmark(std::uint64_t i, std::byte* record) const;

  RecordLayout layout_;
  std::uint64_t stream_;
  bool sort_benchmark_;
};

}  // namespace rmgsort::detail
