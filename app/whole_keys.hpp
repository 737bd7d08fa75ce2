// Byte counts as key counts: an input, an output size or a stream must hold whole keys.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "host/key_type.hpp"
#include "io/error.hpp"

namespace rmgsort {

// bytes / key_width(type); Error "NAME: N bytes are not a whole number of TYPE keys (W bytes each)"
// when a key would be cut.
inline std::uint64_t whole_keys(std::string_view name, std::uint64_t bytes, KeyType type) {
  const std::size_t width = key_width(type);
  if (bytes % width != 0)
    throw Error(std::string(name) + ": " + std::to_string(bytes) + " bytes are not a whole number of " +
                std::string(key_type_name(type)) + " keys (" + std::to_string(width) + " bytes each)");
  return bytes / width;
}

}  // namespace rmgsort
