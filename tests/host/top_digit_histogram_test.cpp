#include "host/top_digit_histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "generate/generate.hpp"
#include "tests/generate/generated_keys.hpp"
#include "core/error.hpp"
#include "io/host_buffer.hpp"
#include "io/uring_reader.hpp"
#include "tests/core/key_types.hpp"
#include "tests/io/io_test_support.hpp"

namespace rmgsort {
namespace {

using testing::AllKeyTypes;

template <class T>
class TopDigitHistogramTest : public ::testing::Test {};
TYPED_TEST_SUITE(TopDigitHistogramTest, AllKeyTypes);

constexpr SortOrder kBothOrders[] = {SortOrder::ascending, SortOrder::descending};

template <class T>
const std::byte* bytes_of(const std::vector<T>& keys) {
  return reinterpret_cast<const std::byte*>(keys.data());
}

// The reference: the top 16 encoded bits of each key, counted one by one.
template <class T>
std::vector<std::uint64_t> reference_totals(const std::vector<T>& keys, SortOrder order) {
  std::vector<std::uint64_t> totals(TopDigitHistogram::kDigits);
  for (const T key : keys) {
    const auto bits = order == SortOrder::ascending ? KeyOrder<T, SortOrder::ascending>::encode(key)
                                                    : KeyOrder<T, SortOrder::descending>::encode(key);
    ++totals[std::size_t(bits >> (8 * sizeof(T) - 16))];
  }
  return totals;
}

// Everything partition_into_rounds reads: totals, OR and AND, each chunk's counters and top-byte sums.
void expect_same(const TopDigitHistogram& a, const TopDigitHistogram& b, const std::string& what) {
  ASSERT_TRUE(a.finished() && b.finished()) << what;
  ASSERT_EQ(a.chunks().chunks(), b.chunks().chunks()) << what;
  EXPECT_EQ(a.totals(), b.totals()) << what;
  EXPECT_EQ(a.any_bits(), b.any_bits()) << what;
  EXPECT_EQ(a.all_bits(), b.all_bits()) << what;
  for (std::size_t chunk = 0; chunk < a.chunks().chunks(); ++chunk) {
    EXPECT_EQ(std::memcmp(a.chunk_counts(chunk), b.chunk_counts(chunk), TopDigitHistogram::kChunkBytes), 0)
        << what << ": chunk " << chunk << "'s counters differ";
    EXPECT_TRUE(std::equal(a.top_byte_sums(chunk), a.top_byte_sums(chunk) + 256, b.top_byte_sums(chunk)))
        << what << ": chunk " << chunk << "'s top-byte sums differ";
  }
}

template <class T>
std::unique_ptr<TopDigitHistogram> counted_whole(const std::vector<T>& keys, SortOrder order) {
  auto histogram = std::make_unique<TopDigitHistogram>(KeyTypeOf<T>::value, order, keys.size());
  histogram->count_all(bytes_of(keys));
  return histogram;
}

// Cuts [0, total) into pieces of 1 to max_piece units, in shuffled order.
std::vector<std::pair<std::uint64_t, std::uint64_t>> random_pieces(std::uint64_t total, std::uint64_t max_piece,
                                                                   std::mt19937_64& random) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pieces;
  for (std::uint64_t at = 0; at < total;) {
    const std::uint64_t length = std::min(total - at, 1 + random() % max_piece);
    pieces.emplace_back(at, length);
    at += length;
  }
  std::shuffle(pieces.begin(), pieces.end(), random);
  return pieces;
}

// Runs f(piece) for every piece, spread over `threads` threads (each takes every threads-th piece).
template <class F>
void on_threads(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& pieces, unsigned threads, const F& f) {
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      for (std::size_t p = t; p < pieces.size(); p += threads) f(pieces[p]);
    });
  for (std::thread& worker : workers) worker.join();
}

TYPED_TEST(TopDigitHistogramTest, CountAllMatchesAKeyByKeyCount) {
  using T = TypeParam;
  for (const char* distribution : {"uniform", "zipf:1.0", "special"}) {
    const auto keys = testing::generated_keys<T>(distribution, 100000, 3);
    for (SortOrder order : kBothOrders) {
      const auto histogram = counted_whole(keys, order);
      EXPECT_EQ(histogram->totals(), reference_totals(keys, order)) << distribution;
    }
  }
}

// The accumulator's keys arrive in pieces, from several threads, in any order; the result is the
// partition's own first pass, counter for counter: several chunks, pieces that cross chunk ends.
TYPED_TEST(TopDigitHistogramTest, KeysAddedInPiecesFromThreadsEqualTheWholeCount) {
  using T = TypeParam;
  const std::size_t n = 2 * partition_config::kMinChunkKeys + 12345;
  std::mt19937_64 random(41);
  for (const char* distribution : {"uniform", "zipf:1.0"}) {
    const auto keys = testing::generated_keys<T>(distribution, n, 7);
    for (SortOrder order : kBothOrders) {
      const auto whole = counted_whole(keys, order);
      ASSERT_GE(whole->chunks().chunks(), 3u);
      for (unsigned threads : {1u, 3u}) {
        TopDigitHistogram pieces(KeyTypeOf<T>::value, order, n);
        on_threads(random_pieces(n, 300000, random), threads, [&](std::pair<std::uint64_t, std::uint64_t> piece) {
          pieces.add(piece.first, bytes_of(keys) + piece.first * sizeof(T), piece.second);
        });
        pieces.finish();
        expect_same(*whole, pieces, std::string(distribution) + " " + std::to_string(threads) + " threads");
      }
    }
  }
}

// Byte ranges of any length and start, so that most ranges begin and end inside a key; the keys
// they split are counted once their bytes are all in.
TYPED_TEST(TopDigitHistogramTest, ByteRangesWithKeysStraddlingTheirEnds) {
  using T = TypeParam;
  std::mt19937_64 random(43);
  // Pieces of up to 3 bytes (every key split), of a few keys, and of a MiB over two chunks.
  for (const auto& [n, max_piece] : {std::pair<std::size_t, std::uint64_t>{20000, 3},
                                     {100000, 4 * sizeof(T) + 3},
                                     {partition_config::kMinChunkKeys + 777, std::uint64_t{1} << 20}}) {
    const auto keys = testing::generated_keys<T>("special", n, 13);
    for (SortOrder order : kBothOrders) {
      const auto whole = counted_whole(keys, order);
      TopDigitHistogram ranges(KeyTypeOf<T>::value, order, n);
      on_threads(random_pieces(n * sizeof(T), max_piece, random), 3, [&](std::pair<std::uint64_t, std::uint64_t> piece) {
        ranges.add_bytes(piece.first, bytes_of(keys) + piece.first, piece.second);
      });
      ranges.finish();
      expect_same(*whole, ranges, "pieces of up to " + std::to_string(max_piece) + " bytes");
    }
  }
}

TYPED_TEST(TopDigitHistogramTest, EveryByteOnItsOwnAndInReverse) {
  using T = TypeParam;
  const auto keys = testing::generated_keys<T>("uniform", 50, 17);
  const auto whole = counted_whole(keys, SortOrder::descending);
  TopDigitHistogram bytes(KeyTypeOf<T>::value, SortOrder::descending, keys.size());
  for (std::uint64_t b = keys.size() * sizeof(T); b-- > 0;) bytes.add_bytes(b, bytes_of(keys) + b, 1);
  bytes.finish();
  expect_same(*whole, bytes, "one byte at a time");
}

TYPED_TEST(TopDigitHistogramTest, EdgeCases) {
  using T = TypeParam;
  using Limits = std::numeric_limits<T>;
  std::vector<std::vector<T>> inputs = {{}, {T(5)}, std::vector<T>(1000, T(9)), {Limits::lowest(), Limits::max()}};
  if constexpr (std::is_floating_point_v<T>) {
    inputs.push_back({T(0.0), T(-0.0), Limits::quiet_NaN(), -Limits::quiet_NaN(), Limits::infinity(),
                      -Limits::infinity(), Limits::denorm_min()});
  } else {
    inputs.push_back({Limits::min(), Limits::max(), T(0), T(Limits::min() + 1), T(Limits::max() - 1)});
  }
  for (const auto& keys : inputs) {
    for (SortOrder order : kBothOrders) {
      const auto whole = counted_whole(keys, order);
      EXPECT_EQ(whole->totals(), reference_totals(keys, order));
      EXPECT_EQ(std::accumulate(whole->totals().begin(), whole->totals().end(), std::uint64_t{0}), keys.size());
      TopDigitHistogram added(KeyTypeOf<T>::value, order, keys.size());
      // Odd pieces: the first key alone, then the rest in one range of bytes.
      if (!keys.empty()) added.add(0, bytes_of(keys), 1);
      if (keys.size() > 1) added.add_bytes(sizeof(T), bytes_of(keys) + sizeof(T), (keys.size() - 1) * sizeof(T));
      added.add_bytes(0, bytes_of(keys), 0);  // empty ranges are nothing
      added.finish();
      expect_same(*whole, added, "edge case of " + std::to_string(keys.size()) + " keys");
    }
  }
}

// All keys equal: OR == AND, so no bit differs (what lets the partition skip refinement).
TYPED_TEST(TopDigitHistogramTest, EqualKeysDifferInNoBit) {
  using T = TypeParam;
  const std::vector<T> keys(3000, T(-7));
  TopDigitHistogram added(KeyTypeOf<T>::value, SortOrder::ascending, keys.size());
  added.add_bytes(0, bytes_of(keys), 5);
  added.add_bytes(5, bytes_of(keys) + 5, keys.size() * sizeof(T) - 5);
  added.finish();
  EXPECT_EQ(std::uint64_t(RadixBits<T>(added.any_bits() ^ added.all_bits())), 0u);
  const RadixBits<T> expected = KeyOrder<T, SortOrder::ascending>::encode(T(-7));
  EXPECT_EQ(RadixBits<T>(added.all_bits()), expected);
}

TEST(TopDigitHistogramErrors, MissingDuplicatedOrPartialKeysAreCaught) {
  const std::vector<std::uint64_t> keys(100, 3);
  const std::byte* data = bytes_of(keys);
  {
    TopDigitHistogram missing(KeyType::u64, SortOrder::ascending, keys.size());
    missing.add(0, data, 99);
    EXPECT_THROW(missing.finish(), Error);
  }
  {
    TopDigitHistogram twice(KeyType::u64, SortOrder::ascending, keys.size());
    twice.add(0, data, 100);
    twice.add(5, data + 40, 1);
    EXPECT_THROW(twice.finish(), Error);
  }
  {
    TopDigitHistogram partial(KeyType::u64, SortOrder::ascending, keys.size());
    partial.add_bytes(0, data, 797);  // the last key lacks 3 bytes
    EXPECT_THROW(partial.finish(), Error);
  }
  {
    TopDigitHistogram overlapping(KeyType::u64, SortOrder::ascending, keys.size());
    overlapping.add_bytes(0, data, 13);
    EXPECT_THROW(overlapping.add_bytes(12, data + 12, 4), Error);  // byte 12 again, inside key 1
  }
  {
    TopDigitHistogram beyond(KeyType::u64, SortOrder::ascending, keys.size());
    EXPECT_THROW(beyond.add(99, data, 2), Error);
    EXPECT_THROW(beyond.add_bytes(796, data, 5), Error);
  }
  {
    TopDigitHistogram done(KeyType::u64, SortOrder::ascending, keys.size());
    done.add(0, data, 100);
    done.finish();
    EXPECT_THROW(done.add(0, data, 1), Error);
    EXPECT_THROW(done.finish(), Error);
  }
}

// The counters can live in a caller's buffer (the partition keeps them in its output).
TEST(TopDigitHistogramStorage, CallersStorageHoldsTheCounters) {
  const auto keys = testing::generated_keys<std::uint32_t>("uniform", 3 * partition_config::kMinChunkKeys, 5);
  std::vector<std::byte> storage(TopDigitHistogram::storage_bytes(keys.size()) + 1);
  EXPECT_EQ(storage.size() - 1, 3 * TopDigitHistogram::kChunkBytes);
  TopDigitHistogram inside(KeyType::u32, SortOrder::ascending, keys.size(), storage.data() + 1);  // unaligned
  inside.count_all(bytes_of(keys));
  EXPECT_EQ(inside.chunk_counts(0), storage.data() + 1);
  expect_same(*counted_whole(keys, SortOrder::ascending), inside, "caller's storage");
}

// Histogram while reading: read_file's completed blocks, added as they land, from its threads.
TYPED_TEST(TopDigitHistogramTest, CountedWhileReadFileReads) {
  using T = TypeParam;
  const std::size_t n = 2 * partition_config::kMinChunkKeys + 999;
  const auto keys = testing::generated_keys<T>("zipf:1.0", n, 19);
  test::TempDir dir(test::memory_directory());
  const std::string path = dir.file("keys");
  test::write_plain_file(path, std::vector<std::byte>(bytes_of(keys), bytes_of(keys) + n * sizeof(T)));
  const InputFile input = open_input(path);
  HostBuffer buffer(n * sizeof(T));
  ReadOptions options;
  options.threads = 3;
  options.block_bytes = 1 << 20;
  for (SortOrder order : kBothOrders) {
    TopDigitHistogram histogram(KeyTypeOf<T>::value, order, n);
    (void)read_file(input, buffer.data(), n * sizeof(T), options,
                    [&](std::uint64_t offset, const std::byte* data, std::size_t length) {
                      histogram.add_bytes(offset, data, length);
                    });
    histogram.finish();
    expect_same(*counted_whole(keys, order), histogram, "while reading");
  }
}

}  // namespace
}  // namespace rmgsort
