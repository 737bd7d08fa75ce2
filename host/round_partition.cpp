#include "host/round_partition.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/spin_mutex.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/key_type.hpp"
#include "host/chunk_buckets.hpp"
#include "host/partition_chunks.hpp"
#include "host/round_classifier.hpp"
#include "host/top_digit_histogram.hpp"
#include "host/write_combiner.hpp"
#include "core/error.hpp"

namespace rmgsort {
namespace {

using namespace partition_config;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Counters in `out` or in a thread's vector, read and written through memcpy (TopDigitHistogram's).
void increment(std::byte* counts, std::size_t counter) {
  TopDigitHistogram::store(counts, counter, TopDigitHistogram::load(counts, counter) + 1);
}

// Room in `out` for per-chunk counters while it holds no keys yet (before the scatter): handed out
// front to back, in whole cache lines.
class ScratchInOut {
 public:
  ScratchInOut(std::byte* begin, std::byte* end) : next_(begin), end_(end) {}
  // `bytes` of the room, or nullptr when they do not fit.
  std::byte* take(std::uint64_t bytes) {
    bytes = (bytes + 63) / 64 * 64;
    if (std::uint64_t(end_ - next_) < bytes) return nullptr;
    return std::exchange(next_, next_ + bytes);
  }

 private:
  std::byte* next_;
  std::byte* end_;
};

// One call. Keys are read and written as unsigned bit patterns (Bits) and classified by their
// encoded radix bits; they are never written encoded.
template <class T, SortOrder kOrder>
class RoundPartitioner {
  using Order = KeyOrder<T, kOrder>;
  using Bits = typename Order::Bits;
  using Classifier = RoundClassifier<Bits>;
  static_assert(Classifier::kRootDigits == TopDigitHistogram::kDigits, "the root table is the top-digit histogram");

 public:
  RoundPartitioner(const Bits* in, Bits* out, std::uint64_t count, std::uint64_t capacity)
      : in_(in), out_(out), count_(count), capacity_(capacity), chunks_(count),
        scratch_(reinterpret_cast<std::byte*>(out), reinterpret_cast<std::byte*>(out + count)) {}

  RoundPlan run(RoundPartitionStats& stats, const TopDigitHistogram* given) {
    auto start = Clock::now();
    // The first pass, unless the caller counted it: its counters live in `out` while there is room
    // (always beyond one chunk: 256 KiB per chunk of >= 4 MiB), as a fresh 64 MiB allocation per
    // call cost ~35 ms of page faults on a 2-core virtual machine (2^28 keys, 256 chunks).
    std::optional<TopDigitHistogram> own;
    if (!given) {
      own.emplace(KeyTypeOf<T>::value, kOrder, count_, scratch_.take(TopDigitHistogram::storage_bytes(count_)));
      own->count_all(reinterpret_cast<const std::byte*>(in_));
    }
    const TopDigitHistogram& top = given ? *given : *own;
    stats.top_digits_given = given != nullptr;
    Classifier classifier(top.totals(), Bits(top.any_bits() ^ top.all_bits()), Bits(top.all_bits()), capacity_);
    table_counts_.resize(1);
    refine(classifier, stats);
    stats.histogram_ms = ms_since(start);

    start = Clock::now();
    BucketPlan<Bits> plan = classifier.plan();
    const std::size_t buckets = plan.buckets();
    const TopDigitRouter<Bits> top_router(classifier.table(0).route);
    std::optional<SplitterRouter<Bits>> splitter_router;
    if (classifier.refined()) splitter_router.emplace(plan.low);
    if (!classifier.refined() || tables_counted_per_chunk_) {
      sum_chunk_buckets(top, classifier, top_router, buckets);
    } else {
      stats.plan_ms = ms_since(start);
      start = Clock::now();
      count_chunk_buckets(*splitter_router, buckets);
      stats.bucket_counting_pass = true;
      stats.histogram_ms += ms_since(start);
      start = Clock::now();
    }
    own.reset();  // (its counters may be in `out`, which the scatter overwrites)
    chunk_buckets_.place(plan.begin);
    stats.plan_ms += ms_since(start);

    start = Clock::now();
    if (splitter_router) {
      scatter(*splitter_router);
    } else {
      scatter(top_router);
    }
    stats.scatter_ms = ms_since(start);
    return std::move(plan.rounds);
  }

 private:
  static Bits encode(Bits raw) { return Order::encode(__builtin_bit_cast(T, raw)); }

  // Level by level, a read pass counts the keys of every new table (heavy digit), in batches of at
  // most kMaxRefinementDigits digits.
  void refine(Classifier& classifier, RoundPartitionStats& stats) {
    std::vector<std::uint32_t> pending = classifier.add_children({0});
    while (!pending.empty()) {
      for (std::size_t first = 0; first < pending.size();) {
        std::size_t last = first, digits = 0;
        while (last < pending.size() &&
               (last == first || digits + classifier.table(pending[last]).digits() <= kMaxRefinementDigits))
          digits += classifier.table(pending[last++]).digits();
        count_tables(classifier, {pending.begin() + std::ptrdiff_t(first), pending.begin() + std::ptrdiff_t(last)});
        ++stats.refinement_passes;
        first = last;
      }
      pending = classifier.add_children(pending);
    }
  }

  // A table of a refinement pass: its keys are [prefix, prefix + last], counted from counter
  // `offset` on by their bits [shift, top).
  struct Slot {
    Bits prefix, last;
    std::size_t offset;
    int shift;
  };

  // One refinement pass: fills counts, `differing` and `common` of `batch`, tables counted next.
  // Each chunk counts into counters of its own in `out` while there is room (then the chunks'
  // bucket counts need no read pass of their own); otherwise each thread counts into its own.
  void count_tables(Classifier& classifier, const std::vector<std::uint32_t>& batch) {
    const BatchLayout layout = lay_out(classifier, batch);
    const std::size_t chunk_bytes = (layout.digits + 1) * sizeof(std::uint32_t);
    std::byte* per_chunk =
        tables_counted_per_chunk_ ? scratch_.take(std::uint64_t(chunks_.chunks()) * chunk_bytes) : nullptr;
    tables_counted_per_chunk_ = per_chunk != nullptr;
    const BatchCounts counted = count_batch(layout, per_chunk, chunk_bytes);
    table_counts_.resize(classifier.tables());
    for (std::size_t s = 0; s < layout.slots.size(); ++s) {
      DigitTable<Bits>& table = classifier.table(layout.order[s]);
      const auto first = counted.totals.begin() + std::ptrdiff_t(layout.slots[s].offset);
      std::copy_n(first, table.digits(), table.counts.begin());
      table.differing = Bits(counted.any ^ counted.all);
      table.common = counted.all;
      table_counts_[layout.order[s]] = {per_chunk, chunk_bytes, layout.slots[s].offset};
    }
  }

  // The tables of a refinement pass in prefix order, their counters one after another.
  struct BatchLayout {
    std::vector<std::uint32_t> order;  // the tables' indices, by prefix
    std::vector<Slot> slots;           // slots[s]: table order[s]'s
    std::vector<Bits> prefixes;        // prefixes[s]: slots[s].prefix
    std::size_t digits = 0;            // the tables' counters, [0, digits); the spare one is `digits`
  };

  // The tables hold disjoint key ranges: a key belongs to the last table (by prefix) whose prefix
  // is not above it, if it has that prefix. Their counters follow one another in prefix order,
  // then one that nobody reads, for the keys of no table here, so that no key takes a branch of
  // its own. (16 such counters taken in turn, lest their increments wait on one another, made no
  // difference: zipf:1.0's first refinement, 1.24 ns a key with one, 1.30 with 16.)
  static BatchLayout lay_out(Classifier& classifier, const std::vector<std::uint32_t>& batch) {
    BatchLayout layout;
    layout.order = batch;
    std::sort(layout.order.begin(), layout.order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return classifier.table(a).prefix < classifier.table(b).prefix; });
    for (const std::uint32_t index : layout.order) {
      const DigitTable<Bits>& table = classifier.table(index);
      // (A child's digit lies below its parent's: top() < kKeyBits.)
      layout.slots.push_back({table.prefix, Bits((Bits(1) << table.top()) - 1), layout.digits, table.shift});
      layout.prefixes.push_back(table.prefix);
      layout.digits += table.digits();
    }
    return layout;
  }

  // What a refinement pass counted: each counter's total, and the OR and AND of its keys' bits:
  // exact for a batch of one table (the usual case); for several, a superset of each table's
  // differing bits, which only makes their children wider, and the bits outside it are shared.
  struct BatchCounts {
    std::vector<std::uint64_t> totals;
    Bits any = 0, all = Bits(~Bits(0));
  };

  // Counts each chunk into per_chunk's counters (chunk_bytes a chunk) or, without it, a thread's.
  BatchCounts count_batch(const BatchLayout& layout, std::byte* per_chunk, std::size_t chunk_bytes) const {
    const std::size_t counters = layout.digits + 1;
    const std::size_t chunks = chunks_.chunks();
    // Without room in `out`: one thread's counts. 32-bit counters: flushed before a chunk could overflow them.
    struct Local {
      std::vector<std::uint32_t> counts;
      std::uint64_t keys = 0;
    };
    tbb::enumerable_thread_specific<Local> locals([&] { return Local{std::vector<std::uint32_t>(per_chunk ? 0 : counters)}; });
    BatchCounts counted;
    counted.totals.assign(counters, 0);
    tbb::spin_mutex totals_mutex;
    const auto flush = [&](Local& local) {
      tbb::spin_mutex::scoped_lock lock(totals_mutex);
      for (std::size_t d = 0; d < local.counts.size(); ++d) counted.totals[d] += std::exchange(local.counts[d], 0);
      local.keys = 0;
    };
    // `differing` and `common` per chunk, combined in chunk order.
    std::vector<Bits> chunk_any(chunks, 0), chunk_all(chunks, Bits(~Bits(0)));
    tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t chunk) {
      std::byte* counts;
      if (per_chunk) {
        counts = per_chunk + chunk * chunk_bytes;
        std::memset(counts, 0, chunk_bytes);
      } else {
        Local& local = locals.local();
        if (local.keys + chunks_.size(chunk) > UINT32_MAX) flush(local);
        local.keys += chunks_.size(chunk);
        counts = reinterpret_cast<std::byte*>(local.counts.data());
      }
      count_chunk_tables(chunk, counts, layout.slots, layout.prefixes, layout.digits, chunk_any[chunk],
                         chunk_all[chunk]);
    });
    if (per_chunk) {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, counters, 4096), [&](const auto& range) {
        for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
          const std::byte* counts = per_chunk + chunk * chunk_bytes;
          for (std::size_t d = range.begin(); d < range.end(); ++d)
            counted.totals[d] += TopDigitHistogram::load(counts, d);
        }
      });
    } else {
      for (Local& local : locals) flush(local);
    }
    for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
      counted.any |= chunk_any[chunk];
      counted.all &= chunk_all[chunk];
    }
    return counted;
  }

  // One chunk of a refinement pass. Branch-free: the compiler turns `matched ? a : b` into a branch,
  // which skewed inputs mispredict (zipf:1.0 matches ~3/4 of the keys, at random): 2^26 keys, 2
  // threads, its three refinement passes: 790 ms with the branch, 290 ms with masks (shared machine).
  // `spare`: the spare counter (after the tables' digits).
  void count_chunk_tables(std::size_t chunk, std::byte* counts, const std::vector<Slot>& slots,
                          const std::vector<Bits>& prefixes, std::size_t spare, Bits& chunk_any,
                          Bits& chunk_all) const {
    const Bits* in = in_;
    const std::uint64_t begin = chunks_.begin(chunk), end = chunks_.end(chunk);
    // `differing` and `common` in registers, over the keys of every table of the batch, rather
    // than per table in memory at a key-dependent index.
    Bits any = 0, all = Bits(~Bits(0));
    const std::size_t tables = prefixes.size();
    if (tables == 1) {
      // The usual batch of one table, its bounds in registers. A key of the table is
      // prefix + relative, relative <= last, and counts in counter relative >> shift (< 2^width);
      // any other key has a relative above `last` (below the prefix, it wraps around), and
      // min(relative, last + 1) sends it to the spare counter right after the table's. 2^26
      // bits:10 keys, 2 threads: 90 ms a pass with masks selecting the counter, 55 ms by min.
      const Bits prefix = slots[0].prefix, last = slots[0].last;
      const int shift = slots[0].shift;
      for (std::uint64_t i = begin; i < end; ++i) {
        const Bits key = encode(in[i]);
        const Bits relative = Bits(key - prefix);
        const Bits matched = Bits(0) - Bits(relative <= last);
        any |= key & matched;
        all &= key | Bits(~matched);
        increment(counts, std::size_t(std::min(relative, Bits(last + 1)) >> shift));
      }
    } else {
      const Bits* prefix = prefixes.data();
      const Slot* slot_of = slots.data();
      for (std::uint64_t i = begin; i < end; ++i) {
        const Bits key = encode(in[i]);
        // The last table whose prefix is not above the key, or the first when none is (whose
        // test the key then fails).
        std::size_t base = 0;
        for (std::size_t n = tables; n > 1; n -= n / 2) base += std::size_t(prefix[base + n / 2] <= key) * (n / 2);
        const Slot& slot = slot_of[base];
        const Bits relative = Bits(key - slot.prefix);
        const Bits matched = Bits(0) - Bits(relative <= slot.last);
        const std::size_t take = std::size_t(0) - std::size_t(matched & 1);
        any |= key & matched;
        all &= key | Bits(~matched);
        increment(counts, ((slot.offset + std::size_t(relative >> slot.shift)) & take) | (spare & ~take));
      }
    }
    chunk_any = any;
    chunk_all = all;
  }

  // Each chunk's keys per bucket, from the chunks' counters: the top-digit histogram's and, after
  // refinement, every table's (when tables_counted_per_chunk_). A key is counted where its digit
  // goes to a bucket (leaf or run), not where it goes to a table. A top byte routed to one bucket
  // adds its sum; only the bytes split between buckets or refined read their 256 counters.
  void sum_chunk_buckets(const TopDigitHistogram& top, Classifier& classifier, const TopDigitRouter<Bits>& router,
                         std::size_t buckets) {
    const std::vector<std::uint32_t>& root_route = classifier.table(0).route;
    chunk_buckets_.count(chunks_, buckets, [&](std::size_t chunk, std::uint64_t* row) {
      const std::byte* counts = top.chunk_counts(chunk);
      const std::uint32_t* byte_sums = top.top_byte_sums(chunk);
      for (std::size_t byte = 0; byte < 256; ++byte) {
        if (const std::uint32_t bucket = router.top_byte(byte); !(bucket & kToTable)) {
          row[bucket] += byte_sums[byte];
          continue;
        }
        for (std::size_t d = byte * 256; d < byte * 256 + 256; ++d)
          if (const std::uint32_t entry = root_route[d]; !(entry & kToTable)) row[entry] += TopDigitHistogram::load(counts, d);
      }
      for (std::uint32_t t = 1; t < table_counts_.size(); ++t) {
        const DigitTable<Bits>& table = classifier.table(t);
        const TableCounts& where = table_counts_[t];
        const std::byte* table_counts = where.per_chunk + chunk * where.chunk_bytes + where.offset * sizeof(std::uint32_t);
        for (std::size_t d = 0; d < table.digits(); ++d)
          if (const std::uint32_t entry = table.route[d]; !(entry & kToTable))
            row[entry] += TopDigitHistogram::load(table_counts, d);
      }
    });
  }

  // Each chunk's keys per bucket, by a read pass that classifies every key.
  template <class Router>
  void count_chunk_buckets(const Router& router, std::size_t buckets) {
    chunk_buckets_.count(chunks_, buckets, [&](std::size_t chunk, std::uint64_t* counts) {
      const Router local_router = router;
      const Bits* in = in_;
      std::uint64_t i = chunks_.begin(chunk);
      const std::uint64_t end = chunks_.end(chunk);
      for (; i + 4 <= end; i += 4) {
        const Bits keys[4] = {encode(in[i]), encode(in[i + 1]), encode(in[i + 2]), encode(in[i + 3])};
        std::uint32_t b[4];
        local_router.buckets_of4(keys, b);
        ++counts[b[0]];
        ++counts[b[1]];
        ++counts[b[2]];
        ++counts[b[3]];
      }
      for (; i < end; ++i) ++counts[local_router.bucket_of(encode(in[i]))];
    });
  }

  template <class Router>
  void scatter(const Router& router) {
    chunk_buckets_.scatter([&](std::size_t chunk, const std::uint64_t* first) {
      WriteCombiner<Bits> combiner(out_, first, chunk_buckets_.buckets());
      // Locals, not members or captures: the flushes' calls would make the compiler reload those
      // on every key.
      const Router local_router = router;
      const Bits* in = in_;
      std::uint64_t i = chunks_.begin(chunk);
      const std::uint64_t end = chunks_.end(chunk);
      // Four keys classified before any is pushed: the lookups overlap (-7 % scatter time).
      for (; i + 4 <= end; i += 4) {
        const Bits keys[4] = {in[i], in[i + 1], in[i + 2], in[i + 3]};
        const Bits encoded[4] = {encode(keys[0]), encode(keys[1]), encode(keys[2]), encode(keys[3])};
        std::uint32_t b[4];
        local_router.buckets_of4(encoded, b);
        combiner.push(b[0], keys[0]);
        combiner.push(b[1], keys[1]);
        combiner.push(b[2], keys[2]);
        combiner.push(b[3], keys[3]);
      }
      for (; i < end; ++i) combiner.push(local_router.bucket_of(encode(in[i])), in[i]);
      combiner.finish();
    });
  }

  // Where a refined table's counters per chunk are: chunk c's at per_chunk + c * chunk_bytes, from
  // counter `offset` on (per_chunk is null when its pass counted per thread).
  struct TableCounts {
    const std::byte* per_chunk = nullptr;
    std::size_t chunk_bytes = 0;
    std::size_t offset = 0;
  };

  const Bits* in_;
  Bits* out_;
  std::uint64_t count_;
  std::uint64_t capacity_;
  PartitionChunks chunks_;
  ScratchInOut scratch_;                      // `out`, until the scatter
  std::vector<TableCounts> table_counts_;     // by table index (0: the root, in the TopDigitHistogram)
  bool tables_counted_per_chunk_ = true;      // by every refinement pass so far
  ChunkBuckets chunk_buckets_;                // each chunk's keys per bucket, then first destinations
};

void parallel_copy(const void* in, void* out, std::uint64_t bytes) {
  constexpr std::uint64_t kBlock = std::uint64_t{1} << 23;
  tbb::parallel_for(std::uint64_t{0}, (bytes + kBlock - 1) / kBlock, [&](std::uint64_t block) {
    const std::uint64_t begin = block * kBlock;
    std::memcpy(static_cast<char*>(out) + begin, static_cast<const char*>(in) + begin,
                std::min(kBlock, bytes - begin));
  });
}

}  // namespace

template <class T>
RoundPlan partition_into_rounds(const T* in, T* out, std::uint64_t count, SortOrder order,
                                std::uint64_t round_capacity, RoundPartitionStats* stats,
                                const TopDigitHistogram* top_digits) {
  RMGSORT_EXPECTS(round_capacity >= 1, "a round holds at least one key");
  if (top_digits) {
    RMGSORT_EXPECTS(top_digits->finished(), "the top-digit histogram given to the partition is not finished");
    RMGSORT_EXPECTS(top_digits->type() == KeyTypeOf<T>::value && top_digits->order() == order &&
                        top_digits->count() == count,
                    "the top-digit histogram given to the partition was counted for other keys");
  }
  RoundPartitionStats local_stats;
  RoundPartitionStats& s = stats ? *stats : local_stats;
  s = {};
  RoundPlan plan;
  if (count == 0) return plan;
  if (count <= round_capacity) {
    const auto start = Clock::now();
    parallel_copy(in, out, count * sizeof(T));
    s.scatter_ms = ms_since(start);
    plan.cuts.push_back(count);
    return plan;
  }
  using Bits = RadixBits<T>;
  const auto* from = reinterpret_cast<const Bits*>(in);
  auto* to = reinterpret_cast<Bits*>(out);
  if (order == SortOrder::ascending)
    return RoundPartitioner<T, SortOrder::ascending>(from, to, count, round_capacity).run(s, top_digits);
  return RoundPartitioner<T, SortOrder::descending>(from, to, count, round_capacity).run(s, top_digits);
}

#define RMGSORT_INSTANTIATE(T)                                                                        \
  template RoundPlan partition_into_rounds<T>(const T*, T*, std::uint64_t, SortOrder, std::uint64_t, \
                                              RoundPartitionStats*, const TopDigitHistogram*)
RMGSORT_INSTANTIATE(std::uint32_t);
RMGSORT_INSTANTIATE(std::uint64_t);
RMGSORT_INSTANTIATE(std::int32_t);
RMGSORT_INSTANTIATE(std::int64_t);
RMGSORT_INSTANTIATE(float);
RMGSORT_INSTANTIATE(double);
#undef RMGSORT_INSTANTIATE

}  // namespace rmgsort
