// The generator behind `rmgsort generate`: writes any slice of a data set of total_count keys, or of
// records holding such keys, drawn from a Distribution, in parallel (oneTBB).
//
// Determinism: key (record) i is a function of (layout, distribution, seed, i, total_count) alone. It
// does not depend on the thread count, nor on how the caller splits [0, total_count) into calls, so a
// file larger than memory can be generated chunk by chunk (and written while the next chunk is
// generated) and still be identical to one generated in a single call. For the distributions that use
// floating-point functions (normal, zipf, nearly-sorted), bit-identical output across machines
// additionally needs the same libm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/key_type.hpp"
#include "core/record_layout.hpp"
#include "generate/distribution.hpp"

namespace rmgsort {

// Throws rmgsort::Error if `dist` cannot produce keys of `key` (bits:B with B above the key's width
// in bits). generate_keys() and generate_records() check this too; callers may check before creating
// any file.
void validate_distribution(const Distribution& dist, KeySpec key);
// The same for a number type (u32 .. f64).
void validate_distribution(const Distribution& dist, KeyType type);

// Throws rmgsort::Error ("cannot generate WHAT [first, first + count) of a data set of N WHAT")
// unless the slice lies inside a data set of total_count.
void check_generate_range(std::uint64_t first_index, std::uint64_t count, std::uint64_t total_count,
                          std::string_view what);

// Writes keys [first_index, first_index + count) of the data set to out[0 .. count).
// Requires first_index + count <= total_count (throws rmgsort::Error otherwise). Blocks until done.
// Instantiated for std::uint32_t, std::uint64_t, std::int32_t, std::int64_t, float and double.
template <class T>
void generate_keys(T* out, std::uint64_t first_index, std::uint64_t count, std::uint64_t total_count,
                   const Distribution& dist, std::uint64_t seed);

// Writes records [first_index, first_index + count) of LAYOUT to out[0 .. count * record_size).
// Record i holds key i of the data set at the key offset: for a number key, key i of generate_keys()
// (the same bits); for bytes:N, generate/bytes_keys.hpp's key. Its payload (the record's bytes outside
// the key, in order) starts with i as a u64, little-endian (as many of its low bytes as fit), and is
// filled after that from (seed, i) (generate/record_payload.hpp). Sort Benchmark records (bytes:10 at
// offset 0 of 100 bytes) are laid out as gensort lays them out instead. A bare-key layout writes
// generate_keys()'s keys. Requires first_index + count <= total_count. Blocks until done.
void generate_records(std::byte* out, std::uint64_t first_index, std::uint64_t count, std::uint64_t total_count,
                      const RecordLayout& layout, const Distribution& dist, std::uint64_t seed);

}  // namespace rmgsort
