#include "tests/bench/legacy_radix_sort.hpp"

#include "host/task_offsets.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <vector>

namespace rmgsort::legacy {
namespace {

// The tuning of 2026-11-21 (then host/radix_sort_config.hpp), kept with the code it tuned.
constexpr int kDigitBits = 8;
constexpr int kKeysPerBucketLog2 = 4;
constexpr int kMaxSequentialDigitBits = 11;
constexpr int kLsdMaxBits = 24;
constexpr std::size_t kSequentialKeys = std::size_t{1} << 16;
constexpr std::size_t kInsertionSortKeys = 32;
constexpr std::size_t kKeysPerTask = std::size_t{1} << 16;
constexpr std::size_t kTasksPerThread = 4;

// One sort call. Keys live in `a` (the caller's array, where the sorted result must end up) or in
// `b` (scratch) at the same offsets. A range is "raw" (kRaw) only before its first read: it is then
// in `a` with the caller's bit patterns; every later state holds encoded radix bits. Every sort_*
// function leaves its range sorted and decoded in `a`, and is told that the range's keys agree on
// every bit at and above `bit_end`. Each range that leaves the parallel passes sorted is counted
// once to `sorted_` (placed()).
template <class T, SortOrder kOrder>
class RadixSorter {
  using Order = KeyOrder<T, kOrder>;
  using Bits = typename Order::Bits;
  static constexpr int kKeyBits = Order::kBits;
  static constexpr std::size_t kParallelBuckets = std::size_t{1} << kDigitBits;
  using ParallelCounts = std::array<std::uint64_t, kParallelBuckets>;
  // Sequential ranges hold at most kSequentialKeys keys, so 32-bit counters suffice.
  using SequentialCounts = std::array<std::uint32_t, std::size_t{1} << kMaxSequentialDigitBits>;
  static_assert(kSequentialKeys <= UINT32_MAX);

 public:
  RadixSorter(Bits* keys, Bits* scratch, const std::function<void(std::size_t)>& sorted)
      : a_(keys),
        b_(scratch),
        concurrency_(std::size_t(tbb::this_task_arena::max_concurrency())),
        sorted_(sorted ? &sorted : nullptr) {}

  void sort(std::size_t n) {
    if (n > 1) return sort_parallel<true>(a_, 0, n, kKeyBits);
    placed(n);
  }

 private:
  static Bits encode(Bits raw) { return Order::encode(__builtin_bit_cast(T, raw)); }
  static Bits decode(Bits radix) { return __builtin_bit_cast(Bits, Order::decode(radix)); }
  template <bool kRaw>
  static Bits load(const Bits* p) {
    if constexpr (kRaw) return encode(*p);
    return *p;
  }
  static Bits low_mask(int bits) { return bits >= kKeyBits ? Bits(~Bits(0)) : Bits((Bits(1) << bits) - 1); }
  Bits* other(const Bits* buffer) const { return buffer == a_ ? b_ : a_; }
  void placed(std::size_t keys) const {
    if (sorted_ != nullptr && keys > 0) (*sorted_)(keys);
  }

  // Where the next digit of `digit_bits` goes: right below bit_end, unless the keys agree there
  // (`differing` has no bit at or above that guess), then right below the highest differing bit.
  static int next_shift(Bits differing, int bit_end, int digit_bits) {
    const int guess = std::max(bit_end - digit_bits, 0);
    if ((differing >> guess) != 0) return guess;
    return std::max(int(std::bit_width(differing)) - digit_bits, 0);
  }

  // Counts the keys of [begin, end) per digit (radix >> shift) & mask and returns the bits in
  // which they differ, in one read.
  template <bool kRaw, class Counts>
  static Bits count_digits(const Bits* in, std::size_t begin, std::size_t end, int shift, Bits mask, Counts& count) {
    std::fill(count.begin(), count.begin() + std::ptrdiff_t(mask) + 1, 0);
    Bits any = 0, all = Bits(~Bits(0));
    for (std::size_t i = begin; i < end; ++i) {
      const Bits key = load<kRaw>(in + i);
      any |= key;
      all &= key;
      ++count[std::size_t((key >> shift) & mask)];
    }
    return any ^ all;
  }

  // Moves each key of [begin, end) to next[digit]++, decoding it when it goes out in final order.
  template <bool kLoadRaw, bool kStoreDecoded, class Offsets>
  static void scatter(const Bits* in, Bits* out, std::size_t begin, std::size_t end, int shift, Bits mask,
                      Offsets& next) {
    for (std::size_t i = begin; i < end; ++i) {
      const Bits key = load<kLoadRaw>(in + i);
      out[next[std::size_t((key >> shift) & mask)]++] = kStoreDecoded ? decode(key) : key;
    }
  }

  // --- Ranges that need no more passes ---------------------------------------------------------

  // All keys of the range are equal: only their place and encoding may need fixing.
  template <bool kRaw>
  void finish_equal(const Bits* in, std::size_t begin, std::size_t end) {
    if constexpr (!kRaw)
      for (std::size_t i = begin; i < end; ++i) a_[i] = decode(in[i]);
  }

  template <bool kRaw>
  void finish_by_insertion(const Bits* in, std::size_t begin, std::size_t end) {
    std::array<Bits, kInsertionSortKeys> local;
    const std::size_t n = end - begin;
    for (std::size_t i = 0; i < n; ++i) {
      const Bits key = load<kRaw>(in + begin + i);
      std::size_t j = i;
      for (; j > 0 && local[j - 1] > key; --j) local[j] = local[j - 1];
      local[j] = key;
    }
    for (std::size_t i = 0; i < n; ++i) a_[begin + i] = decode(local[i]);
  }

  // --- One thread ----------------------------------------------------------------------------

  template <bool kRaw>
  void sort_sequential(const Bits* in, std::size_t begin, std::size_t end, int bit_end) {
    const std::size_t n = end - begin;
    if (n <= kInsertionSortKeys) return finish_by_insertion<kRaw>(in, begin, end);

    const int digit_bits =
        std::clamp(int(std::bit_width(n)) - kKeysPerBucketLog2, 1, kMaxSequentialDigitBits);
    const Bits mask = low_mask(digit_bits);
    SequentialCounts count;
    int shift = std::max(bit_end - digit_bits, 0);
    const Bits differing = count_digits<kRaw>(in, begin, end, shift, mask, count);
    if (differing == 0) return finish_equal<kRaw>(in, begin, end);
    if (std::bit_width(differing) - std::countr_zero(differing) <= unsigned(kLsdMaxBits))
      return sort_lsd<kRaw>(in, begin, end, differing);
    if (const int better = next_shift(differing, bit_end, digit_bits); better != shift) {
      shift = better;
      count_digits<kRaw>(in, begin, end, shift, mask, count);
    }

    // Offsets relative to `begin` (ranges are small enough for 32 bits).
    SequentialCounts next;
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

  // LSD passes of kDigitBits over the bits in which the keys of [begin, end) differ.
  template <bool kRaw>
  void sort_lsd(const Bits* in, std::size_t begin, std::size_t end, Bits differing) {
    const std::size_t n = end - begin;
    const int low = std::countr_zero(differing);
    const int passes = (int(std::bit_width(differing)) - low + kDigitBits - 1) / kDigitBits;
    const Bits mask = low_mask(kDigitBits);
    std::array<std::array<std::uint32_t, kParallelBuckets>, (kLsdMaxBits + kDigitBits - 1) / kDigitBits> counts{};
    for (std::size_t i = begin; i < end; ++i) {
      const Bits key = load<kRaw>(in + i);
      for (int p = 0; p < passes; ++p) ++counts[std::size_t(p)][std::size_t((key >> (low + p * kDigitBits)) & mask)];
    }
    // A pass whose digit is the same for every key would leave the order as it is: skip it.
    const Bits sample = load<kRaw>(in + begin);
    const auto splits = [&](int p) { return counts[std::size_t(p)][std::size_t((sample >> (low + p * kDigitBits)) & mask)] != n; };
    int last = passes - 1;
    while (!splits(last)) --last;  // some pass splits, since differing != 0

    const Bits* src = in;
    bool raw = kRaw;
    for (int p = 0; p <= last; ++p) {
      if (!splits(p)) continue;
      SequentialCounts next;  // (the sequential MSD's type: one scatter instantiation for both)
      std::uint32_t offset = 0;
      for (std::size_t d = 0; d < kParallelBuckets; ++d) {
        next[d] = offset;
        offset += counts[std::size_t(p)][d];
      }
      Bits* dst = other(src);
      const int shift = low + p * kDigitBits;
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

  // --- Many threads ----------------------------------------------------------------------------

  // (Ranges of at most kSequentialKeys come here only as the whole input: the bucket loop below
  // sorts such buckets itself.)
  template <bool kRaw>
  void sort_parallel(const Bits* in, std::size_t begin, std::size_t end, int bit_end) {
    const std::size_t n = end - begin;
    if (n <= kSequentialKeys) {
      sort_sequential<kRaw>(in, begin, end, bit_end);
      return placed(n);
    }

    // Task t owns keys [part(t), part(t + 1)): it counts them, then scatters them to the offsets
    // it was given, so every bucket receives task 0's keys first, then task 1's, and so on.
    const std::size_t tasks = std::clamp<std::size_t>(n / kKeysPerTask, 1, concurrency_ * kTasksPerThread);
    const auto part = [&](std::size_t t) { return begin + n / tasks * t + std::min(t, n % tasks); };
    const Bits mask = low_mask(kDigitBits);
    std::vector<ParallelCounts> counts(tasks);
    std::vector<Bits> differing_in(tasks);
    const auto count_all = [&](int shift) {
      tbb::parallel_for(std::size_t{0}, tasks, [&](std::size_t t) {
        differing_in[t] = count_digits<kRaw>(in, part(t), part(t + 1), shift, mask, counts[t]);
      });
    };
    int shift = std::max(bit_end - kDigitBits, 0);
    count_all(shift);
    // Bits that differ within a task, or between a task's first key and the range's first key.
    Bits differing = 0;
    const Bits first = load<kRaw>(in + begin);
    for (std::size_t t = 0; t < tasks; ++t) differing |= differing_in[t] | (load<kRaw>(in + part(t)) ^ first);
    if (differing == 0) {
      if constexpr (!kRaw)
        tbb::parallel_for(tbb::blocked_range<std::size_t>(begin, end, kKeysPerTask),
                          [&](const auto& r) { finish_equal<false>(in, r.begin(), r.end()); });
      return placed(n);
    }
    if (const int better = next_shift(differing, bit_end, kDigitBits); better != shift) {
      shift = better;
      count_all(shift);
    }

    // From here on counts[t][d] is task t's next write position in bucket d.
    const auto bucket_size = to_task_offsets(counts, begin);

    Bits* out = other(in);
    const bool last_digit = shift == 0;
    tbb::parallel_for(std::size_t{0}, tasks, [&](std::size_t t) {
      if (last_digit) {
        scatter<kRaw, true>(in, out, part(t), part(t + 1), 0, mask, counts[t]);
      } else {
        scatter<kRaw, false>(in, out, part(t), part(t + 1), shift, mask, counts[t]);
      }
    });
    if (last_digit) {
      // Each bucket holds one value and went out decoded: the range is final once it is in `a`.
      if (out != a_)
        tbb::parallel_for(tbb::blocked_range<std::size_t>(begin, end, kKeysPerTask), [&](const auto& r) {
          std::memcpy(a_ + r.begin(), out + r.begin(), r.size() * sizeof(Bits));
        });
      return placed(n);
    }

    std::array<std::size_t, kParallelBuckets + 1> bucket_begin;
    bucket_begin[0] = begin;
    for (std::size_t d = 0; d < kParallelBuckets; ++d) bucket_begin[d + 1] = bucket_begin[d] + bucket_size[d];
    // (The partitioning of parallel_for(0, kParallelBuckets, body): each chunk of buckets sums the
    // keys its cache-sized buckets leave sorted, and counts them once.)
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, kParallelBuckets), [&](const auto& buckets) {
      std::size_t finished = 0;
      for (std::size_t d = buckets.begin(); d < buckets.end(); ++d) {
        if (bucket_size[d] == 0) continue;
        if (bucket_size[d] > kSequentialKeys) {
          sort_parallel<false>(out, bucket_begin[d], bucket_begin[d + 1], shift);
        } else {
          sort_sequential<false>(out, bucket_begin[d], bucket_begin[d + 1], shift);
          finished += bucket_size[d];
        }
      }
      placed(finished);
    });
  }

  Bits* a_;
  Bits* b_;
  std::size_t concurrency_;
  const std::function<void(std::size_t)>* sorted_;  // nullptr: nobody asks
};

}  // namespace

template <class T>
void radix_sort(T* keys, std::size_t n, SortOrder order, T* scratch, const std::function<void(std::size_t)>& sorted) {
  using Bits = RadixBits<T>;
  // The sorter reads and writes the keys only as unsigned bit patterns of the same width.
  Bits* a = reinterpret_cast<Bits*>(keys);
  Bits* b = reinterpret_cast<Bits*>(scratch);
  if (order == SortOrder::ascending) {
    RadixSorter<T, SortOrder::ascending>(a, b, sorted).sort(n);
  } else {
    RadixSorter<T, SortOrder::descending>(a, b, sorted).sort(n);
  }
}

template void radix_sort<std::uint32_t>(std::uint32_t*, std::size_t, SortOrder, std::uint32_t*, const std::function<void(std::size_t)>&);
template void radix_sort<std::uint64_t>(std::uint64_t*, std::size_t, SortOrder, std::uint64_t*, const std::function<void(std::size_t)>&);
template void radix_sort<std::int32_t>(std::int32_t*, std::size_t, SortOrder, std::int32_t*, const std::function<void(std::size_t)>&);
template void radix_sort<std::int64_t>(std::int64_t*, std::size_t, SortOrder, std::int64_t*, const std::function<void(std::size_t)>&);
template void radix_sort<float>(float*, std::size_t, SortOrder, float*, const std::function<void(std::size_t)>&);
template void radix_sort<double>(double*, std::size_t, SortOrder, double*, const std::function<void(std::size_t)>&);

}  // namespace rmgsort::legacy
