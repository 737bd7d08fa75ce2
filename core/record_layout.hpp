// What every layer is told about the data it moves: records of `record_size` bytes, each holding a
// key of `key_type` (`key_size` bytes wide) at `key_offset`. It flows io (whole records) -> host
// (partition, CPU sort) -> gpu (the in-core sort) -> io (the writer), so that no path keeps its own
// notion of a record.
//
// Two families of paths sort them. A bare number key (the record is nothing but a u32 .. f64 key)
// keeps the key paths of old: the radix sorts move the keys themselves. Every other layout (a
// payload, an offset, a bytes:N key) is sorted through record tags (host/record_tags.hpp): each
// record's key rank and its position, sorted by the same engines, then the records gathered; except
// that the GPUs carry a record of at most its key and 8 more bytes whole (core/record_pair.hpp).
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
  std::size_t key_size = 4;     // the key's width: key_width(key_type), or N for bytes:N
  std::size_t record_size = 4;  // bytes per record, at least key_size
  std::size_t key_offset = 0;   // where the key starts in a record; key_offset + key_size <= record_size
  // Floating-point keys: every NaN ranks the same, so NaN records keep their input order (the
  // records contract). Bare keys order NaNs by their bit patterns instead, as they always have: a
  // bare NaN is its own record, and the bytes of a bare-key output do not depend on the path.
  bool equal_nans = true;

  // A record that is nothing but its number key.
  [[nodiscard]] static constexpr RecordLayout bare_key(KeyType type) {
    return {type, key_width(type), key_width(type), 0, false};
  }
  // SPEC's key at OFFSET of RECORD_SIZE-byte records (bare when it is the whole record).
  [[nodiscard]] static constexpr RecordLayout of(KeySpec spec, std::size_t record_size, std::size_t offset) {
    RecordLayout layout{spec.type, spec.width, record_size, offset, true};
    if (layout.is_bare_key()) layout.equal_nans = false;
    return layout;
  }

  [[nodiscard]] constexpr std::size_t key_bytes() const { return key_size; }
  // The key paths apply: a number key that is the whole record.
  [[nodiscard]] constexpr bool is_bare_key() const {
    return key_type != KeyType::bytes && key_offset == 0 && record_size == key_size;
  }
  [[nodiscard]] constexpr bool valid() const {
    return key_size > 0 && key_size <= record_size && key_offset <= record_size - key_size;
  }
  [[nodiscard]] KeySpec key() const { return {key_type, key_size}; }

  // The same records with a u64 appended to each (their input position, for --index-output).
  [[nodiscard]] constexpr RecordLayout with_position() const {
    RecordLayout wider = *this;
    wider.record_size += 8;
    return wider;
  }

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

// The layout of --type, --record-size (0: the key's width) and --key-offset; Error naming the option
// when the key does not fit the record.
[[nodiscard]] inline RecordLayout record_layout_option(KeySpec key, std::uint64_t record_size, std::uint64_t key_offset) {
  if (record_size == 0) record_size = key.width;
  if (record_size > (std::uint64_t{1} << 30))
    throw Error("--record-size: " + std::to_string(record_size) + " bytes is more than the 1 GiB a record may take");
  // (Not key_offset + width > record_size: an offset within a key's width of 2^64 wraps that sum
  // around, and the key would be read before the record.)
  if (key.width > record_size || key_offset > record_size - key.width)
    throw Error("--key-offset " + std::to_string(key_offset) + ": a " + key.name() + " key (" +
                std::to_string(key.width) + " bytes) at offset " + std::to_string(key_offset) +
                " does not fit a record of " + std::to_string(record_size) + " bytes (--record-size)");
  return RecordLayout::of(key, std::size_t(record_size), std::size_t(key_offset));
}

}  // namespace rmgsort
