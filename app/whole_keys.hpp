// Byte counts as key counts: an input, an output size or a stream must hold whole keys.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/record_layout.hpp"

namespace rmgsort {

// bytes / key_width(type): bare keys' case of RecordLayout::whole_records, with its Error when a key
// would be cut.
inline std::uint64_t whole_keys(std::string_view name, std::uint64_t bytes, KeyType type) {
  return RecordLayout::bare_key(type).whole_records(name, bytes);
}

}  // namespace rmgsort
