// The key generator behind `rmgsort generate`: writes any slice of a data set of total_count keys
// drawn from a Distribution, in parallel (oneTBB).
//
// Determinism: key i is a function of (distribution, seed, i, total_count) alone. It does not depend
// on the thread count, nor on how the caller splits [0, total_count) into calls, so a file larger than
// memory can be generated chunk by chunk (and written while the next chunk is generated) and still be
// identical to one generated in a single call. For the distributions that use floating-point
// functions (normal, zipf, nearly-sorted), bit-identical output across machines additionally needs
// the same libm.
#pragma once

#include <cstdint>

#include "generate/distribution.hpp"
#include "core/key_type.hpp"

namespace rmgsort {

// Throws rmgsort::Error if `dist` cannot produce keys of `type` (bits:B with B above the key width).
// generate_keys() checks this too; callers may check before creating any file.
void validate_distribution(const Distribution& dist, KeyType type);

// Writes keys [first_index, first_index + count) of the data set to out[0 .. count).
// Requires first_index + count <= total_count (throws rmgsort::Error otherwise). Blocks until done.
// Instantiated for std::uint32_t, std::uint64_t, std::int32_t, std::int64_t, float and double.
template <class T>
void generate_keys(T* out, std::uint64_t first_index, std::uint64_t count, std::uint64_t total_count,
                   const Distribution& dist, std::uint64_t seed);

}  // namespace rmgsort
