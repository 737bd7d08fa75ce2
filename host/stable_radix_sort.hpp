// The stable parallel radix sort of 64-bit keys that carry something along: record tags (a u64 whose
// low bits are its position, host/tag_sort.hpp) and record pairs (a key and a u64 value,
// host/pair_sort.hpp). Out-of-place MSD passes while a range is larger than a core's cache (a first
// digit wide enough that one pass from memory leaves cache-sized buckets; a logarithmic digit for
// keys of every magnitude), then MSD or LSD passes and insertion sort in cache; every pass is
// stable. Included by those two files only.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <vector>

#include "host/radix_digits.hpp"
#include "host/record_tags_config.hpp"
#include "host/task_offsets.hpp"

namespace rmgsort {
namespace stable_radix_sort_detail {

using namespace record_tags_config;

// One sort call. A range lives in `a` (the caller's elements, where the result must end up) or in
// `b` (scratch) at the same offsets; every sort_* function leaves its range sorted in `a`. Elements
// are ordered by their key (KeyOf{}(element), a u64) and are moved, never compared otherwise, by
// stable passes only, so equal keys keep their order. Digits are taken only from the key bits above
// index_bits in which a range's keys differ (`prefix_mask_`); the bits below must already be in
// order (a tag's position) or zero.
template <class Element, class KeyOf>
class StableRadixSorter {
  static constexpr std::size_t kBuckets = std::size_t{1} << kMaxParallelDigitBits;
  // The tuning's counts are of 8-byte tags; ranges of wider elements take as many bytes.
  static constexpr std::uint64_t kSequential = kSequentialTags * 8 / sizeof(Element);
  static constexpr std::uint64_t kStreaming = kStreamingTags * 8 / sizeof(Element);
  static constexpr std::uint64_t kL1 = kL1Tags * 8 / sizeof(Element);
  static constexpr std::uint64_t kLine = 64 / sizeof(Element);
  static_assert(64 % sizeof(Element) == 0, "whole elements to a cache line");
  using ParallelCounts = std::array<std::uint64_t, kBuckets>;
  using SequentialCounts = std::array<std::uint32_t, std::size_t{1} << kMaxSequentialTagDigitBits>;
  static_assert(kSequential <= UINT32_MAX);

 public:
  // Sorts by the key bits above index_bits (those below: 0 unless the elements are in order by them).
  StableRadixSorter(Element* elements, Element* scratch, int index_bits)
      : a_(elements),
        b_(scratch),
        index_bits_(index_bits),
        prefix_mask_(~std::uint64_t{0} << index_bits),
        concurrency_(std::uint64_t(tbb::this_task_arena::max_concurrency())) {}

  void sort(std::uint64_t n) {
    if (n > 1) sort_parallel(a_, 0, n, 64);
  }

 private:
  Element* other(const Element* buffer) const { return buffer == a_ ? b_ : a_; }
  static std::uint64_t key(const Element& e) { return KeyOf{}(e); }
  static std::uint64_t digit(const Element& e, int shift, std::uint64_t mask) { return (key(e) >> shift) & mask; }

  // The range is sorted: only its place may need fixing.
  void settle(const Element* in, std::uint64_t begin, std::uint64_t end) {
    if (in != a_) std::memcpy(a_ + begin, in + begin, (end - begin) * sizeof(Element));
  }

  // Counts the tags of [begin, end) per bucket and returns the prefix bits in which they differ.
  template <class Digit, class Counts>
  std::uint64_t count_digits(const Element* in, std::uint64_t begin, std::uint64_t end, Digit digit,
                             Counts& count) const {
    std::fill(count.begin(), count.begin() + std::ptrdiff_t(digit.buckets()), 0);
    std::uint64_t any = 0, all = ~std::uint64_t{0};
    for (std::uint64_t i = begin; i < end; ++i) {
      any |= key(in[i]);
      all &= key(in[i]);
      ++count[digit(key(in[i]))];
    }
    return (any ^ all) & prefix_mask_;
  }

  // scatter() for a parallel pass: a task's tags for bucket d collect in a cache-line buffer and
  // go out a whole line at a time (kStream: with non-temporal stores, which skip the read for
  // ownership and leave the caches to the next pass's input). Only the partial lines at the two
  // ends of the task's region in a bucket are written tag by tag: other tasks' regions share them.
  template <bool kStream, class Digit>
  static void scatter_lines(const Element* in, Element* out, std::uint64_t begin, std::uint64_t end, Digit digit,
                            ParallelCounts& next) {
    // kBuckets lines (256 KiB at 12 bits): only the digit.buckets() in use are touched.
    alignas(64) std::array<std::array<Element, kLine>, kBuckets> lines;
    // Index i of `out` lies at slot (i + skew) % kLine of its cache line.
    const std::uint64_t skew = (reinterpret_cast<std::uintptr_t>(out) / sizeof(Element)) % kLine;
    const ParallelCounts first = next;
    const auto write_part = [&](std::size_t d, std::uint64_t from, std::uint64_t to) {
      for (std::uint64_t k = from; k < to; ++k) out[k] = lines[d][(k + skew) % kLine];
    };
    for (std::uint64_t i = begin; i < end; ++i) {
      const std::size_t d = digit(key(in[i]));
      const std::uint64_t at = next[d]++;
      const std::uint64_t slot = (at + skew) % kLine;
      lines[d][slot] = in[i];
      if (slot != kLine - 1) continue;
      const std::uint64_t line_begin = at + 1 - kLine;
      if (at + 1 < first[d] + kLine) {
        write_part(d, first[d], at + 1);
      } else if constexpr (kStream) {
        store_line_streaming(out + line_begin, lines[d].data());
      } else {
        std::memcpy(out + line_begin, lines[d].data(), 64);
      }
    }
    for (std::size_t d = 0; d < digit.buckets(); ++d) {
      const std::uint64_t slot = (next[d] + skew) % kLine;
      if (slot != 0) write_part(d, std::max(first[d], next[d] - std::min(slot, next[d])), next[d]);
    }
#if defined(__SSE2__)
    if constexpr (kStream) _mm_sfence();  // the streamed lines are seen by whoever reads them next
#endif
  }

  static void store_line_streaming(Element* to, const Element* line) {
#if defined(__SSE2__)
    auto* dst = reinterpret_cast<__m128i*>(to);
    const auto* src = reinterpret_cast<const __m128i*>(line);
    for (int k = 0; k < 4; ++k) _mm_stream_si128(dst + k, _mm_load_si128(src + k));
#else
    std::memcpy(to, line, 64);
#endif
  }

  template <class Offsets>
  static void scatter(const Element* in, Element* out, std::uint64_t begin, std::uint64_t end, int shift,
                      std::uint64_t mask, Offsets& next) {
    for (std::uint64_t i = begin; i < end; ++i) out[next[digit(in[i], shift, mask)]++] = in[i];
  }

  // --- One thread: ranges that fit a core's cache ----------------------------------------------

  // The range's tags agree on every bit at and above bit_end.
  void sort_sequential(const Element* in, std::uint64_t begin, std::uint64_t end, int bit_end) {
    const std::uint64_t n = end - begin;
    if (n <= kRankSortTags) return sort_by_rank(in, begin, end);
    if (n <= kInsertionSortTags) return sort_by_insertion(in, begin, end);
    if (bit_end <= index_bits_) return settle(in, begin, end);  // equal prefixes
    // Few prefix bits left below bit_end (the common case under an MSD pass): LSD passes over
    // them, whose histograms also tell which of them differ.
    if (bit_end - index_bits_ <= kLsdMaxTagBits) return sort_lsd(in, begin, end, index_bits_, bit_end);
    // An MSD pass on the top differing bits, its digit sized to the range: a range beyond L1 into
    // buckets that fit L1 (at most kL1 elements for evenly spread keys; a wider digit scatters to
    // more lines than L1 holds), a range in L1 into buckets of ~8 elements to sort by rank.
    // Counted right below bit_end, where the keys under an MSD pass differ (the count also tells
    // in which bits they do); again lower where they agree there.
    const int digit_bits =
        n > kL1 ? std::clamp(int(std::bit_width((n - 1) / kL1)), 1, kMaxSequentialTagDigitBits)
                : std::clamp(int(std::bit_width(n)) - kLeafBucketBits, 1, kMaxSequentialTagDigitBits);
    const std::uint64_t mask = (std::uint64_t{1} << digit_bits) - 1;
    int shift = std::max(bit_end - digit_bits, 0);
    SequentialCounts count;
    const std::uint64_t differing = count_digits(in, begin, end, RadixDigit{shift, mask}, count);
    if (differing == 0) return settle(in, begin, end);
    const int low = std::countr_zero(differing), high = int(std::bit_width(differing));
    if (high - low <= kLsdMaxTagBits) return sort_lsd(in, begin, end, low, high);
    if (high <= shift) {
      shift = std::max(high - digit_bits, 0);
      count_digits(in, begin, end, RadixDigit{shift, mask}, count);
    }
    SequentialCounts next;
    std::uint32_t offset = 0;
    for (std::uint64_t d = 0; d <= mask; ++d) next[d] = offset, offset += count[d];
    Element* out = other(in);
    scatter(in + begin, out + begin, 0, n, shift, mask, next);
    std::uint64_t bucket_begin = begin;
    for (std::uint64_t d = 0; d <= mask; ++d) {
      if (count[d] != 0) sort_sequential(out, bucket_begin, bucket_begin + count[d], shift);
      bucket_begin += count[d];
    }
  }

  // Each element goes straight to its rank: the number of keys below it, and of equal ones before
  // it. Branch-free, where insertion sort mispredicts about once an element.
  void sort_by_rank(const Element* in, std::uint64_t begin, std::uint64_t end) {
    const std::uint64_t n = end - begin;
    std::array<std::uint64_t, kRankSortTags> keys;
    std::array<Element, kRankSortTags> local;
    for (std::uint64_t i = 0; i < n; ++i) keys[i] = key(local[i] = in[begin + i]);
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint64_t rank = 0;
      for (std::uint64_t j = 0; j < i; ++j) rank += keys[j] <= keys[i];
      for (std::uint64_t j = i + 1; j < n; ++j) rank += keys[j] < keys[i];
      a_[begin + rank] = local[i];
    }
  }

  void sort_by_insertion(const Element* in, std::uint64_t begin, std::uint64_t end) {
    std::array<Element, kInsertionSortTags> local;
    const std::uint64_t n = end - begin;
    for (std::uint64_t i = 0; i < n; ++i) {
      const Element e = in[begin + i];
      std::uint64_t j = i;
      for (; j > 0 && key(local[j - 1]) > key(e); --j) local[j] = local[j - 1];
      local[j] = e;
    }
    std::copy_n(local.begin(), n, a_ + begin);
  }

  // LSD passes over bits [low, high) in digits of at most kTagDigitBits, skipping those whose
  // digit is the same in every tag.
  void sort_lsd(const Element* in, std::uint64_t begin, std::uint64_t end, int low, int high) {
    const std::uint64_t n = end - begin;
    const int passes = (high - low + kTagDigitBits - 1) / kTagDigitBits;
    const int digit_bits = (high - low + passes - 1) / passes;
    const std::uint64_t mask = (std::uint64_t{1} << digit_bits) - 1;
    std::array<std::array<std::uint32_t, std::size_t{1} << kTagDigitBits>, (kLsdMaxTagBits + kTagDigitBits - 1) / kTagDigitBits> counts;
    for (int p = 0; p < passes; ++p) std::fill_n(counts[std::size_t(p)].begin(), mask + 1, 0);
    for (std::uint64_t i = begin; i < end; ++i)
      for (int p = 0; p < passes; ++p) ++counts[std::size_t(p)][digit(in[i], low + p * digit_bits, mask)];
    const Element sample = in[begin];
    const Element* src = in;
    for (int p = 0; p < passes; ++p) {
      const int shift = low + p * digit_bits;
      if (counts[std::size_t(p)][digit(sample, shift, mask)] == n) continue;
      SequentialCounts next;
      std::uint32_t offset = 0;
      for (std::size_t d = 0; d <= mask; ++d) next[d] = offset, offset += counts[std::size_t(p)][d];
      Element* dst = other(src);
      scatter(src + begin, dst + begin, 0, n, shift, mask, next);
      src = dst;
    }
    settle(src, begin, end);
  }

  // --- Many threads ----------------------------------------------------------------------------

  // The range's tags agree on every bit at and above bit_end.
  void sort_parallel(const Element* in, std::uint64_t begin, std::uint64_t end, int bit_end) {
    const std::uint64_t n = end - begin;
    if (n <= kSequential) return sort_sequential(in, begin, end, bit_end);
    if (bit_end <= index_bits_) return settle_parallel(in, begin, end);  // equal prefixes
    // A digit wide enough that the buckets of evenly spread keys hold kSequential / 2 elements:
    // one pass from memory, then every bucket is sorted in its core's cache.
    const int digit_bits = std::clamp(int(std::bit_width((n - 1) / (kSequential / 2))), kTagDigitBits,
                                      kMaxParallelDigitBits);

    // The digit right below bit_end, unless the tags agree there: then right below the highest
    // prefix bit in which they differ (a second count). A LogDigit instead where a sample says
    // that it spreads the keys much better.
    Pass pass(*this, in, begin, end);
    RadixDigit radix{std::max(bit_end - digit_bits, 0), (std::uint64_t{1} << digit_bits) - 1};
    if (bit_end > digit_bits && spread_logarithmically(in, begin, end, bit_end, digit_bits)) {
      const LogDigit log(bit_end, digit_bits);
      pass.count(log);
      return pass.partition(log);
    }
    const std::uint64_t differing = pass.count(radix);
    if (differing == 0) return settle_parallel(in, begin, end);
    if ((differing >> radix.shift) == 0) {
      radix.shift = std::max(int(std::bit_width(differing)) - digit_bits, 0);
      pass.count(radix);
    }
    // No differing prefix bit below the digit: every bucket will be sorted.
    pass.partition(radix, radix.shift <= std::countr_zero(differing));
  }

  // Whether a LogDigit of the range's bits below bit_end spreads it much better than a radix digit
  // (host/radix_digits.hpp), judged on kLogSample keys spread over the range.
  bool spread_logarithmically(const Element* in, std::uint64_t begin, std::uint64_t end, int bit_end,
                              int digit_bits) const {
    std::array<std::uint64_t, kLogSample> sample;
    for (std::uint64_t i = 0; i < kLogSample; ++i) sample[i] = key(in[begin + (end - begin) / kLogSample * i]);
    return spreads_logarithmically(sample, prefix_mask_, bit_end, digit_bits);
  }

  // One parallel MSD pass over [begin, end) of `in` into other(in). Task t owns elements [part(t),
  // part(t + 1)): it counts them, then scatters them to the offsets it was given, so every bucket
  // receives task 0's elements first, then task 1's: stable.
  class Pass {
   public:
    Pass(StableRadixSorter& sorter, const Element* in, std::uint64_t begin, std::uint64_t end)
        : sorter_(sorter), in_(in), begin_(begin), end_(end),
          tasks_(std::clamp<std::uint64_t>((end - begin) / kTagsPerTask, 1,
                                           sorter.concurrency_ * kTagTasksPerThread)),
          counts_(tasks_) {}

    // Counts every task's elements per bucket; returns the prefix bits in which they differ.
    template <class Digit>
    std::uint64_t count(Digit digit) {
      std::vector<std::uint64_t> differing_in(tasks_);
      tbb::parallel_for(std::uint64_t{0}, tasks_, [&](std::uint64_t t) {
        differing_in[t] = sorter_.count_digits(in_, part(t), part(t + 1), digit, counts_[t]);
      });
      std::uint64_t differing = 0;
      for (std::uint64_t t = 0; t < tasks_; ++t)
        differing |= differing_in[t] | ((key(in_[part(t)]) ^ key(in_[begin_])) & sorter_.prefix_mask_);
      return differing;
    }

    // Scatters by `digit` (counted last), then sorts every bucket unless they are sorted already.
    template <class Digit>
    void partition(Digit digit, bool sorted = false) {
      // From here on counts_[t][d] is task t's next write position in bucket d.
      const auto bucket_size = to_task_offsets(counts_, begin_);
      Element* out = sorter_.other(in_);
      const bool stream = end_ - begin_ >= kStreaming;
      tbb::parallel_for(std::uint64_t{0}, tasks_, [&](std::uint64_t t) {
        if (stream) {
          scatter_lines<true>(in_, out, part(t), part(t + 1), digit, counts_[t]);
        } else {
          scatter_lines<false>(in_, out, part(t), part(t + 1), digit, counts_[t]);
        }
      });
      if (sorted) return sorter_.settle_parallel(out, begin_, end_);
      std::vector<std::uint64_t> bucket_begin(digit.buckets() + 1);
      bucket_begin[0] = begin_;
      for (std::size_t d = 0; d < digit.buckets(); ++d) bucket_begin[d + 1] = bucket_begin[d] + bucket_size[d];
      tbb::parallel_for(std::size_t{0}, digit.buckets(), [&](std::size_t d) {
        if (bucket_size[d] != 0) sorter_.sort_parallel(out, bucket_begin[d], bucket_begin[d + 1], digit.bit_end(d));
      });
    }

   private:
    std::uint64_t part(std::uint64_t t) const {
      const std::uint64_t n = end_ - begin_;
      return begin_ + n / tasks_ * t + std::min(t, n % tasks_);
    }

    StableRadixSorter& sorter_;
    const Element* in_;
    std::uint64_t begin_, end_, tasks_;
    std::vector<ParallelCounts> counts_;
  };

  void settle_parallel(const Element* in, std::uint64_t begin, std::uint64_t end) {
    if (in == a_) return;
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(begin, end, kTagsPerTask),
                      [&](const auto& r) { settle(in, r.begin(), r.end()); });
  }

  Element* a_;
  Element* b_;
  int index_bits_;
  std::uint64_t prefix_mask_;
  std::uint64_t concurrency_;
};

}  // namespace stable_radix_sort_detail

// Sorts elements[0, count) by KeyOf{}(element), stably; scratch holds count elements and may alias
// nothing else. Runs on the current oneTBB arena. Synchronous.
template <class Element, class KeyOf>
void stable_radix_sort(Element* elements, std::uint64_t count, int index_bits, Element* scratch) {
  stable_radix_sort_detail::StableRadixSorter<Element, KeyOf>(elements, scratch, index_bits).sort(count);
}

}  // namespace rmgsort
