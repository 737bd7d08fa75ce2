#include "host/radix_sort.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <memory>

#include "host/radix_block_partition.hpp"
#include "host/radix_digits.hpp"
#include "host/radix_sort_cache.hpp"
#include "host/radix_sort_config.hpp"
#include "host/radix_sort_prefix.hpp"
#include "host/radix_sort_presorted.hpp"

namespace rmgsort {
namespace {

using namespace radix_config;
using radix_sort_detail::CacheSorter;
using radix_sort_detail::kBuckets;

// The threads a sort may use: the arena's, within --threads (a global_control).
std::size_t radix_sort_threads() {
  return std::min(std::size_t(tbb::this_task_arena::max_concurrency()),
                  tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
}

// One sort call. keys_ holds the caller's bit patterns until a range's first read ("raw", kRaw),
// encoded radix bits afterwards (every in-place pass stores keys encoded); every sort_* function
// leaves its range sorted and decoded, and is told that the range's keys agree on every bit at and
// above `bit_end`. Each range that leaves the parallel passes sorted is counted once to `sorted_`;
// the prefix finished is told to `prefix_` (the first pass's buckets, or the whole range at once).
template <class T, SortOrder kOrder>
class RadixSorter {
  using Cache = CacheSorter<T, kOrder>;
  using Bits = typename Cache::Bits;
  static constexpr int kKeyBits = Cache::kKeyBits;

  // A thread's buffer for the cache-sized ranges it sorts, as large as the largest so far: as
  // those ranges are disjoint, all threads' buffers together hold at most the sort's keys.
  struct CacheScratch {
    std::unique_ptr<Bits[]> keys;
    std::size_t size = 0;
    Bits* get(std::size_t n) {
      if (size < n) {
        keys.reset(new Bits[n]);
        size = n;
      }
      return keys.get();
    }
  };

 public:
  RadixSorter(Bits* keys, std::size_t n, const SortedKeysHook& sorted, const SortedPrefixHook& prefix)
      : keys_(keys),
        n_(n),
        concurrency_(radix_sort_threads()),
        sorted_(sorted ? &sorted : nullptr),
        prefix_(prefix ? &prefix : nullptr) {}

  void sort() {
    const std::size_t n = n_;
    if (n <= kSequentialKeys) {
      if (n > 1) sort_in_cache<true>(0, n, kKeyBits);
      placed(n);
      return finished_all();
    }
    using radix_sort_detail::Presorted;
    const Presorted presorted = radix_sort_detail::find_presorted(
        n, concurrency_ * 4, [keys = keys_](std::size_t i) { return load<true>(keys + i); });
    if (presorted == Presorted::no) return sort_parallel<true>(0, n, kKeyBits);
    // Equal keys are the same bytes, so the reverse of a descending input is the sorted one.
    if (presorted == Presorted::descending) radix_sort_detail::reverse_in_parallel(keys_, n, kKeysPerTask);
    placed(n);
    finished_all();
  }

 private:
  template <bool kRaw>
  static Bits load(const Bits* p) {
    return Cache::template load<kRaw>(p);
  }
  // load<kRaw> as a type of its own, so that the pass inlines it.
  template <bool kRaw>
  struct Load {
    Bits operator()(const Bits* p) const { return load<kRaw>(p); }
  };
  void placed(std::size_t keys) const {
    if (sorted_ != nullptr && keys > 0) (*sorted_)(keys);
  }
  // Every key is sorted and decoded, told at once (the first parallel pass tells its buckets itself).
  void finished_all() const {
    if (prefix_ != nullptr && n_ > 0) (*prefix_)(n_);
  }

  template <bool kRaw>
  void sort_in_cache(std::size_t begin, std::size_t end, int bit_end) {
    const std::size_t n = end - begin;
    Cache(keys_ + begin, scratch_.local().get(n)).template sort<kRaw>(n, bit_end);
  }

  // The bits in which 257 keys spread over the range differ: a subset of the range's.
  template <bool kRaw>
  static Bits sampled_differing(const Bits* keys, std::size_t n) {
    Bits any = load<kRaw>(keys + n - 1), all = any;
    for (std::size_t i = 0; i < 256; ++i) {
      const Bits key = load<kRaw>(keys + n / 256 * i);
      any |= key;
      all &= key;
    }
    return any ^ all;
  }

  template <bool kRaw>
  static Bits exact_differing(const Bits* keys, std::size_t n) {
    using AnyAll = std::array<Bits, 2>;
    const AnyAll found = tbb::parallel_reduce(
        tbb::blocked_range<std::size_t>(0, n, kKeysPerTask), AnyAll{0, Bits(~Bits(0))},
        [&](const auto& r, AnyAll acc) {
          for (std::size_t i = r.begin(); i < r.end(); ++i) {
            const Bits key = load<kRaw>(keys + i);
            acc[0] |= key;
            acc[1] &= key;
          }
          return acc;
        },
        [](AnyAll a, AnyAll b) { return AnyAll{Bits(a[0] | b[0]), Bits(a[1] & b[1])}; });
    return found[0] ^ found[1];
  }

  static void decode_all(Bits* keys, std::size_t n) {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, kKeysPerTask), [&](const auto& r) {
      for (std::size_t i = r.begin(); i < r.end(); ++i) keys[i] = Cache::decode(keys[i]);
    });
  }

  // One in-place pass by the leading digit in which the keys differ (a logarithmic digit instead
  // where a sample says it spreads them much better: keys of many magnitudes), then the buckets.
  template <bool kRaw>
  void sort_parallel(std::size_t begin, std::size_t end, int bit_end) {
    const std::size_t n = end - begin;
    Bits* keys = keys_ + begin;
    // The digit is chosen from a sample; the pass itself finds every differing bit, and passes
    // again if the sample missed one above the digit (its first pass only permuted the keys).
    Bits differing = sampled_differing<kRaw>(keys, n);
    if (differing == 0) differing = exact_differing<kRaw>(keys, n);
    if (differing == 0) {
      if constexpr (!kRaw) decode_all(keys, n);
      placed(n);
      if (kRaw) finished_all();  // only the first pass reads raw keys
      return;
    }
    // The range's share of the threads, so that the passes running at once (on disjoint ranges)
    // have about as many stripes together as there are threads.
    const std::size_t share = (n * concurrency_ + n_ - 1) / n_;
    const std::size_t stripes = std::clamp<std::size_t>(std::min(n / kKeysPerTask, share), 1, concurrency_);
    int shift = Cache::next_shift(differing, bit_end, kDigitBits);
    if (bit_end > kDigitBits && spreads_logarithmically<kRaw>(keys, n, bit_end, shift)) {
      const LogDigit log(bit_end, kDigitBits);
      const auto outcome = radix_sort_detail::block_partition(keys, n, log, stripes, Load<kRaw>{}, pool_);
      return sort_buckets<kRaw>(begin, outcome.bucket_begin, log);
    }
    const auto radix = [](int at) { return RadixDigit{at, kBuckets - 1}; };
    auto outcome = radix_sort_detail::block_partition(keys, n, radix(shift), stripes, Load<kRaw>{}, pool_);
    if (shift + kDigitBits < kKeyBits && (outcome.differing >> (shift + kDigitBits)) != 0) {
      shift = Cache::next_shift(outcome.differing, bit_end, kDigitBits);
      outcome = radix_sort_detail::block_partition(keys, n, radix(shift), stripes, Load<false>{}, pool_);
    }
    if (shift == 0) {
      // Each bucket holds one value: the range is sorted once decoded.
      decode_all(keys, n);
      placed(n);
      if (kRaw) finished_all();
      return;
    }
    sort_buckets<kRaw>(begin, outcome.bucket_begin, radix(shift));
  }

  // The buckets of a pass by `digit` over the range at `begin`, each on the bits below its bit_end.
  template <bool kRaw, class Digit>
  void sort_buckets(std::size_t begin, const std::array<std::size_t, kBuckets + 1>& bucket_begin, const Digit& digit) {
    if (kRaw && prefix_ != nullptr) return sort_buckets_in_order(begin, bucket_begin, digit);
    // (The partitioning of parallel_for(0, kBuckets, body): each chunk of buckets sums the keys its
    // cache-sized buckets leave sorted, and counts them once.)
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, kBuckets), [&](const auto& buckets) {
      std::size_t finished = 0;
      for (std::size_t d = buckets.begin(); d < buckets.end(); ++d) {
        const std::size_t size = bucket_begin[d + 1] - bucket_begin[d];
        if (size == 0) continue;
        if (size > kSequentialKeys) {
          sort_parallel<false>(begin + bucket_begin[d], begin + bucket_begin[d + 1], digit.bit_end(d));
        } else {
          sort_in_cache<false>(begin + bucket_begin[d], begin + bucket_begin[d + 1], digit.bit_end(d));
          finished += size;
        }
      }
      placed(finished);
    });
  }

  // Whether a LogDigit spreads the range's keys much better than a radix digit (host/radix_digits.hpp),
  // judged on kLogSampleKeys keys spread over it; not even asked when 256 of them spread evenly over
  // the radix digit (no bucket beyond 1/32 of them): a few microseconds, where the full test (then
  // sorting its samples' buckets, ~50 us) cost 2^26 uniform u32 keys ~9 % of the sort in 257 passes.
  template <bool kRaw>
  static bool spreads_logarithmically(const Bits* keys, std::size_t n, int bit_end, int radix_shift) {
    const RadixDigit radix{radix_shift, kBuckets - 1};
    std::array<std::uint16_t, kBuckets> count{};
    std::uint16_t most = 0;
    for (std::size_t i = 0; i < kBuckets; ++i)
      most = std::max(most, ++count[radix(load<kRaw>(keys + n / kBuckets * i))]);
    if (most <= kBuckets / 32) return false;
    std::array<std::uint64_t, radix_config::kLogSampleKeys> sample;
    for (std::size_t i = 0; i < sample.size(); ++i) sample[i] = load<kRaw>(keys + n / sample.size() * i);
    return rmgsort::spreads_logarithmically(sample, ~std::uint64_t{0}, bit_end, kDigitBits);
  }

  // The first pass's buckets when the finished prefix is asked for: in ascending order, each told
  // to prefix_ once it and every bucket before it are sorted.
  template <class Digit>
  void sort_buckets_in_order(std::size_t begin, const std::array<std::size_t, kBuckets + 1>& bucket_begin,
                             const Digit& digit) {
    radix_sort_detail::FinishedPrefix finished(bucket_begin.data(), kBuckets, *prefix_);
    radix_sort_detail::for_each_bucket_in_order(
        kBuckets, concurrency_,
        [&](std::size_t d) {
          const std::size_t size = bucket_begin[d + 1] - bucket_begin[d];
          if (size > kSequentialKeys) {
            sort_parallel<false>(begin + bucket_begin[d], begin + bucket_begin[d + 1], digit.bit_end(d));
          } else if (size > 0) {
            sort_in_cache<false>(begin + bucket_begin[d], begin + bucket_begin[d + 1], digit.bit_end(d));
            placed(size);
          }
        },
        [&](std::size_t d) { finished.finish(d); });
  }

  Bits* keys_;
  std::size_t n_;  // the keys of the whole sort
  std::size_t concurrency_;
  const SortedKeysHook* sorted_;    // nullptr: nobody asks
  const SortedPrefixHook* prefix_;  // nullptr: nobody asks
  tbb::enumerable_thread_specific<CacheScratch> scratch_;
  radix_sort_detail::StripeBufferPool<Bits> pool_;
};

}  // namespace

std::uint64_t radix_sort_scratch_bytes(KeyType type, std::uint64_t keys) {
  const std::uint64_t width = key_width(type), threads = radix_sort_threads();
  if (keys <= kSequentialKeys) return keys * width;
  // Stripe buffers: those of the passes running at once (a stripe has at least kKeysPerTask keys
  // unless it is its pass's only one), with each pass's spill buffer.
  const std::uint64_t stripes = std::min<std::uint64_t>(threads, (keys + kKeysPerTask - 1) / kKeysPerTask);
  return std::min<std::uint64_t>(keys, threads * kSequentialKeys) * width + (2 * stripes + 2) * kStripeBufferBytes;
}

template <class T>
void radix_sort(T* keys, std::size_t n, SortOrder order, const SortedKeysHook& sorted, const SortedPrefixHook& prefix) {
  // The sorter reads and writes the keys only as unsigned bit patterns of the same width.
  auto* bits = reinterpret_cast<RadixBits<T>*>(keys);
  if (order == SortOrder::ascending) {
    RadixSorter<T, SortOrder::ascending>(bits, n, sorted, prefix).sort();
  } else {
    RadixSorter<T, SortOrder::descending>(bits, n, sorted, prefix).sort();
  }
}

template void radix_sort<std::uint32_t>(std::uint32_t*, std::size_t, SortOrder, const SortedKeysHook&, const SortedPrefixHook&);
template void radix_sort<std::uint64_t>(std::uint64_t*, std::size_t, SortOrder, const SortedKeysHook&, const SortedPrefixHook&);
template void radix_sort<std::int32_t>(std::int32_t*, std::size_t, SortOrder, const SortedKeysHook&, const SortedPrefixHook&);
template void radix_sort<std::int64_t>(std::int64_t*, std::size_t, SortOrder, const SortedKeysHook&, const SortedPrefixHook&);
template void radix_sort<float>(float*, std::size_t, SortOrder, const SortedKeysHook&, const SortedPrefixHook&);
template void radix_sort<double>(double*, std::size_t, SortOrder, const SortedKeysHook&, const SortedPrefixHook&);

}  // namespace rmgsort
