// NumPy's .npy format (versions 1.0, 2.0 and 3.0): its header read and checked, the record layout
// a header gives the sort, and the headers rmgsort writes. The data after a header is the array's
// items, one after the other: for rmgsort, records of item_size bytes.
//
// A file is
//   "\x93NUMPY", major and minor version (bytes), the header text's length (u16 little-endian in
//   version 1.0, u32 in 2.0 and 3.0), the header text, the data
// and the header text is a Python dict literal, latin-1 (1.0, 2.0) or UTF-8 (3.0), padded with
// spaces and a final '\n':
//   {'descr': '<u8', 'fortran_order': False, 'shape': (5,), }
// 'descr' is a type string ('<u8', '|S10', '<M8[ns]') or, for a structured array, a list of fields
// [('name', TYPE), ('name', TYPE, SHAPE), ...] where TYPE is a type string or again such a list; a
// field named '' of type V<n> is padding (numpy leaves it out of the array's fields).
//
// rmgsort reads what it can sort: one-dimensional arrays (shape (n,)) in C order of little-endian (or
// byte-order-free) fixed-size types. It refuses the rest, naming the file and the reason: Fortran
// order, other shapes, big-endian and object types, and anything that is no .npy header.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/key_type.hpp"
#include "core/record_layout.hpp"

namespace rmgsort {

// '=' (native) and '|' read as '<': the data is taken as it lies in memory.
static_assert(std::endian::native == std::endian::little, ".npy headers are read on little-endian machines");

inline constexpr std::size_t kNpyMagicBytes = 6;  // "\x93NUMPY"
// A header that says it is longer is refused (numpy itself refuses more than 10 000 bytes of text
// unless told to trust the file).
inline constexpr std::uint64_t kNpyMaxHeaderBytes = std::uint64_t{16} << 20;

// One field of a structured dtype, or the whole item of a simple one (named "").
struct NpyField {
  std::string name;          // UTF-8
  std::string type;          // its type string as the header writes it ("<u8", "S10"); "" when nested
  char kind = 'V';           // numpy's kind letter: b i u f c S V U M m ('V' when nested)
  std::string shape;         // a sub-array's shape, e.g. "(3,)"; "" for one value
  std::uint64_t offset = 0;  // bytes from the start of the item
  std::uint64_t size = 0;    // bytes, every element of a sub-array
  bool nested = false;       // a structure of its own fields

  [[nodiscard]] bool is_subarray() const { return !shape.empty(); }
  // For messages: "'<u8'", "'<f4' sub-array (3,)", "a nested structure".
  [[nodiscard]] std::string description() const;
};

// A header rmgsort can read: shape (count,), C order (both checked by parse_npy_header).
struct NpyHeader {
  int version = 1;                 // the major version, 1 to 3 (the minor one is always 0)
  std::uint64_t header_bytes = 0;  // magic to the end of the padding: where the data starts
  std::string descr;               // the 'descr' value as the header writes it ("'<u8'", "[('a', '<u8')]"),
                                   // in the header's encoding, for writing it again
  bool structured = false;
  NpyField element;              // a simple dtype's item (name "", offset 0); unused when structured
  std::vector<NpyField> fields;  // a structured dtype's fields in order, padding left out
  std::uint64_t item_size = 0;   // bytes per item (record), at least 1
  std::uint64_t count = 0;       // items

  // count * item_size; parse_npy_header refuses a header whose data would not fit 64 bits.
  [[nodiscard]] std::uint64_t data_bytes() const { return count * item_size; }
};

// Whether A and B hold items of one dtype, however their headers spell it: "<u4", '=u4' and 'u4' are
// one type, as are shapes "(3,)" and "(3, )" of a sub-array field. Nested structures are compared as
// written (their inner fields are not kept apart).
[[nodiscard]] bool same_npy_dtype(const NpyHeader& a, const NpyHeader& b);

// PREFIX starts with the .npy magic (at least kNpyMagicBytes of it).
[[nodiscard]] bool is_npy(std::span<const std::byte> prefix);

// How many bytes of the input the caller must hold to go on, from PREFIX, its first bytes: 10 while
// PREFIX has fewer (the magic, the version and a 1.0 length field), 12 until a 2.0 or 3.0 length
// field is whole, then the whole header's length (magic to padding, at most kNpyMaxHeaderBytes).
// Read until PREFIX holds that many, calling again; at the end of the input, parse_npy_header
// names the truncation. Throws rmgsort::Error naming NAME when PREFIX is no .npy start (wrong
// magic, a version other than 1.0, 2.0, 3.0) or states a longer header than kNpyMaxHeaderBytes.
[[nodiscard]] std::size_t npy_header_bytes_needed(std::span<const std::byte> prefix, std::string_view name);

// The header that PREFIX (the input's first bytes: all of them, or at least npy_header_bytes_needed)
// starts with. Reads no byte past the header's stated length nor past PREFIX. Throws rmgsort::Error
// "NAME: ...: REASON" for a truncated or malformed header and for every array rmgsort does not sort
// (see the top of this file).
[[nodiscard]] NpyHeader parse_npy_header(std::span<const std::byte> prefix, std::string_view name);

// Throws rmgsort::Error naming NAME and both sizes when a file of FILE_SIZE bytes is not
// HEADER's header and data exactly.
void check_npy_size(const NpyHeader& header, std::uint64_t file_size, std::string_view name);

// The records HEADER's items are for the sort. A simple dtype is its own key (<u4 <u8 <i4 <i8 <f4
// <f8 as that type, S<n> and V<n> as bytes:n): KEY_FIELD must be absent. A structured dtype is
// sorted by the field KEY_FIELD names, of those types (not a sub-array or nested one). TYPE_OPTION
// (--type), when given, must be that key. Throws rmgsort::Error naming NAME and the option otherwise,
// listing the fields where one is missing or unknown.
[[nodiscard]] RecordLayout npy_record_layout(const NpyHeader& header, std::optional<std::string_view> key_field,
                                             std::optional<KeySpec> type_option, std::string_view name);

// The header of COUNT items of INPUT's dtype (its 'descr' text as it was), C order, shape (COUNT,):
// for writing the sorted INPUT. Laid out as numpy 1.23 and later lay it out (the same bytes for the
// same array): the dict, room for the shape to grow to 21 digits, then spaces and '\n' up to a
// multiple of 64 bytes; version 1.0 when its length fits 16 bits, else 2.0; 3.0 when INPUT's is.
[[nodiscard]] std::vector<std::byte> npy_header_for(const NpyHeader& input, std::uint64_t count);

// The header of COUNT '<u8' items (--index-output's positions), laid out as npy_header_for's.
[[nodiscard]] std::vector<std::byte> npy_index_header(std::uint64_t count);

// The header `generate -o FILE.npy` writes for COUNT records of LAYOUT, laid out as npy_header_for's.
// A record that is nothing but its key is a simple dtype ('<u4' '<u8' '<i4' '<i8' '<f4' '<f8', or
// '|S<n>' for bytes:n); any other record a structured one whose field 'key' is the key (the type
// above) at its offset, after a field 'before' ('|V<offset>') when the offset is not 0 and before a
// field 'after' ('|V<rest>') when bytes follow the key. So `--key key` sorts it again.
[[nodiscard]] std::vector<std::byte> npy_header_for_generate(const RecordLayout& layout, std::uint64_t count);

}  // namespace rmgsort
