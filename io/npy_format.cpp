// Reading a .npy header: its fixed start (magic, version, length), then its dict, checked key by key.
#include "io/npy_format.hpp"

#include <algorithm>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "io/detail/npy_descr.hpp"
#include "io/detail/python_literal.hpp"

namespace rmgsort {
namespace {

using detail::PythonLiteral;
using Kind = PythonLiteral::Kind;

constexpr unsigned char kMagic[kNpyMagicBytes] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kVersion1Preamble = 10;  // magic, 2 version bytes, u16 length
constexpr std::size_t kVersion2Preamble = 12;  // magic, 2 version bytes, u32 length

std::uint8_t byte_at(std::span<const std::byte> bytes, std::size_t i) {
  return std::to_integer<std::uint8_t>(bytes[i]);
}

std::size_t preamble_bytes(int version) { return version == 1 ? kVersion1Preamble : kVersion2Preamble; }

// HEADER_BYTES: the header's length, or (up to kVersion2Preamble) as much of it as tells its length.
[[noreturn]] void truncated(std::string_view name, std::size_t have, std::uint64_t header_bytes) {
  const std::string whole = header_bytes <= kVersion2Preamble ? "its first " + std::to_string(header_bytes) + " bytes"
                                                              : std::to_string(header_bytes) + " bytes";
  throw Error(std::string(name) + ": the input ends after " + std::to_string(have) +
              " bytes, inside its .npy header (" + whole + ")");
}

std::string shape_text(std::uint64_t count) { return "(" + std::to_string(count) + ",)"; }

// The value of each of the three keys a header holds, each exactly once and no other key.
struct HeaderValues {
  const PythonLiteral* descr = nullptr;
  const PythonLiteral* fortran_order = nullptr;
  const PythonLiteral* shape = nullptr;
};

HeaderValues header_values(const PythonLiteral& dict, const std::string& context) {
  if (!dict.is(Kind::dict))
    throw Error(context + ": the header is " + std::string(detail::python_literal_kind_name(dict.kind)) +
                ", not a dict");
  HeaderValues values;
  for (std::size_t i = 0; i < dict.dict_size(); ++i) {
    const PythonLiteral& key = dict.dict_key(i);
    const PythonLiteral** slot = nullptr;
    if (key.is(Kind::string)) {
      if (key.string == "descr")
        slot = &values.descr;
      else if (key.string == "fortran_order")
        slot = &values.fortran_order;
      else if (key.string == "shape")
        slot = &values.shape;
    }
    if (slot == nullptr)
      throw Error(
          context + ": unknown key " +
          (key.is(Kind::string) ? "'" + key.string + "'" : std::string(detail::python_literal_kind_name(key.kind))) +
          " (a header holds 'descr', 'fortran_order' and 'shape')");
    if (*slot != nullptr) throw Error(context + ": '" + key.string + "' appears twice");
    *slot = &dict.dict_value(i);
  }
  if (values.descr == nullptr) throw Error(context + ": 'descr' is missing");
  if (values.fortran_order == nullptr) throw Error(context + ": 'fortran_order' is missing");
  if (values.shape == nullptr) throw Error(context + ": 'shape' is missing");
  return values;
}

// The item count of SHAPE, which must be (n,).
std::uint64_t one_dimension(const PythonLiteral& shape, const std::string& context) {
  if (!shape.is(Kind::tuple))
    throw Error(context + ": 'shape' is " + std::string(detail::python_literal_kind_name(shape.kind)) +
                ", not a tuple of integers");
  std::string text;
  for (const PythonLiteral& dim : shape.items) {
    if (!dim.is(Kind::integer))
      throw Error(context + ": 'shape' holds " + std::string(detail::python_literal_kind_name(dim.kind)) +
                  ", not only integers");
    if (dim.integer < 0)
      throw Error(context + ": 'shape' has a negative dimension (" + std::to_string(dim.integer) + ")");
    text += (text.empty() ? "(" : ", ") + std::to_string(dim.integer);
  }
  if (shape.items.empty())
    throw Error(context + ": shape () is a single value (a 0-d array), not an array of items to sort");
  if (shape.items.size() > 1)
    throw Error(context + ": shape " + text + ") has " + std::to_string(shape.items.size()) +
                " dimensions; rmgsort sorts one-dimensional arrays (shape (n,)): save a.reshape(-1) or one column");
  return std::uint64_t(shape.items.front().integer);
}

// A type string without its byte order ('<', '>', '=', '|'), a shape without spaces: what is left
// differs only between different types.
std::string without_byte_order(const std::string& type) {
  return !type.empty() && std::string_view("<>=|").find(type.front()) != std::string_view::npos ? type.substr(1)
                                                                                                 : type;
}
std::string without_spaces(std::string text) {
  std::erase(text, ' ');
  return text;
}

bool same_field(const NpyField& a, const NpyField& b) {
  return a.name == b.name && a.kind == b.kind && a.offset == b.offset && a.size == b.size &&
         without_byte_order(a.type) == without_byte_order(b.type) && without_spaces(a.shape) == without_spaces(b.shape);
}

}  // namespace

std::string NpyField::description() const {
  if (nested) return is_subarray() ? "a sub-array " + shape + " of nested structures" : "a nested structure";
  std::string text = "'" + type + "'";
  if (is_subarray()) text += " sub-array " + shape;
  return text;
}

bool same_npy_dtype(const NpyHeader& a, const NpyHeader& b) {
  if (a.descr == b.descr) return true;
  if (a.structured != b.structured || a.item_size != b.item_size) return false;
  if (!a.structured) return same_field(a.element, b.element);
  const auto nested = [](const NpyField& field) { return field.nested; };
  if (std::ranges::any_of(a.fields, nested) || std::ranges::any_of(b.fields, nested)) return false;
  return std::ranges::equal(a.fields, b.fields, same_field);
}

bool is_npy(std::span<const std::byte> prefix) {
  if (prefix.size() < kNpyMagicBytes) return false;
  for (std::size_t i = 0; i < kNpyMagicBytes; ++i)
    if (byte_at(prefix, i) != kMagic[i]) return false;
  return true;
}

std::size_t npy_header_bytes_needed(std::span<const std::byte> prefix, std::string_view name) {
  const std::size_t magic = std::min(prefix.size(), kNpyMagicBytes);
  for (std::size_t i = 0; i < magic; ++i)
    if (byte_at(prefix, i) != kMagic[i])
      throw Error(std::string(name) + ": not a .npy file (it does not start with \\x93NUMPY)");
  if (prefix.size() < kNpyMagicBytes + 2) return kVersion1Preamble;
  const int major = byte_at(prefix, 6);
  const int minor = byte_at(prefix, 7);
  if (major < 1 || major > 3 || minor != 0)
    throw Error(std::string(name) + ": .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                " is not one rmgsort reads (1.0, 2.0, 3.0)");
  if (prefix.size() < kVersion1Preamble) return kVersion1Preamble;
  std::uint64_t text_bytes = 0;
  if (major == 1) {
    text_bytes = byte_at(prefix, 8) | std::uint64_t(byte_at(prefix, 9)) << 8;
  } else {
    if (prefix.size() < kVersion2Preamble) return kVersion2Preamble;
    for (std::size_t i = 0; i < 4; ++i) text_bytes |= std::uint64_t(byte_at(prefix, 8 + i)) << (8 * i);
  }
  const std::uint64_t total = preamble_bytes(major) + text_bytes;
  if (total > kNpyMaxHeaderBytes)
    throw Error(std::string(name) + ": its .npy header says it is " + std::to_string(total) +
                " bytes long, more than the " + std::to_string(kNpyMaxHeaderBytes >> 20) + " MiB rmgsort reads");
  return std::size_t(total);
}

NpyHeader parse_npy_header(std::span<const std::byte> prefix, std::string_view name) {
  // npy_header_bytes_needed reads no byte past PREFIX; it says the whole header's length once PREFIX
  // holds the length field, and a length beyond PREFIX's end until then.
  const std::size_t needed = npy_header_bytes_needed(prefix, name);
  if (needed > prefix.size()) truncated(name, prefix.size(), needed);
  NpyHeader header;
  header.version = byte_at(prefix, 6);
  header.header_bytes = needed;
  const std::string context = std::string(name) + ": .npy header";
  const std::size_t preamble = preamble_bytes(header.version);
  const std::string_view text(reinterpret_cast<const char*>(prefix.data()) + preamble, needed - preamble);
  const PythonLiteral dict = detail::parse_python_literal(
      text, header.version == 3 ? detail::TextEncoding::utf8 : detail::TextEncoding::latin1, context, preamble);
  const HeaderValues values = header_values(dict, context);

  if (!values.fortran_order->is(Kind::boolean))
    throw Error(context + ": 'fortran_order' is " +
                std::string(detail::python_literal_kind_name(values.fortran_order->kind)) + ", not True or False");
  if (values.fortran_order->boolean)
    throw Error(context +
                ": the array is in Fortran order (column-major), which rmgsort does not sort; "
                "save np.ascontiguousarray(a)");
  header.count = one_dimension(*values.shape, context);

  detail::NpyDtype dtype = detail::parse_npy_descr(*values.descr, context);
  header.descr = std::string(text.substr(values.descr->begin, values.descr->end - values.descr->begin));
  header.structured = dtype.structured;
  header.element = std::move(dtype.element);
  header.fields = std::move(dtype.fields);
  header.item_size = dtype.item_size;
  if (header.item_size == 0) throw Error(context + ": the dtype's items have 0 bytes; there is nothing to sort");
  if (header.count > (UINT64_MAX - header.header_bytes) / header.item_size)
    throw Error(context + ": shape " + shape_text(header.count) + " of " + std::to_string(header.item_size) +
                "-byte items makes a file of more than 2^64 bytes");
  return header;
}

void check_npy_size(const NpyHeader& header, std::uint64_t file_size, std::string_view name) {
  const std::uint64_t expected = header.header_bytes + header.data_bytes();
  if (file_size == expected) return;
  throw Error(std::string(name) + ": its .npy header says shape " + shape_text(header.count) + " of " +
              std::to_string(header.item_size) + "-byte items, " + std::to_string(expected) + " bytes with the " +
              std::to_string(header.header_bytes) + "-byte header, but the file has " + std::to_string(file_size) +
              " bytes");
}

}  // namespace rmgsort
