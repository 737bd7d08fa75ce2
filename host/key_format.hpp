// A key as a person reads it in a message (check's disorder, for one): what `sort -c` and valsort
// print of the offending line or record.
#pragma once

#include <cstddef>
#include <string>

#include "core/key_type.hpp"

namespace rmgsort {

// The key of SPEC whose bytes (little-endian for numbers) start at KEY:
//   u32 u64 i32 i64   decimal ("-9223372036854775808")
//   f32 f64           the shortest text that reads back as the same value (std::to_chars): "-0",
//                     "0.1", "1e+300", "inf", "-inf"; a NaN of either sign "nan" or "-nan" (its
//                     payload does not show: every NaN is one key to a check)
//   bytes:N           "0x" and 2N lower-case hex digits, the key's bytes in order ("0x00ff7f")
[[nodiscard]] std::string format_key(const std::byte* key, KeySpec spec);

}  // namespace rmgsort
