// The radix sort of one cache-sized range by one thread (host/radix_sort.cpp's base case): MSD
// passes between the range and a scratch buffer of its size, LSD passes once few bits are left (or
// over the highest bits of many, then insertion sort within the short runs sharing them),
// insertion sort for the smallest buckets. Included by host/radix_sort.cpp only.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "core/key_order.hpp"
#include "host/radix_sort_config.hpp"

namespace rmgsort::radix_sort_detail {

// Sorts one range: its keys live in `a` (where the sorted, decoded result must end up) or in `b`
// (scratch of the range's size) at the same offsets. A range is "raw" (kRaw) only before its first
// read: it is then in `a` with the caller's bit patterns; every later state holds encoded radix
// bits. Every sort_* function leaves its range sorted and decoded in `a`, and is told that the
// range's keys agree on every bit at and above `bit_end`.
template <class T, SortOrder kOrder>
class CacheSorter {
  using Order = KeyOrder<T, kOrder>;

 public:
  using Bits = typename Order::Bits;
  static constexpr int kKeyBits = Order::kBits;

  // a: the range's keys; b: scratch for as many (at most radix_config::kSequentialKeys).
  CacheSorter(Bits* a, Bits* b) : a_(a), b_(b) {}

  template <bool kRaw>
  void sort(std::size_t n, int bit_end) {
    if (n > 0) sort_sequential<kRaw>(a_, 0, n, bit_end);
  }

  static Bits encode(Bits raw) { return Order::encode(__builtin_bit_cast(T, raw)); }
  static Bits decode(Bits radix) { return __builtin_bit_cast(Bits, Order::decode(radix)); }
  template <bool kRaw>
  static Bits load(const Bits* p) {
    if constexpr (kRaw) return encode(*p);
    return *p;
  }
  static Bits low_mask(int bits) { return bits >= kKeyBits ? Bits(~Bits(0)) : Bits((Bits(1) << bits) - 1); }

  // Where the next digit of `digit_bits` goes: right below bit_end, unless the keys agree there
  // (`differing` has no bit at or above that guess), then right below the highest differing bit.
  static int next_shift(Bits differing, int bit_end, int digit_bits) {
    const int guess = std::max(bit_end - digit_bits, 0);
    if ((differing >> guess) != 0) return guess;
    return std::max(int(std::bit_width(differing)) - digit_bits, 0);
  }

 private:
  static constexpr std::size_t kLsdBuckets = std::size_t{1} << radix_config::kMaxLsdDigitBits;
  static constexpr int kMostLsdPasses = (radix_config::kLsdMaxBits + radix_config::kMaxLsdDigitBits - 1) /
                                        radix_config::kMaxLsdDigitBits;
  static_assert(radix_config::kMaxLsdDigitBits <= radix_config::kMaxSequentialDigitBits);
  // Ranges hold at most kSequentialKeys keys, so 32-bit counters suffice.
  using Counts = std::array<std::uint32_t, std::size_t{1} << radix_config::kMaxSequentialDigitBits>;
  static_assert(radix_config::kSequentialKeys <= UINT32_MAX);

  Bits* other(const Bits* buffer) const { return buffer == a_ ? b_ : a_; }

  // The bits in which the keys of [begin, end) differ: one read without counting, which the LSD
  // and top-window paths (most of a large sort's ranges) need alone.
  template <bool kRaw>
  static Bits differing_bits(const Bits* in, std::size_t begin, std::size_t end) {
    Bits any = 0, all = Bits(~Bits(0));
    for (std::size_t i = begin; i < end; ++i) {
      const Bits key = load<kRaw>(in + i);
      any |= key;
      all &= key;
    }
    return any ^ all;
  }

  // Counts the keys of [begin, end) per digit (radix >> shift) & mask.
  template <bool kRaw>
  static void count_digits(const Bits* in, std::size_t begin, std::size_t end, int shift, Bits mask, Counts& count) {
    std::fill(count.begin(), count.begin() + std::ptrdiff_t(mask) + 1, 0);
    for (std::size_t i = begin; i < end; ++i) ++count[std::size_t((load<kRaw>(in + i) >> shift) & mask)];
  }

  // Moves each key of [begin, end) to next[digit]++, decoding it when it goes out in final order.
  template <bool kLoadRaw, bool kStoreDecoded>
  static void scatter(const Bits* in, Bits* out, std::size_t begin, std::size_t end, int shift, Bits mask,
                      Counts& next) {
    for (std::size_t i = begin; i < end; ++i) {
      const Bits key = load<kLoadRaw>(in + i);
      out[next[std::size_t((key >> shift) & mask)]++] = kStoreDecoded ? decode(key) : key;
    }
  }

  // All keys of the range are equal: only their place and encoding may need fixing.
  template <bool kRaw>
  void finish_equal(const Bits* in, std::size_t begin, std::size_t end) {
    if constexpr (!kRaw)
      for (std::size_t i = begin; i < end; ++i) a_[i] = decode(in[i]);
  }

  template <bool kRaw>
  void finish_by_insertion(const Bits* in, std::size_t begin, std::size_t end) {
    std::array<Bits, radix_config::kInsertionSortKeys> local;
    const std::size_t n = end - begin;
    for (std::size_t i = 0; i < n; ++i) {
      const Bits key = load<kRaw>(in + begin + i);
      std::size_t j = i;
      for (; j > 0 && local[j - 1] > key; --j) local[j] = local[j - 1];
      local[j] = key;
    }
    for (std::size_t i = 0; i < n; ++i) a_[begin + i] = decode(local[i]);
  }

  template <bool kRaw>
  void sort_sequential(const Bits* in, std::size_t begin, std::size_t end, int bit_end) {
    using namespace radix_config;
    const std::size_t n = end - begin;
    if (n <= kInsertionSortKeys) return finish_by_insertion<kRaw>(in, begin, end);

    const Bits differing = differing_bits<kRaw>(in, begin, end);
    if (differing == 0) return finish_equal<kRaw>(in, begin, end);
    if (std::bit_width(differing) - std::countr_zero(differing) <= unsigned(kLsdMaxBits))
      return sort_lsd<kRaw>(in, begin, end, differing);
    if (n >= kTopWindowMinKeys) return sort_top_window<kRaw>(in, begin, end, differing);
    const int digit_bits = std::clamp(int(std::bit_width(n)) - kKeysPerBucketLog2, 1, kMaxSequentialDigitBits);
    const Bits mask = low_mask(digit_bits);
    const int shift = next_shift(differing, bit_end, digit_bits);
    Counts count;
    count_digits<kRaw>(in, begin, end, shift, mask, count);

    // Offsets relative to `begin` (ranges are small enough for 32 bits).
    Counts next;
    std::uint32_t offset = 0;
    for (std::size_t d = 0; d <= mask; ++d) {
      next[d] = offset;
      offset += count[d];
    }
    Bits* out = other(in);
    Bits* base = out + begin;
    if (shift == 0) {
      // The last digit: each bucket holds one value, so keys go out decoded and in final order.
      scatter<kRaw, true>(in + begin, base, 0, n, 0, mask, next);
      if (out != a_) std::memcpy(a_ + begin, base, n * sizeof(Bits));
      return;
    }
    scatter<kRaw, false>(in + begin, base, 0, n, shift, mask, next);
    std::size_t bucket_begin = begin;
    for (std::size_t d = 0; d <= mask; ++d) {
      if (count[d] != 0) sort_sequential<false>(out, bucket_begin, bucket_begin + count[d], shift);
      bucket_begin += count[d];
    }
  }

  // A range whose keys differ in more bits than LSD passes take: LSD passes over the highest of
  // those bits, enough of them that few keys share them (2^bits >= 32 n), then each run of keys
  // sharing them, short for spread keys, sorted by insertion, or again below them when longer.
  template <bool kRaw>
  void sort_top_window(const Bits* in, std::size_t begin, std::size_t end, Bits differing) {
    using namespace radix_config;
    const int high = int(std::bit_width(differing));
    const int bits = std::min(kLsdMaxBits, int(std::bit_width(end - begin)) + 5);
    const int low = high - bits;  // > 0: the keys differ in more than kLsdMaxBits bits
    sort_lsd<kRaw>(in, begin, end, Bits(low_mask(bits) << low));  // a_[begin, end): decoded, by [low, high)
    for (std::size_t run = begin; run < end;) {
      const Bits prefix = Bits(encode(a_[run]) >> low);
      std::size_t next = run + 1;
      while (next < end && Bits(encode(a_[next]) >> low) == prefix) ++next;
      if (next - run > kInsertionSortKeys) {
        sort_sequential<true>(a_, run, next, low);  // decoded keys are the caller's raw ones
      } else if (next - run > 1) {
        finish_by_insertion<true>(a_, run, next);
      }
      run = next;
    }
  }

  // LSD passes over the bits in which the keys of [begin, end) differ: as few as digits of at most
  // kMaxLsdDigitBits take (fewer bits for fewer keys: no more buckets than about the keys, down to
  // kDigitBits), the bits shared evenly among them.
  template <bool kRaw>
  void sort_lsd(const Bits* in, std::size_t begin, std::size_t end, Bits differing) {
    using namespace radix_config;
    const std::size_t n = end - begin;
    const int low = std::countr_zero(differing);
    const int span = int(std::bit_width(differing)) - low;
    const int widest = std::clamp(int(std::bit_width(n)), kDigitBits, kMaxLsdDigitBits);
    const int passes = (span + widest - 1) / widest;
    const int digit_bits = (span + passes - 1) / passes;
    const Bits mask = low_mask(digit_bits);
    const std::size_t buckets = std::size_t{1} << digit_bits;
    std::array<std::array<std::uint32_t, kLsdBuckets>, kMostLsdPasses> counts;
    for (int p = 0; p < passes; ++p) std::fill_n(counts[std::size_t(p)].begin(), buckets, 0);
    for (std::size_t i = begin; i < end; ++i) {
      const Bits key = load<kRaw>(in + i);
      for (int p = 0; p < passes; ++p) ++counts[std::size_t(p)][std::size_t((key >> (low + p * digit_bits)) & mask)];
    }
    // A pass whose digit is the same for every key would leave the order as it is: skip it.
    const Bits sample = load<kRaw>(in + begin);
    const auto splits = [&](int p) {
      return counts[std::size_t(p)][std::size_t((sample >> (low + p * digit_bits)) & mask)] != n;
    };
    int last = passes - 1;
    while (!splits(last)) --last;  // some pass splits, since differing != 0

    const Bits* src = in;
    bool raw = kRaw;
    for (int p = 0; p <= last; ++p) {
      if (!splits(p)) continue;
      Counts next;  // (the MSD pass's type: one scatter instantiation for both)
      std::uint32_t offset = 0;
      for (std::size_t d = 0; d < buckets; ++d) {
        next[d] = offset;
        offset += counts[std::size_t(p)][d];
      }
      Bits* dst = other(src);
      const int shift = low + p * digit_bits;
      const Bits* from = src + begin;
      Bits* to = dst + begin;
      if (raw) {
        p == last ? scatter<true, true>(from, to, 0, n, shift, mask, next)
                  : scatter<true, false>(from, to, 0, n, shift, mask, next);
      } else {
        p == last ? scatter<false, true>(from, to, 0, n, shift, mask, next)
                  : scatter<false, false>(from, to, 0, n, shift, mask, next);
      }
      raw = false;
      src = dst;
    }
    if (src != a_) std::memcpy(a_ + begin, src + begin, n * sizeof(Bits));
  }

  Bits* a_;
  Bits* b_;
};

}  // namespace rmgsort::radix_sort_detail
