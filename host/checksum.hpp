// An order-independent 128-bit checksum of a multiset of keys, or of whole records: the count and
// two sums (mod 2^64) of independent 64-bit hashes of each key's (record's) bytes. Equal multisets
// give equal checksums; a different multiset collides with probability about 2^-128 unless built on
// purpose. Being a sum, it can be computed over any split of the keys, in any order, and combined
// (like valsort's sum of the records' CRC32s, with wider hashes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rmgsort {

struct KeyChecksum {
  std::uint64_t keys = 0;  // keys, or records
  std::uint64_t low = 0;
  std::uint64_t high = 0;

  KeyChecksum& operator+=(const KeyChecksum& other) {
    keys += other.keys;
    low += other.low;
    high += other.high;
    return *this;
  }
  friend bool operator==(const KeyChecksum&, const KeyChecksum&) = default;

  // 32 hex digits: high then low.
  [[nodiscard]] std::string hex() const;
};

// Checksum of `bytes / key_width` keys of `key_width` (4 or 8) bytes each at `data`; bytes must be
// a multiple of key_width. Parallel (oneTBB) above a few hundred KiB.
[[nodiscard]] KeyChecksum checksum_keys(const std::byte* data, std::uint64_t bytes, std::size_t key_width);

// Checksum of the `bytes / record_size` records of `record_size` (any, at least 1) bytes each at
// `data`, each record hashed whole (key and payload); bytes must be a multiple of record_size.
// Records of 4 or 8 bytes get checksum_keys()'s checksum, so a file of bare keys has one checksum
// however it is described. Parallel (oneTBB) above a few hundred KiB.
[[nodiscard]] KeyChecksum checksum_records(const std::byte* data, std::uint64_t bytes, std::size_t record_size);

}  // namespace rmgsort
