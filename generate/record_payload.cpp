// Payload bytes of generated records (generate/record_payload.hpp).
#include "generate/record_payload.hpp"

#include <algorithm>
#include <cstring>

#include "generate/counter_random.hpp"

namespace rmgsort::detail {
namespace {

constexpr char kHexDigits[] = "0123456789ABCDEF";  // gensort's HEX_DIGIT: upper case

// Copies N bytes to payload position AT of RECORD onwards (payload positions skip the key) and
// advances AT.
void put_payload_bytes(const RecordLayout& layout, std::byte* record, std::size_t& at, const void* bytes,
                       std::size_t n) {
  const auto* from = static_cast<const std::byte*>(bytes);
  if (at < layout.key_offset) {
    const std::size_t before_key = std::min(n, layout.key_offset - at);
    std::memcpy(record + at, from, before_key);
    at += before_key;
    from += before_key;
    n -= before_key;
  }
  if (n > 0) std::memcpy(record + at + layout.key_size, from, n);
  at += n;
}

}  // namespace

std::uint64_t payload_stream(std::uint64_t seed) { return mix13(seed + 2 * kGolden); }

RecordPayload::RecordPayload(const RecordLayout& layout, std::uint64_t seed)
    : layout_(layout), stream_(payload_stream(seed)), sort_benchmark_(is_sort_benchmark_layout(layout)) {}

void RecordPayload::write(std::uint64_t i, std::byte* record) const {
  if (sort_benchmark_) return write_sort_benchmark(i, record);
  write_any(i, record);
}

void RecordPayload::write_any(std::uint64_t i, std::byte* record) const {
  const std::size_t payload = layout_.record_size - layout_.key_size;
  std::size_t at = 0;
  // (Little-endian machines: a u64's bytes in memory are its little-endian bytes.)
  put_payload_bytes(layout_, record, at, &i, std::min<std::size_t>(payload, 8));
  if (at == payload) return;
  KeyRandom random(stream_, i);
  while (at < payload) {
    const std::uint64_t draw = random.next();
    put_payload_bytes(layout_, record, at, &draw, std::min<std::size_t>(payload - at, 8));
  }
}

void RecordPayload::write_sort_benchmark(std::uint64_t i, std::byte* record) const {
  auto* bytes = reinterpret_cast<unsigned char*>(record);
  bytes[10] = 0x00;
  bytes[11] = 0x11;
  // i as a 128-bit number in 32 hex digits, most significant first: 16 zeros, then i's.
  std::memset(bytes + 12, '0', 16);
  for (int d = 0; d < 16; ++d) bytes[28 + d] = kHexDigits[(i >> (60 - 4 * d)) & 0xf];
  bytes[44] = 0x88;
  bytes[45] = 0x99;
  bytes[46] = 0xaa;
  bytes[47] = 0xbb;
  KeyRandom random(stream_, i);
  const std::uint64_t filler = random.next();
  for (int d = 0; d < 12; ++d) std::memset(bytes + 48 + 4 * d, kHexDigits[(filler >> (44 - 4 * d)) & 0xf], 4);
  bytes[96] = 0xcc;
  bytes[97] = 0xdd;
  bytes[98] = 0xee;
  bytes[99] = 0xff;
}

}  // namespace rmgsort::detail
