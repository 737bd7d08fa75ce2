// What every layer is told about the data it moves: records of `record_size` bytes, each holding a
// key of `key_type` at `key_offset`. It flows io (whole records) -> host (partition, CPU sort) -> gpu
// (the in-core sort) -> io (the writer), so that no path keeps its own notion of a record. Today every
// path sorts bare keys (record_size == the key's width, key_offset == 0); the paths say so where they
// rely on it (RMGSORT_EXPECTS(layout.is_bare_key(), ...)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/key_type.hpp"

namespace rmgsort {

struct RecordLayout {
  KeyType key_type = KeyType::u32;
  std::size_t record_size = 4;  // bytes per record, at least the key's width
  std::size_t key_offset = 0;   // where the key starts in a record; key_offset + key width <= record_size

  // A record that is nothing but its key.
  [[nodiscard]] static constexpr RecordLayout bare_key(KeyType type) { return {type, key_width(type), 0}; }

  [[nodiscard]] constexpr std::size_t key_bytes() const { return key_width(key_type); }
  [[nodiscard]] constexpr bool is_bare_key() const { return key_offset == 0 && record_size == key_bytes(); }
  [[nodiscard]] constexpr bool valid() const { return record_size > 0 && key_offset + key_bytes() <= record_size; }

  // bytes / record_size; Error "NAME: N bytes are not a whole number of TYPE keys (W bytes each)" when
  // a record would be cut.
  [[nodiscard]] std::uint64_t whole_records(std::string_view name, std::uint64_t bytes) const {
    if (bytes % record_size != 0) {
      const std::string what = is_bare_key() ? std::string(key_type_name(key_type)) + " keys"
                                             : std::string("records");
      throw Error(std::string(name) + ": " + std::to_string(bytes) + " bytes are not a whole number of " + what +
                  " (" + std::to_string(record_size) + " bytes each)");
    }
    return bytes / record_size;
  }
};

}  // namespace rmgsort
