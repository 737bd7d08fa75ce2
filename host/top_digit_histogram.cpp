#include "host/top_digit_histogram.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/error.hpp"

namespace rmgsort {
namespace {

constexpr std::size_t kNoChunk = ~std::size_t{0};

// The counting loop of one key type and order. Keys are read through memcpy (any alignment: a
// byte range may start inside a key) as unsigned bit patterns and encoded in registers.
template <class T, SortOrder kOrder>
struct TopDigitKernel {
  using Order = KeyOrder<T, kOrder>;
  using Bits = typename Order::Bits;
  static constexpr int kShift = 8 * int(sizeof(Bits)) - TopDigitHistogram::kDigitBits;

  static Bits encoded(const std::byte* key) {
    Bits raw;
    std::memcpy(&raw, key, sizeof raw);
    return Order::encode(__builtin_bit_cast(T, raw));
  }
  static void increment(std::byte* counts, std::size_t digit) {
    TopDigitHistogram::store(counts, digit, TopDigitHistogram::load(counts, digit) + 1);
  }

  // Adds n keys at `keys` to `counts` (kDigits counters), ORs them into `any` and ANDs them into `all`.
  static void count(const std::byte* keys, std::uint64_t n, std::byte* counts, std::uint64_t& any,
                    std::uint64_t& all) {
    constexpr std::size_t kWidth = sizeof(Bits);
    Bits keys_any = 0, keys_all = Bits(~Bits(0));
    // Four keys a step, loaded before any counter changes: their counter updates are independent,
    // so the core overlaps their L1 misses (the 256 KiB of counters live in L2).
    std::uint64_t i = 0;
    for (; i + 4 <= n; i += 4) {
      const std::byte* at = keys + i * kWidth;
      const Bits k0 = encoded(at), k1 = encoded(at + kWidth), k2 = encoded(at + 2 * kWidth),
                 k3 = encoded(at + 3 * kWidth);
      keys_any |= (k0 | k1) | (k2 | k3);
      keys_all &= (k0 & k1) & (k2 & k3);
      increment(counts, std::size_t(k0 >> kShift));
      increment(counts, std::size_t(k1 >> kShift));
      increment(counts, std::size_t(k2 >> kShift));
      increment(counts, std::size_t(k3 >> kShift));
    }
    for (; i < n; ++i) {
      const Bits key = encoded(keys + i * kWidth);
      keys_any |= key;
      keys_all &= key;
      increment(counts, std::size_t(key >> kShift));
    }
    any |= keys_any;
    all &= std::uint64_t(keys_all) | (kWidth == 4 ? ~std::uint64_t{0} << 32 : 0);
  }

  static std::uint64_t encode(const std::byte* key) { return encoded(key); }
};

}  // namespace

struct TopDigitHistogram::Counting {
  void (*count)(const std::byte* keys, std::uint64_t n, std::byte* counts, std::uint64_t& any, std::uint64_t& all);
  std::uint64_t (*encode)(const std::byte* key);
};

// A thread's counters while it adds keys of `chunk` (all zero when chunk == kNoChunk).
struct TopDigitHistogram::ThreadCounts {
  std::unique_ptr<std::uint32_t[]> counts = std::make_unique<std::uint32_t[]>(kDigits);
  std::size_t chunk = kNoChunk;
  std::uint64_t any = 0, all = ~std::uint64_t{0};
  std::uint64_t keys = 0;  // every key this thread counted
  [[nodiscard]] std::byte* bytes() { return reinterpret_cast<std::byte*>(counts.get()); }
};

struct TopDigitHistogram::Adding {
  explicit Adding(std::size_t chunks) : chunk_mutexes(chunks), started(chunks, 0) {}

  tbb::enumerable_thread_specific<ThreadCounts> threads;
  // Chunk c's counters are merged under chunk_mutexes[c]; started[c] (under the same mutex) says
  // whether they hold anything yet: the first merge copies, so nothing is zeroed ahead.
  std::vector<std::mutex> chunk_mutexes;
  std::vector<char> started;

  // Keys whose bytes arrived in several ranges: by key index, the bytes so far (a bit per byte in
  // `present`); once complete, their encoded bits wait in `straddled` for finish().
  struct PartialKey {
    std::byte bytes[8] = {};
    unsigned present = 0;
  };
  std::mutex partial_mutex;
  std::unordered_map<std::uint64_t, PartialKey> partial;
  std::vector<std::uint64_t> straddled;  // key indices, completed
  std::vector<std::uint64_t> straddled_bits;
};

TopDigitHistogram::TopDigitHistogram(KeyType type, SortOrder order, std::uint64_t count, std::byte* storage)
    : type_(type), order_(order), width_(key_width(type)), chunks_(count) {
  counting_ = visit_key_type(type, [&]<class T>(T) -> const Counting* {
    using Ascending = TopDigitKernel<T, SortOrder::ascending>;
    using Descending = TopDigitKernel<T, SortOrder::descending>;
    static constexpr Counting kAscending{&Ascending::count, &Ascending::encode};
    static constexpr Counting kDescending{&Descending::count, &Descending::encode};
    return order == SortOrder::ascending ? &kAscending : &kDescending;
  });
  if (!storage) {
    owned_ = std::make_unique_for_overwrite<std::byte[]>(storage_bytes(count));
    storage = owned_.get();
  }
  storage_ = storage;
  byte_sums_.assign(chunks_.chunks() * 256, 0);
  adding_ = std::make_unique<Adding>(chunks_.chunks());
}

TopDigitHistogram::~TopDigitHistogram() = default;

void TopDigitHistogram::count_all(const std::byte* keys) {
  RMGSORT_EXPECTS(!finished_, "count_all on a finished histogram");
  const std::size_t chunks = chunks_.chunks();
  std::vector<std::uint64_t> any(chunks, 0), all(chunks, ~std::uint64_t{0});
  tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t chunk) {
    std::byte* counts = counters_of(chunk);
    std::memset(counts, 0, kChunkBytes);
    counting_->count(keys + chunks_.begin(chunk) * width_, chunks_.size(chunk), counts, any[chunk], all[chunk]);
    // While the counters are in L2: the sums per top byte, which spare the partition's offsets
    // most of a second read of the counters.
    std::uint32_t* sums = byte_sums_.data() + chunk * 256;
    for (std::size_t byte = 0; byte < 256; ++byte) {
      std::uint32_t sum = 0;
      for (std::size_t d = byte * 256; d < byte * 256 + 256; ++d) sum += load(counts, d);
      sums[byte] = sum;
    }
  });
  for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
    any_ |= any[chunk];
    all_ &= all[chunk];
  }
  sum_totals();
  adding_.reset();
  finished_ = true;
}

void TopDigitHistogram::add(std::uint64_t first, const std::byte* keys, std::uint64_t n) {
  RMGSORT_EXPECTS(!finished_, "keys added to a finished histogram");
  RMGSORT_EXPECTS(first <= count() && n <= count() - first, "keys added beyond the histogram's count");
  if (n == 0) return;
  ThreadCounts& local = adding_->threads.local();
  while (n > 0) {
    const std::size_t chunk = chunks_.chunk_of(first);
    const std::uint64_t part = std::min(n, chunks_.end(chunk) - first);
    if (local.chunk != chunk) {
      if (local.chunk != kNoChunk) merge(local);
      local.chunk = chunk;
    }
    counting_->count(keys, part, local.bytes(), local.any, local.all);
    local.keys += part;
    keys += part * width_;
    first += part;
    n -= part;
  }
}

void TopDigitHistogram::merge(ThreadCounts& local) {
  {
    const std::lock_guard lock(adding_->chunk_mutexes[local.chunk]);
    std::byte* counts = counters_of(local.chunk);
    if (!adding_->started[local.chunk]) {
      std::memcpy(counts, local.counts.get(), kChunkBytes);
      adding_->started[local.chunk] = 1;
    } else {
      for (std::size_t d = 0; d < kDigits; ++d) store(counts, d, load(counts, d) + local.counts[d]);
    }
  }
  std::memset(local.counts.get(), 0, kChunkBytes);
  local.chunk = kNoChunk;
}

void TopDigitHistogram::add_bytes(std::uint64_t offset, const std::byte* data, std::size_t length) {
  RMGSORT_EXPECTS(!finished_, "bytes added to a finished histogram");
  const std::uint64_t end = offset + length;
  RMGSORT_EXPECTS(end >= offset && end <= count() * width_, "bytes added beyond the histogram's keys");
  if (length == 0) return;
  const std::uint64_t first_whole = (offset + width_ - 1) / width_, end_whole = end / width_;
  if (first_whole < end_whole)
    add(first_whole, data + (first_whole * width_ - offset), end_whole - first_whole);
  // The key the range starts inside of, and the one it ends inside of (the same key when the range
  // lies within one key).
  const std::uint64_t first_key = offset / width_, last_key = end / width_;
  if (offset % width_ != 0) {
    const std::uint64_t key_end = std::min(end, (first_key + 1) * width_);
    keep_partial(first_key, offset % width_, data, key_end - offset);
  }
  if (end % width_ != 0 && (offset % width_ == 0 || last_key != first_key)) {
    const std::uint64_t key_begin = last_key * width_;
    keep_partial(last_key, 0, data + (key_begin - offset), end - key_begin);
  }
}

void TopDigitHistogram::keep_partial(std::uint64_t key, std::size_t first_byte, const std::byte* data,
                                     std::size_t length) {
  const unsigned bits = ((1u << length) - 1) << first_byte;
  const std::lock_guard lock(adding_->partial_mutex);
  Adding::PartialKey& partial = adding_->partial[key];
  RMGSORT_EXPECTS((partial.present & bits) == 0, "bytes of key " + std::to_string(key) + " added twice");
  std::memcpy(partial.bytes + first_byte, data, length);
  partial.present |= bits;
  if (partial.present != (1u << width_) - 1) return;
  adding_->straddled.push_back(key);
  adding_->straddled_bits.push_back(counting_->encode(partial.bytes));
  adding_->partial.erase(key);
}

void TopDigitHistogram::finish() {
  RMGSORT_EXPECTS(!finished_, "finish called twice");
  Adding& adding = *adding_;
  std::uint64_t keys = 0;
  for (ThreadCounts& local : adding.threads) {
    if (local.chunk != kNoChunk) merge(local);
    any_ |= local.any;
    all_ &= local.all;
    keys += local.keys;
  }
  RMGSORT_EXPECTS(adding.partial.empty(), "key " + std::to_string(adding.partial.empty() ? 0 : adding.partial.begin()->first) +
                                              " was added in part only");
  // Straddling keys, counted whole now, in key order (the counts do not depend on it).
  for (std::size_t k = 0; k < adding.straddled.size(); ++k) {
    const std::size_t chunk = chunks_.chunk_of(adding.straddled[k]);
    std::byte* counts = counters_of(chunk);
    if (!adding.started[chunk]) {
      std::memset(counts, 0, kChunkBytes);
      adding.started[chunk] = 1;
    }
    const std::uint64_t bits = adding.straddled_bits[k];
    const std::size_t digit = std::size_t(bits >> (8 * width_ - kDigitBits));
    store(counts, digit, load(counts, digit) + 1);
    any_ |= bits;
    all_ &= bits | (width_ == 4 ? ~std::uint64_t{0} << 32 : 0);
  }
  keys += adding.straddled.size();
  RMGSORT_EXPECTS(keys == count(), "the histogram of " + std::to_string(count()) + " keys was given " +
                                       std::to_string(keys) + " (each key must be added exactly once)");
  // Every chunk holds keys, so every chunk has started.
  tbb::parallel_for(std::size_t{0}, chunks_.chunks(), [&](std::size_t chunk) {
    const std::byte* counts = counters_of(chunk);
    std::uint32_t* sums = byte_sums_.data() + chunk * 256;
    for (std::size_t byte = 0; byte < 256; ++byte) {
      std::uint32_t sum = 0;
      for (std::size_t d = byte * 256; d < byte * 256 + 256; ++d) sum += load(counts, d);
      sums[byte] = sum;
    }
  });
  sum_totals();
  adding_.reset();
  finished_ = true;
}

void TopDigitHistogram::sum_totals() {
  totals_.assign(kDigits, 0);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, kDigits, 4096), [&](const auto& digits) {
    for (std::size_t chunk = 0; chunk < chunks_.chunks(); ++chunk) {
      const std::byte* counts = counters_of(chunk);
      for (std::size_t d = digits.begin(); d < digits.end(); ++d) totals_[d] += load(counts, d);
    }
  });
}

}  // namespace rmgsort
