#include "host/checksum.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"

namespace rmgsort {
namespace {

// Two unrelated finalisers (splitmix64's and moremur's), so that the two sums are independent.
constexpr std::uint64_t mix_a(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
constexpr std::uint64_t mix_b(std::uint64_t x) {
  x ^= 0x2545f4914f6cdd1dULL;
  x = (x ^ (x >> 27)) * 0x3c79ac492ba7b653ULL;
  x = (x ^ (x >> 33)) * 0x1c69b3f74ac4ae35ULL;
  return x ^ (x >> 27);
}

template <class Bits>
KeyChecksum checksum_range(const Bits* keys, std::size_t begin, std::size_t end, KeyChecksum sum) {
  for (std::size_t i = begin; i < end; ++i) {
    Bits key;
    std::memcpy(&key, keys + i, sizeof key);
    sum.low += mix_a(key);
    sum.high += mix_b(key);
  }
  sum.keys += end - begin;
  return sum;
}

// Sums RANGE(begin, end, sum) over [0, count) in pieces of GRAIN, in parallel when there are several.
template <class Range>
KeyChecksum checksum_in_parallel(std::size_t count, std::size_t grain, const Range& range) {
  if (count <= grain) return range(0, count, KeyChecksum{});
  return tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, count, grain), KeyChecksum{},
      [&range](const tbb::blocked_range<std::size_t>& r, KeyChecksum sum) { return range(r.begin(), r.end(), sum); },
      [](KeyChecksum x, const KeyChecksum& y) { return x += y; });
}

template <class Bits>
KeyChecksum checksum_typed(const std::byte* data, std::uint64_t count) {
  const auto* keys = reinterpret_cast<const Bits*>(data);
  constexpr std::size_t kGrain = std::size_t{1} << 16;
  return checksum_in_parallel(count, kGrain, [keys](std::size_t begin, std::size_t end, KeyChecksum sum) {
    return checksum_range(keys, begin, end, sum);
  });
}

// A record of any size as 64-bit words (little-endian, the last one zero-padded), hashed by two chains
// x = mix(x) ^ word, each closed by one more mix: a record of one word (4 or 8 bytes) gets the key's
// mix_a(word) and mix_b(word). Every word passes through both mixers, so a change to any bytes
// changes each sum unless it is cancelled on purpose in both chains at once.
class RecordHasher {
 public:
  explicit RecordHasher(std::size_t record_size)
      : size_(record_size), full_words_(record_size / 8), words_((record_size + 7) / 8) {}

  // Adds records [begin, end) to SUM. kLanes records are hashed side by side: a chain is a string of
  // dependent multiplications, and independent chains let the core overlap them. 100-byte records,
  // one thread of a 2-core Xeon VM: 1 lane 2.05 GB/s, 2 lanes 2.8, 4 lanes 3.15, 8 lanes 1.7-2.4
  // (the chains' state no longer fits the registers); 16-byte records 3.3 / 3.4 / 3.5 / 1.9.
  KeyChecksum add(const std::byte* records, std::size_t begin, std::size_t end, KeyChecksum sum) const {
    constexpr std::size_t kLanes = 4;
    std::size_t i = begin;
    for (; i + kLanes <= end; i += kLanes) hash<kLanes>(records + i * size_, sum);
    for (; i < end; ++i) hash<1>(records + i * size_, sum);
    sum.keys += end - begin;
    return sum;
  }

 private:
  // Word W (< full_words_) of RECORD; the last, partial word.
  static std::uint64_t full_word(const std::byte* record, std::size_t w) {
    std::uint64_t value;
    std::memcpy(&value, record + 8 * w, 8);
    return value;
  }
  std::uint64_t tail_word(const std::byte* record) const {
    std::uint64_t value = 0;
    std::memcpy(&value, record + 8 * full_words_, size_ % 8);
    return value;
  }
  std::uint64_t word(const std::byte* record, std::size_t w) const {
    return w < full_words_ ? full_word(record, w) : tail_word(record);
  }

  // The kLanes records from FIRST on.
  template <std::size_t kLanes>
  void hash(const std::byte* first, KeyChecksum& sum) const {
    std::uint64_t a[kLanes], b[kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) a[l] = b[l] = word(first + l * size_, 0);
    const auto chain = [&](std::size_t l, std::uint64_t value) {
      a[l] = mix_a(a[l]) ^ value;
      b[l] = mix_b(b[l]) ^ value;
    };
    for (std::size_t w = 1; w < full_words_; ++w)
      for (std::size_t l = 0; l < kLanes; ++l) chain(l, full_word(first + l * size_, w));
    if (full_words_ > 0 && words_ > full_words_)
      for (std::size_t l = 0; l < kLanes; ++l) chain(l, tail_word(first + l * size_));
    for (std::size_t l = 0; l < kLanes; ++l) {
      sum.low += mix_a(a[l]);
      sum.high += mix_b(b[l]);
    }
  }

  std::size_t size_, full_words_, words_;
};

}  // namespace

std::string KeyChecksum::hex() const {
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return text;
}

KeyChecksum checksum_keys(const std::byte* data, std::uint64_t bytes, std::size_t key_width) {
  RMGSORT_EXPECTS(key_width == 4 || key_width == 8, "key width must be 4 or 8");
  RMGSORT_EXPECTS(bytes % key_width == 0, "checksum over a partial key");
  return key_width == 4 ? checksum_typed<std::uint32_t>(data, bytes / 4)
                        : checksum_typed<std::uint64_t>(data, bytes / 8);
}

KeyChecksum checksum_records(const std::byte* data, std::uint64_t bytes, std::size_t record_size) {
  RMGSORT_EXPECTS(record_size > 0, "records of at least one byte");
  RMGSORT_EXPECTS(bytes % record_size == 0, "checksum over a partial record");
  if (record_size == 4 || record_size == 8) return checksum_keys(data, bytes, record_size);
  // 256 KiB of records per piece (at least one): as many bytes as a piece of 64 Ki u32 keys.
  const std::size_t grain = std::max<std::size_t>(1, (std::size_t{256} << 10) / record_size);
  const RecordHasher hasher(record_size);
  return checksum_in_parallel(bytes / record_size, grain, [&](std::size_t begin, std::size_t end, KeyChecksum sum) {
    return hasher.add(data, begin, end, sum);
  });
}

}  // namespace rmgsort
