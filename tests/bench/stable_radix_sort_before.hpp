// The CPU pair sort as it was before 7ba72c9 (host/stable_radix_sort.hpp and its tuning at b766126),
// kept for record_sort_bench's same-run "before" column only: namespace rmgsort::before.
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

#include "host/task_offsets.hpp"

namespace rmgsort::before::record_tags_config {

// Bits per digit of a parallel MSD pass and of an LSD pass: 256 buckets keep the scatter's write
// streams within L1.
inline constexpr int kTagDigitBits = 8;

// A sequential MSD pass takes at most this many bits (2048 32-bit counters: 8 KiB, in L1).
inline constexpr int kMaxSequentialTagDigitBits = 11;

// A cache-sized range whose prefixes differ in at most this many bits is finished by LSD passes.
inline constexpr int kLsdMaxTagBits = 24;

// Ranges of at most this many tags (512 KiB) are sorted by one thread, in its L2.
inline constexpr std::uint64_t kSequentialTags = std::uint64_t{1} << 16;

// Ranges of at most this many tags are finished by insertion sort.
inline constexpr std::uint64_t kInsertionSortTags = 32;

// A parallel pass hands each task at least this many tags, and makes up to kTagTasksPerThread
// tasks per thread for load balance.
inline constexpr std::uint64_t kTagsPerTask = std::uint64_t{1} << 16;
inline constexpr std::uint64_t kTagTasksPerThread = 4;

// A parallel pass over at least this many tags (2 MiB, beyond L2) writes its lines
// with non-temporal stores; smaller ranges are read again from cache by the next pass.
inline constexpr std::uint64_t kStreamingTags = std::uint64_t{1} << 18;

}  // namespace rmgsort::before::record_tags_config

namespace rmgsort::before {
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
  static constexpr std::size_t kBuckets = std::size_t{1} << kTagDigitBits;
  // The tuning's counts are of 8-byte tags; ranges of wider elements take as many bytes.
  static constexpr std::uint64_t kSequential = kSequentialTags * 8 / sizeof(Element);
  static constexpr std::uint64_t kStreaming = kStreamingTags * 8 / sizeof(Element);
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

  // Counts the tags of [begin, end) per digit and returns the prefix bits in which they differ.
  template <class Counts>
  std::uint64_t count_digits(const Element* in, std::uint64_t begin, std::uint64_t end, int shift,
                             std::uint64_t mask, Counts& count) const {
    std::fill(count.begin(), count.begin() + std::ptrdiff_t(mask) + 1, 0);
    std::uint64_t any = 0, all = ~std::uint64_t{0};
    for (std::uint64_t i = begin; i < end; ++i) {
      any |= key(in[i]);
      all &= key(in[i]);
      ++count[digit(in[i], shift, mask)];
    }
    return (any ^ all) & prefix_mask_;
  }

  // scatter() for a parallel pass: a task's tags for bucket d collect in a cache-line buffer and
  // go out a whole line at a time (kStream: with non-temporal stores, which skip the read for
  // ownership and leave the caches to the next pass's input). Only the partial lines at the two
  // ends of the task's region in a bucket are written tag by tag: other tasks' regions share them.
  template <bool kStream>
  static void scatter_lines(const Element* in, Element* out, std::uint64_t begin, std::uint64_t end, int shift,
                            std::uint64_t mask, ParallelCounts& next) {
    alignas(64) std::array<std::array<Element, kLine>, kBuckets> lines;
    // Index i of `out` lies at slot (i + skew) % kLine of its cache line.
    const std::uint64_t skew = (reinterpret_cast<std::uintptr_t>(out) / sizeof(Element)) % kLine;
    const ParallelCounts first = next;
    const auto write_part = [&](std::size_t d, std::uint64_t from, std::uint64_t to) {
      for (std::uint64_t k = from; k < to; ++k) out[k] = lines[d][(k + skew) % kLine];
    };
    for (std::uint64_t i = begin; i < end; ++i) {
      const std::size_t d = std::size_t(digit(in[i], shift, mask));
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
    for (std::size_t d = 0; d < kBuckets; ++d) {
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
    if (n <= kInsertionSortTags) return sort_by_insertion(in, begin, end);
    if (bit_end <= index_bits_) return settle(in, begin, end);  // equal prefixes
    // Few prefix bits left below bit_end (the common case under an MSD pass): LSD passes over
    // them, whose histograms also tell which of them differ.
    if (bit_end - index_bits_ <= kLsdMaxTagBits) return sort_lsd(in, begin, end, index_bits_, bit_end);
    std::uint64_t any = 0, all = ~std::uint64_t{0};
    for (std::uint64_t i = begin; i < end; ++i) any |= key(in[i]), all &= key(in[i]);
    const std::uint64_t differing = (any ^ all) & prefix_mask_;
    if (differing == 0) return settle(in, begin, end);
    const int low = std::countr_zero(differing), high = int(std::bit_width(differing));
    if (high - low <= kLsdMaxTagBits) return sort_lsd(in, begin, end, low, high);

    // An MSD pass on the top differing bits, its digit sized to the range (~16 tags a bucket).
    const int digit_bits = std::clamp(int(std::bit_width(n)) - 4, 1, kMaxSequentialTagDigitBits);
    const int shift = std::max(high - digit_bits, 0);
    const std::uint64_t mask = (std::uint64_t{1} << digit_bits) - 1;
    SequentialCounts count;
    count_digits(in, begin, end, shift, mask, count);
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
    std::array<std::array<std::uint32_t, kBuckets>, (kLsdMaxTagBits + kTagDigitBits - 1) / kTagDigitBits> counts;
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

    // Task t owns tags [part(t), part(t + 1)): it counts them, then scatters them to the offsets
    // it was given, so every bucket receives task 0's tags first, then task 1's: stable.
    const std::uint64_t tasks = std::clamp<std::uint64_t>(n / kTagsPerTask, 1, concurrency_ * kTagTasksPerThread);
    const auto part = [&](std::uint64_t t) { return begin + n / tasks * t + std::min(t, n % tasks); };
    const std::uint64_t mask = kBuckets - 1;
    std::vector<ParallelCounts> counts(tasks);
    std::vector<std::uint64_t> differing_in(tasks);
    const auto count_all = [&](int shift) {
      tbb::parallel_for(std::uint64_t{0}, tasks, [&](std::uint64_t t) {
        differing_in[t] = count_digits(in, part(t), part(t + 1), shift, mask, counts[t]);
      });
    };
    // The digit right below bit_end, unless the tags agree there: then right below the highest
    // prefix bit in which they differ (a second count).
    int shift = std::max(bit_end - kTagDigitBits, 0);
    count_all(shift);
    std::uint64_t differing = 0;
    for (std::uint64_t t = 0; t < tasks; ++t)
      differing |= differing_in[t] | ((key(in[part(t)]) ^ key(in[begin])) & prefix_mask_);
    if (differing == 0) return settle_parallel(in, begin, end);
    if ((differing >> shift) == 0) {
      shift = std::max(int(std::bit_width(differing)) - kTagDigitBits, 0);
      count_all(shift);
    }

    // From here on counts[t][d] is task t's next write position in bucket d.
    const auto bucket_size = to_task_offsets(counts, begin);
    Element* out = other(in);
    const bool stream = n >= kStreaming;
    tbb::parallel_for(std::uint64_t{0}, tasks, [&](std::uint64_t t) {
      if (stream) {
        scatter_lines<true>(in, out, part(t), part(t + 1), shift, mask, counts[t]);
      } else {
        scatter_lines<false>(in, out, part(t), part(t + 1), shift, mask, counts[t]);
      }
    });
    // No differing prefix bit below the digit: every bucket is sorted.
    if (shift <= std::countr_zero(differing)) return settle_parallel(out, begin, end);

    std::array<std::uint64_t, kBuckets + 1> bucket_begin;
    bucket_begin[0] = begin;
    for (std::size_t d = 0; d < kBuckets; ++d) bucket_begin[d + 1] = bucket_begin[d] + bucket_size[d];
    tbb::parallel_for(std::size_t{0}, kBuckets, [&](std::size_t d) {
      if (bucket_size[d] != 0) sort_parallel(out, bucket_begin[d], bucket_begin[d + 1], shift);
    });
  }

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

}  // namespace rmgsort::before
