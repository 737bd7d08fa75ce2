// Records for the spill path's tests (host/spill_classifier, sort/spill_sort): every key type and
// bytes:N for TYPED_TEST_SUITE, the layouts each is tested in (record sizes = key, key + 1, 12, 13,
// 100; key offsets 0, middle, last), records of several key distributions whose payload tells them
// apart (so that stability shows), and the reference order: std::stable_sort by compare_ranks.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "core/record_rank.hpp"

namespace rmgsort::test {

template <KeyType kType, std::size_t kWidth>
struct Key {
  static KeySpec spec() { return {kType, kWidth}; }
};
using AllKeySpecs = ::testing::Types<Key<KeyType::u32, 4>, Key<KeyType::u64, 8>, Key<KeyType::i32, 4>,
                                     Key<KeyType::i64, 8>, Key<KeyType::f32, 4>, Key<KeyType::f64, 8>,
                                     Key<KeyType::bytes, 1>, Key<KeyType::bytes, 3>, Key<KeyType::bytes, 8>,
                                     Key<KeyType::bytes, 10>, Key<KeyType::bytes, 16>, Key<KeyType::bytes, 32>>;

// The layouts KEY is tested in: record sizes key, key + 1, 12, 13 and 100 (those that hold it), each
// with the key at offset 0, in the middle and last.
inline std::vector<RecordLayout> layouts_of(KeySpec key) {
  std::vector<std::size_t> sizes{key.width, key.width + 1, 12, 13, 100};
  std::erase_if(sizes, [&](std::size_t size) { return size < key.width; });
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  std::vector<RecordLayout> layouts;
  for (const std::size_t size : sizes) {
    std::vector<std::size_t> offsets{0, (size - key.width) / 2, size - key.width};
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    for (const std::size_t offset : offsets) layouts.push_back(RecordLayout::of(key, size, offset));
  }
  return layouts;
}

inline std::string describe(const RecordLayout& layout) {
  return layout.key().name() + " in " + std::to_string(layout.record_size) + "-byte records at offset " +
         std::to_string(layout.key_offset);
}

// How the keys are drawn: `spread` mixes random keys with special ones (NaNs of several patterns,
// +-0, infinities, integer extremes) and repeats; `heavy` takes five keys, one of them most of the
// time; `equal` one key; `shared_prefix` (bytes keys) keys equal but in their last two bytes, so that
// rounds share their leading rank words.
enum class Keys { spread, heavy, equal, shared_prefix };

namespace detail {

inline void put_number_bits(std::byte* key, std::size_t width, std::uint64_t bits) {
  if (width == 4) {
    const auto narrow = std::uint32_t(bits);
    std::memcpy(key, &narrow, 4);
  } else {
    std::memcpy(key, &bits, 8);
  }
}

// A number key's special bit patterns: the extremes, zeros, infinities, NaNs of either sign.
inline std::vector<std::uint64_t> special_bits(KeyType type) {
  switch (type) {
    case KeyType::f32:
      return {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x3f800000};
    case KeyType::f64:
      return {0, 0x8000000000000000, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
              0xfff8000000000123, 0x7ff0000000000001, 0x3ff0000000000000};
    case KeyType::u32:
    case KeyType::i32: return {0, 1, 0x7fffffff, 0x80000000, 0xffffffff};
    default: return {0, 1, 0x7fffffffffffffff, 0x8000000000000000, 0xffffffffffffffff};
  }
}

}  // namespace detail

// COUNT records of LAYOUT: record i holds i (u64 little-endian, as much as fits) from its first byte,
// then bytes that depend on i, then its key written over them at the key offset.
inline std::vector<std::byte> make_records(const RecordLayout& layout, std::size_t count, Keys keys,
                                           std::uint64_t seed = 1) {
  const std::size_t size = layout.record_size, width = layout.key_size;
  std::vector<std::byte> records(count * size);
  std::mt19937_64 random(seed);
  std::vector<std::vector<std::byte>> pool(5, std::vector<std::byte>(width));
  for (auto& key : pool)
    for (std::byte& b : key) b = std::byte(random());
  const std::vector<std::uint64_t> specials =
      layout.key_type == KeyType::bytes ? std::vector<std::uint64_t>{} : detail::special_bits(layout.key_type);
  for (std::size_t i = 0; i < count; ++i) {
    std::byte* record = records.data() + i * size;
    for (std::size_t b = 0; b < size; ++b) record[b] = std::byte((i * 131 + b * 7 + 3) >> (b % 3));
    const std::uint64_t index = i;
    std::memcpy(record, &index, std::min<std::size_t>(8, size));
    std::byte* key = record + layout.key_offset;
    const std::uint64_t draw = random();
    switch (keys) {
      case Keys::equal: std::memcpy(key, pool[0].data(), width); break;
      case Keys::heavy: std::memcpy(key, pool[draw % 8 < 4 ? 0 : draw % 5].data(), width); break;
      case Keys::shared_prefix:
        std::memcpy(key, pool[0].data(), width);
        for (std::size_t b = width >= 2 ? width - 2 : 0; b < width; ++b) key[b] = std::byte(draw >> (8 * (b % 8)) & 7);
        break;
      case Keys::spread:
        if (draw % 4 == 0) {
          std::memcpy(key, pool[draw / 4 % 5].data(), width);  // repeats
        } else if (draw % 4 == 1 && !specials.empty()) {
          detail::put_number_bits(key, width, specials[draw / 4 % specials.size()]);
        } else {
          for (std::size_t b = 0; b < width; ++b) key[b] = std::byte(random());
        }
        break;
    }
  }
  return records;
}

// RECORDS (of LAYOUT) in ORDER, equal keys in input order: the reference.
inline std::vector<std::byte> stable_sorted(const std::vector<std::byte>& records, const RecordLayout& layout,
                                            SortOrder order) {
  const std::size_t size = layout.record_size;
  std::vector<std::size_t> index(records.size() / size);
  std::iota(index.begin(), index.end(), std::size_t{0});
  visit_rank(layout, order, [&](const auto& rank) {
    std::stable_sort(index.begin(), index.end(), [&](std::size_t a, std::size_t b) {
      return compare_ranks(rank, records.data() + a * size, records.data() + b * size) < 0;
    });
  });
  std::vector<std::byte> sorted(records.size());
  for (std::size_t i = 0; i < index.size(); ++i)
    std::memcpy(sorted.data() + i * size, records.data() + index[i] * size, size);
  return sorted;
}

// RECORDS (of LAYOUT) with each one's position appended, a u64 little-endian.
inline std::vector<std::byte> with_positions(const std::vector<std::byte>& records, const RecordLayout& layout) {
  const std::size_t size = layout.record_size;
  const std::size_t count = records.size() / size;
  std::vector<std::byte> wide(count * (size + 8));
  for (std::size_t i = 0; i < count; ++i) {
    std::memcpy(wide.data() + i * (size + 8), records.data() + i * size, size);
    const std::uint64_t little = std::endian::native == std::endian::little ? i : __builtin_bswap64(i);
    std::memcpy(wide.data() + i * (size + 8) + size, &little, 8);
  }
  return wide;
}

}  // namespace rmgsort::test
