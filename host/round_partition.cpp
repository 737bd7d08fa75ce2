#include "host/round_partition.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/spin_mutex.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "host/round_classifier.hpp"
#include "io/error.hpp"

namespace rmgsort {
namespace {

using namespace partition_config;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The chunks of every pass: [c * keys, min((c + 1) * keys, count)), a function of the key count only.
class Chunking {
 public:
  explicit Chunking(std::uint64_t count) : count_(count) {
    // Per-chunk 32-bit counters hold any chunk's keys.
    const std::uint64_t chunks = std::max<std::uint64_t>(
        std::clamp<std::uint64_t>((count + kMinChunkKeys - 1) / kMinChunkKeys, 1, kMaxChunks),
        (count + UINT32_MAX - 1) / UINT32_MAX);
    keys_ = ((count + chunks - 1) / chunks + 63) / 64 * 64;
    chunks_ = std::size_t((count + keys_ - 1) / keys_);
  }
  [[nodiscard]] std::size_t chunks() const { return chunks_; }
  [[nodiscard]] std::uint64_t begin(std::size_t chunk) const { return chunk * keys_; }
  [[nodiscard]] std::uint64_t end(std::size_t chunk) const { return std::min(count_, (chunk + 1) * keys_); }
  [[nodiscard]] std::uint64_t size(std::size_t chunk) const { return end(chunk) - begin(chunk); }

 private:
  std::uint64_t count_;
  std::uint64_t keys_ = 64;
  std::size_t chunks_ = 0;
};

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// Software write combining for one chunk's scatter. Bucket b's keys from this chunk go to
// out[first[b], first[b] + this chunk's count in b); other chunks write right before and after, so
// only the two partial blocks at the ends of that range are shared, and those are written with
// ordinary stores. Each bucket has a buffer of one block (kWriteCombiningBytes) mirroring the
// aligned block of `out` that its next key falls in: a key goes to the buffer slot of its
// destination, and once a block's last slot is filled, the block goes out whole with non-temporal
// stores (no read-for-ownership of `out`, no cache pollution: the pass never reads `out`).
template <class Bits>
class WriteCombiner {
  static constexpr std::size_t kBlockKeys = kWriteCombiningBytes / sizeof(Bits);

 public:
  // first[b]: the chunk's first destination in bucket b.
  WriteCombiner(Bits* out, const std::uint64_t* first, std::size_t buckets)
      : out_(out),
        first_(first, first + buckets),
        block_(buckets),
        slot_(buckets),
        buffers_(static_cast<Bits*>(std::aligned_alloc(kWriteCombiningBytes, buckets * kWriteCombiningBytes))) {
    if (!buffers_) throw std::bad_alloc();
    // Position p lies in the block of `out` starting at p - offset(p), aligned to kWriteCombiningBytes.
    const auto phase = std::uint64_t(reinterpret_cast<std::uintptr_t>(out) / sizeof(Bits));
    for (std::size_t b = 0; b < buckets; ++b) {
      const std::uint64_t offset = (first[b] + phase) % kBlockKeys;
      block_[b] = std::int64_t(first[b]) - std::int64_t(offset);
      slot_[b] = buffer(b) + offset;
    }
  }

  // A buffer's end is the next buffer's aligned start: the only test a key needs.
  void push(std::uint32_t bucket, Bits key) {
    Bits* slot = slot_[bucket];
    *slot++ = key;
    if (reinterpret_cast<std::uintptr_t>(slot) % kWriteCombiningBytes == 0) [[unlikely]] slot = flush_block(bucket);
    slot_[bucket] = slot;
  }

  // Writes what the buffers still hold (each bucket's last, partial block).
  void finish() {
    for (std::size_t b = 0; b < first_.size(); ++b) {
      const std::int64_t end = block_[b] + (slot_[b] - buffer(b));
      copy_out(b, std::max(block_[b], std::int64_t(first_[b])), end);
    }
#if defined(__SSE2__)
    _mm_sfence();  // non-temporal stores are weakly ordered: complete them before the task ends
#endif
  }

 private:
  Bits* buffer(std::size_t bucket) const { return buffers_.get() + bucket * kBlockKeys; }

  // Bucket's block is complete (or complete from this chunk's first key on): out with it.
  Bits* flush_block(std::size_t bucket) {
    const std::int64_t block = block_[bucket];
    block_[bucket] += std::int64_t(kBlockKeys);
    if (block < std::int64_t(first_[bucket])) {  // the block's start belongs to the chunk before
      copy_out(bucket, std::int64_t(first_[bucket]), block + std::int64_t(kBlockKeys), block);
      return buffer(bucket);
    }
    const Bits* from = buffer(bucket);
    Bits* to = out_ + block;
#if defined(__SSE2__)
    for (std::size_t i = 0; i < kWriteCombiningBytes / 16; ++i)
      _mm_stream_si128(reinterpret_cast<__m128i*>(to) + i, _mm_load_si128(reinterpret_cast<const __m128i*>(from) + i));
#else
    std::memcpy(to, from, kWriteCombiningBytes);
#endif
    return buffer(bucket);
  }

  // Copies positions [begin, end) of the bucket's block starting at `block` with ordinary stores.
  void copy_out(std::size_t bucket, std::int64_t begin, std::int64_t end) { copy_out(bucket, begin, end, block_[bucket]); }
  void copy_out(std::size_t bucket, std::int64_t begin, std::int64_t end, std::int64_t block) {
    if (begin < end)
      std::memcpy(out_ + begin, buffer(bucket) + (begin - block), std::size_t(end - begin) * sizeof(Bits));
  }

  Bits* out_;
  std::vector<std::uint64_t> first_;
  std::vector<std::int64_t> block_;  // where each buffer's block starts in `out` (may start before `out`)
  std::vector<Bits*> slot_;          // each bucket's next slot in its buffer
  std::unique_ptr<Bits, FreeDeleter> buffers_;
};

// Each chunk's top-digit histogram (2^16 32-bit counters) and its sums per top byte, from the first
// pass until the scatter's offsets are known. The histograms live in `out`, which the scatter
// overwrites afterwards, when it has room (always beyond one chunk: 256 KiB per chunk of >= 4 MiB):
// a fresh 64 MiB allocation per call cost ~35 ms of page faults on the development VM (2^28 keys,
// 256 chunks). Counters are read and written with memcpy, which may access the bytes of any object,
// so the caller's keys are never accessed through a wrong type.
class ChunkHistograms {
 public:
  static constexpr std::size_t kDigits = std::size_t{1} << 16;
  static constexpr std::size_t kBytes = kDigits * sizeof(std::uint32_t);

  ChunkHistograms(void* out, std::uint64_t out_bytes, std::size_t chunks) : byte_sums_(chunks * 256) {
    if (out_bytes >= chunks * kBytes) {
      storage_ = static_cast<std::byte*>(out);
    } else {
      owned_ = std::make_unique_for_overwrite<std::byte[]>(chunks * kBytes);
      storage_ = owned_.get();
    }
  }

  [[nodiscard]] std::byte* counts(std::size_t chunk) const { return storage_ + chunk * kBytes; }
  [[nodiscard]] static std::uint32_t load(const std::byte* counts, std::size_t digit) {
    std::uint32_t value;
    std::memcpy(&value, counts + digit * sizeof value, sizeof value);
    return value;
  }
  static void store(std::byte* counts, std::size_t digit, std::uint32_t value) {
    std::memcpy(counts + digit * sizeof value, &value, sizeof value);
  }
  static void increment(std::byte* counts, std::size_t digit) { store(counts, digit, load(counts, digit) + 1); }

  // Keys of the chunk whose top byte is `byte`.
  [[nodiscard]] std::uint32_t* byte_sums(std::size_t chunk) { return byte_sums_.data() + chunk * 256; }

 private:
  std::unique_ptr<std::byte[]> owned_;
  std::byte* storage_;
  std::vector<std::uint32_t> byte_sums_;
};

// One call. Keys are read and written as unsigned bit patterns (Bits) and classified by their
// encoded radix bits; they are never written encoded.
template <class T, SortOrder kOrder>
class RoundPartitioner {
  using Order = KeyOrder<T, kOrder>;
  using Bits = typename Order::Bits;
  using Classifier = RoundClassifier<Bits>;
  static constexpr std::size_t kRootDigits = Classifier::kRootDigits;
  static constexpr int kRootShift = Classifier::kKeyBits - Classifier::kDigitBits;

 public:
  RoundPartitioner(const Bits* in, Bits* out, std::uint64_t count, std::uint64_t capacity)
      : in_(in), out_(out), count_(count), capacity_(capacity), chunking_(count) {}

  RoundPlan run(RoundPartitionStats& stats) {
    auto start = Clock::now();
    Classifier classifier = count_top_digits();
    refine(classifier, stats);
    stats.histogram_ms = ms_since(start);

    start = Clock::now();
    BucketPlan<Bits> plan = classifier.plan();
    if (classifier.refined()) {
      const SplitterRouter<Bits> router(plan.low);
      stats.plan_ms = ms_since(start);
      start = Clock::now();
      count_chunk_buckets(router, plan.buckets());
      stats.histogram_ms += ms_since(start);
      start = Clock::now();
      histograms_.reset();
      place_chunks(plan.begin);
      stats.plan_ms += ms_since(start);
      start = Clock::now();
      scatter(router, plan.buckets());
    } else {
      const TopDigitRouter<Bits> router(classifier.table(0).route);
      sum_chunk_buckets(router, classifier.table(0).route, plan.buckets());
      histograms_.reset();
      place_chunks(plan.begin);
      stats.plan_ms = ms_since(start);
      start = Clock::now();
      scatter(router, plan.buckets());
    }
    stats.scatter_ms = ms_since(start);
    return std::move(plan.rounds);
  }

 private:
  static Bits encode(Bits raw) { return Order::encode(__builtin_bit_cast(T, raw)); }

  // The first pass: each chunk's histogram of the top 16 bits, kept for the scatter's offsets,
  // and the bits in which the keys differ (which let refinement skip bits every key shares).
  Classifier count_top_digits() {
    const std::size_t chunks = chunking_.chunks();
    histograms_.emplace(out_, count_ * sizeof(Bits), chunks);
    ChunkHistograms& histograms = *histograms_;
    std::vector<Bits> any(chunks), all(chunks);
    tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t chunk) {
      const Bits* in = in_;  // (locals: byte stores may alias any member)
      std::byte* counts = histograms.counts(chunk);
      std::memset(counts, 0, ChunkHistograms::kBytes);
      Bits chunk_any = 0, chunk_all = Bits(~Bits(0));
      // Four keys a step, loaded before any counter changes: their counter updates are
      // independent, so the core overlaps their L1 misses (the 256 KiB of counters live in L2).
      std::uint64_t i = chunking_.begin(chunk);
      const std::uint64_t end = chunking_.end(chunk);
      for (; i + 4 <= end; i += 4) {
        const Bits k0 = encode(in[i]), k1 = encode(in[i + 1]), k2 = encode(in[i + 2]), k3 = encode(in[i + 3]);
        chunk_any |= (k0 | k1) | (k2 | k3);
        chunk_all &= (k0 & k1) & (k2 & k3);
        ChunkHistograms::increment(counts, std::size_t(k0 >> kRootShift));
        ChunkHistograms::increment(counts, std::size_t(k1 >> kRootShift));
        ChunkHistograms::increment(counts, std::size_t(k2 >> kRootShift));
        ChunkHistograms::increment(counts, std::size_t(k3 >> kRootShift));
      }
      for (; i < end; ++i) {
        const Bits key = encode(in[i]);
        chunk_any |= key;
        chunk_all &= key;
        ChunkHistograms::increment(counts, std::size_t(key >> kRootShift));
      }
      any[chunk] = chunk_any;
      all[chunk] = chunk_all;
      // While the counters are in L2: the sums per top byte, which spare the offsets most of a
      // second read of the histograms.
      std::uint32_t* byte_sums = histograms.byte_sums(chunk);
      for (std::size_t byte = 0; byte < 256; ++byte) {
        std::uint32_t sum = 0;
        for (std::size_t d = byte * 256; d < byte * 256 + 256; ++d) sum += ChunkHistograms::load(counts, d);
        byte_sums[byte] = sum;
      }
    });
    std::vector<std::uint64_t> totals(kRootDigits);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, kRootDigits, 4096), [&](const auto& digits) {
      for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
        const std::byte* counts = histograms.counts(chunk);
        for (std::size_t d = digits.begin(); d < digits.end(); ++d) totals[d] += ChunkHistograms::load(counts, d);
      }
    });
    Bits any_key = 0, all_keys = Bits(~Bits(0));
    for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
      any_key |= any[chunk];
      all_keys &= all[chunk];
    }
    return Classifier(std::move(totals), Bits(any_key ^ all_keys), all_keys, capacity_);
  }

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

  // One refinement pass: fills counts, `differing` and `common` of `batch`, tables counted next.
  void count_tables(Classifier& classifier, const std::vector<std::uint32_t>& batch) {
    // The tables hold disjoint key ranges: a key belongs to the last table (by prefix) whose prefix
    // is not above it, if it has that prefix. Slot 0 is a dummy with one counter that nobody reads,
    // for the keys of no table here, so that no key takes a branch of its own.
    std::vector<std::uint32_t> order = batch;
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return classifier.table(a).prefix < classifier.table(b).prefix; });
    struct Slot {
      Bits prefix, high_mask;  // a key is the table's when (key ^ prefix) & high_mask == 0
      std::size_t offset;      // of its counters
      int shift;
      Bits digit_mask;
    };
    std::vector<Slot> slots{{Bits(0), Bits(~Bits(0)), 0, 0, Bits(0)}};
    std::vector<Bits> prefixes;
    std::size_t digits = 1;
    for (const std::uint32_t index : order) {
      const DigitTable<Bits>& table = classifier.table(index);
      slots.push_back({table.prefix, Bits(~Bits((Bits(1) << table.top()) - 1)), digits, table.shift, table.mask()});
      prefixes.push_back(table.prefix);
      digits += table.digits();
    }

    // One thread's counts. 32-bit counters: flushed before a chunk could overflow them.
    struct Local {
      std::vector<std::uint32_t> counts;
      Bits any = 0, all = Bits(~Bits(0));
      std::uint64_t keys = 0;
    };
    tbb::enumerable_thread_specific<Local> locals([&] { return Local{std::vector<std::uint32_t>(digits)}; });
    std::vector<std::uint64_t> totals(digits);
    tbb::spin_mutex totals_mutex;
    const auto flush = [&](Local& local) {
      tbb::spin_mutex::scoped_lock lock(totals_mutex);
      for (std::size_t d = 0; d < digits; ++d) totals[d] += std::exchange(local.counts[d], 0);
      local.keys = 0;
    };

    tbb::parallel_for(std::size_t{0}, chunking_.chunks(), [&](std::size_t chunk) {
      Local& local = locals.local();
      if (local.keys + chunking_.size(chunk) > UINT32_MAX) flush(local);
      local.keys += chunking_.size(chunk);
      const Bits* in = in_;
      const Bits* prefix = prefixes.data();
      const Slot* slot_of = slots.data();
      const std::size_t tables = prefixes.size();
      std::uint32_t* counts = local.counts.data();
      // `differing` and `common` in registers, over the keys of every table of the batch, rather
      // than per table in memory at a key-dependent index.
      Bits any = 0, all = Bits(~Bits(0));
      const std::uint64_t begin = chunking_.begin(chunk), end = chunking_.end(chunk);
      if (tables == 1) {
        // The usual batch of one table, its test and digit in registers: half the time of the
        // search below (bits:10, 2^28 keys: 110 ms against 210 ms).
        const Slot only = slots[1];
        for (std::uint64_t i = begin; i < end; ++i) {
          const Bits key = encode(in[i]);
          const bool matched = ((key ^ only.prefix) & only.high_mask) == 0;
          ++counts[matched ? only.offset + std::size_t((key >> only.shift) & only.digit_mask) : 0];
          any |= matched ? key : Bits(0);
          all &= matched ? key : Bits(~Bits(0));
        }
      } else {
        for (std::uint64_t i = begin; i < end; ++i) {
          const Bits key = encode(in[i]);
          // Branch-free: the last prefix not above the key (its slot is one more), else slot 0.
          std::size_t base = 0;
          for (std::size_t n = tables; n > 1; n -= n / 2) base += std::size_t(prefix[base + n / 2] <= key) * (n / 2);
          std::size_t s = base + std::size_t(prefix[base] <= key);
          const bool matched = ((key ^ slot_of[s].prefix) & slot_of[s].high_mask) == 0;
          s = matched ? s : 0;
          const Slot& slot = slot_of[s];
          ++counts[slot.offset + std::size_t((key >> slot.shift) & slot.digit_mask)];
          any |= matched ? key : Bits(0);
          all &= matched ? key : Bits(~Bits(0));
        }
      }
      local.any |= any;
      local.all &= all;
    });
    // Exact for a batch of one table (the usual case); for several, a superset of each table's
    // differing bits, which only makes their children wider, and the bits outside it are shared.
    Bits any = 0, all = Bits(~Bits(0));
    for (Local& local : locals) {
      flush(local);
      any |= local.any;
      all &= local.all;
    }
    for (std::size_t s = 1; s < slots.size(); ++s) {
      DigitTable<Bits>& table = classifier.table(order[s - 1]);
      std::copy_n(totals.begin() + std::ptrdiff_t(slots[s].offset), table.digits(), table.counts.begin());
      table.differing = Bits(any ^ all);
      table.common = all;
    }
  }

  // Each chunk's keys per bucket, from its top-digit histogram: without refinement, every bucket
  // is a range of top digits. A top byte routed to one bucket adds its sum; only the few bytes
  // split between buckets read their 256 counters.
  void sum_chunk_buckets(const TopDigitRouter<Bits>& router, const std::vector<std::uint32_t>& root_route,
                         std::size_t buckets) {
    chunk_offsets_.assign(chunking_.chunks() * buckets, 0);
    tbb::parallel_for(std::size_t{0}, chunking_.chunks(), [&](std::size_t chunk) {
      const std::byte* counts = histograms_->counts(chunk);
      const std::uint32_t* byte_sums = histograms_->byte_sums(chunk);
      std::uint64_t* row = chunk_offsets_.data() + chunk * buckets;
      for (std::size_t byte = 0; byte < 256; ++byte) {
        if (const std::uint32_t bucket = router.top_byte(byte); !(bucket & kToTable)) {
          row[bucket] += byte_sums[byte];
          continue;
        }
        for (std::size_t d = byte * 256; d < byte * 256 + 256; ++d)
          row[root_route[d]] += ChunkHistograms::load(counts, d);
      }
    });
  }

  // Each chunk's keys per bucket, by a read pass that classifies every key.
  template <class Router>
  void count_chunk_buckets(const Router& router, std::size_t buckets) {
    chunk_offsets_.assign(chunking_.chunks() * buckets, 0);
    tbb::parallel_for(std::size_t{0}, chunking_.chunks(), [&](std::size_t chunk) {
      // Counted apart from chunk_offsets_, whose rows share cache lines with other chunks' rows.
      std::vector<std::uint64_t> counts(buckets);
      const Router local_router = router;
      const Bits* in = in_;
      std::uint64_t i = chunking_.begin(chunk);
      const std::uint64_t end = chunking_.end(chunk);
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
      std::copy(counts.begin(), counts.end(), chunk_offsets_.begin() + std::ptrdiff_t(chunk * buckets));
    });
  }

  // Turns the per-chunk counts into destinations: bucket b holds chunk 0's keys first, then chunk 1's...
  void place_chunks(const std::vector<std::uint64_t>& bucket_begin) {
    const std::size_t buckets = bucket_begin.size() - 1;
    for (std::size_t b = 0; b < buckets; ++b) {
      std::uint64_t position = bucket_begin[b];
      for (std::size_t chunk = 0; chunk < chunking_.chunks(); ++chunk)
        position += std::exchange(chunk_offsets_[chunk * buckets + b], position);
      RMGSORT_EXPECTS(position == bucket_begin[b + 1], "the chunks' bucket counts disagree with the plan");
    }
  }

  template <class Router>
  void scatter(const Router& router, std::size_t buckets) {
    tbb::parallel_for(std::size_t{0}, chunking_.chunks(), [&](std::size_t chunk) {
      WriteCombiner<Bits> combiner(out_, chunk_offsets_.data() + chunk * buckets, buckets);
      // Locals, not members or captures: the flushes' calls would make the compiler reload those
      // on every key.
      const Router local_router = router;
      const Bits* in = in_;
      std::uint64_t i = chunking_.begin(chunk);
      const std::uint64_t end = chunking_.end(chunk);
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

  const Bits* in_;
  Bits* out_;
  std::uint64_t count_;
  std::uint64_t capacity_;
  Chunking chunking_;
  std::optional<ChunkHistograms> histograms_;  // until the offsets are known
  std::vector<std::uint64_t> chunk_offsets_;     // [chunk][bucket]: counts, then first destinations
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
                                std::uint64_t round_capacity, RoundPartitionStats* stats) {
  RMGSORT_EXPECTS(round_capacity >= 1, "a round holds at least one key");
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
  if (order == SortOrder::ascending) return RoundPartitioner<T, SortOrder::ascending>(from, to, count, round_capacity).run(s);
  return RoundPartitioner<T, SortOrder::descending>(from, to, count, round_capacity).run(s);
}

#define RMGSORT_INSTANTIATE(T)                                                                        \
  template RoundPlan partition_into_rounds<T>(const T*, T*, std::uint64_t, SortOrder, std::uint64_t, \
                                              RoundPartitionStats*)
RMGSORT_INSTANTIATE(std::uint32_t);
RMGSORT_INSTANTIATE(std::uint64_t);
RMGSORT_INSTANTIATE(std::int32_t);
RMGSORT_INSTANTIATE(std::int64_t);
RMGSORT_INSTANTIATE(float);
RMGSORT_INSTANTIATE(double);
#undef RMGSORT_INSTANTIATE

}  // namespace rmgsort
