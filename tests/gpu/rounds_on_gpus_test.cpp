// RoundsOnGpus (gpu/rounds_on_gpus.hpp) against the encoded bits sorted on the CPU (decode(sort(encode
// (x)))): the same bit patterns in the same order, NaN payloads and ±0 included. On a GPU host (label
// "gpu"; exits 77 where there is no CUDA device): every key type x both orders x sizes (0, 1, 7, fewer
// keys than GPUs, one chunk, many chunks and rounds) x every GPU count the machine has (up to 4),
// uniform, edge values (generate's "special": extremes, ±0, NaNs, infinities) and skewed keys (digits
// heavier than a round, partitioned again); then rounds heard in order, keys that share 16, 32 or
// every bit (partitioned at every level), page-locked and pageable memory, and a failing hand-off
// (thrown; the sorter sorts again afterwards). Records carried as pairs: every test layout, stable.
#include "gpu/rounds_on_gpus.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <set>
#include <utility>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/key_order.hpp"
#include "core/record_pair.hpp"
#include "gpu/devices.hpp"
#include "gpu/digit_rounds.hpp"
#include "tests/generate/generated_keys.hpp"
#include "tests/host/record_test_layouts.hpp"
#include "tests/gpu/gpu_test_main.hpp"

namespace rmgsort {
namespace {

constexpr int kMostGpus = 4;
// Small rounds, so that a few hundred thousand keys make many chunks and rounds.
constexpr std::uint64_t kRoundKeys = std::uint64_t{1} << 16;

std::vector<int> first_gpus(int g) {
  std::vector<int> gpus(static_cast<std::size_t>(g));
  std::iota(gpus.begin(), gpus.end(), 0);
  return gpus;
}
int gpus_present() { return std::min(cuda_device_count(), kMostGpus); }

template <class T>
std::vector<T> reference(std::vector<T> keys, SortOrder order) {
  using Bits = RadixBits<T>;
  std::vector<Bits> bits(keys.size());
  const auto sorted_as = [&]<SortOrder kOrder>() {
    for (std::size_t i = 0; i < keys.size(); ++i) bits[i] = KeyOrder<T, kOrder>::encode(keys[i]);
    std::sort(bits.begin(), bits.end());
    for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = KeyOrder<T, kOrder>::decode(bits[i]);
  };
  if (order == SortOrder::ascending) {
    sorted_as.template operator()<SortOrder::ascending>();
  } else {
    sorted_as.template operator()<SortOrder::descending>();
  }
  return keys;
}

// Whether one top digit (kRoundDigitBits of the encoded key) holds more keys than a round.
template <class T>
bool has_heavy_digit(const std::vector<T>& keys, SortOrder order, std::uint64_t round_keys) {
  std::vector<std::uint64_t> counts(kRoundDigits, 0);
  constexpr int kShift = 8 * int(sizeof(T)) - kRoundDigitBits;
  for (const T key : keys)
    ++counts[order == SortOrder::ascending ? KeyOrder<T, SortOrder::ascending>::encode(key) >> kShift
                                           : KeyOrder<T, SortOrder::descending>::encode(key) >> kShift];
  return *std::max_element(counts.begin(), counts.end()) > round_keys;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <class T>
class RoundsOnGpusTest : public ::testing::Test {};
using KeyTypes = ::testing::Types<std::uint32_t, std::uint64_t, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(RoundsOnGpusTest, KeyTypes);

TYPED_TEST(RoundsOnGpusTest, EverySizeOrderDistributionAndGpuCountSortsLikeTheCpu) {
  using T = TypeParam;
  const KeyType type = KeyTypeOf<T>::value;
  for (int g = 1; g <= gpus_present(); ++g) {
    RoundsOnGpus sorter(first_gpus(g), RecordLayout::bare_key(type), kRoundKeys);
    std::uint64_t seed = 1;
    int heavy_inputs = 0;
    for (const char* distribution : {"uniform", "special", "zipf:0.5"}) {
      for (const std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{7}, std::uint64_t(g) - 1,
                                        kRoundKeys - 1, 5 * kRoundKeys + 3, 40 * kRoundKeys + 17}) {
        for (const SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
          SCOPED_TRACE(std::string(distribution) + ", " + std::to_string(count) + " keys, " + std::to_string(g) +
                       " GPUs, " + (order == SortOrder::ascending ? "ascending" : "descending"));
          std::vector<T> keys = testing::generated_keys<T>(distribution, count, seed++);
          const std::vector<T> expected = reference(keys, order);
          std::vector<T> scratch(count);
          const auto report = sorter.sort(reinterpret_cast<std::byte*>(keys.data()),
                                          reinterpret_cast<std::byte*>(scratch.data()), count, order);
          // Heavy rounds exactly when a digit is heavier than a round.
          const bool heavy = has_heavy_digit(expected, order, kRoundKeys);
          EXPECT_EQ(report.heavy_rounds > 0, heavy);
          heavy_inputs += heavy;
          ASSERT_TRUE(same_bits(keys, expected));
          EXPECT_LE(report.largest_round, kRoundKeys);
          if (count > kRoundKeys && !heavy) {  // a heavy round of one value holds any number
            EXPECT_GE(report.rounds, (count + kRoundKeys - 1) / kRoundKeys);
          }
        }
      }
    }
    // The large "special" and zipf inputs have heavy digits.
    EXPECT_GT(heavy_inputs, 0);
  }
}

TYPED_TEST(RoundsOnGpusTest, RoundsAreHeardInOrderAndCoverTheKeys) {
  using T = TypeParam;
  const int g = gpus_present();
  RoundsOnGpus sorter(first_gpus(g), RecordLayout::bare_key(KeyTypeOf<T>::value), kRoundKeys);
  const std::uint64_t count = 30 * kRoundKeys + 5;
  std::vector<T> keys = testing::generated_keys<T>("uniform", count, 3);
  const std::vector<T> expected = reference(keys, SortOrder::descending);
  std::vector<T> scratch(count);
  std::uint64_t next = 0;
  const auto report = sorter.sort(reinterpret_cast<std::byte*>(keys.data()), reinterpret_cast<std::byte*>(scratch.data()),
                                  count, SortOrder::descending, [&](std::uint64_t first, std::uint64_t n) {
                                    ASSERT_EQ(first, next);
                                    ASSERT_GT(n, 0u);
                                    // Final when heard: the round's keys are the expected ones now.
                                    ASSERT_EQ(std::memcmp(keys.data() + first, expected.data() + first, n * sizeof(T)), 0);
                                    next += n;
                                  });
  EXPECT_EQ(next, count);
  EXPECT_EQ(report.rounds % std::uint64_t(g), 0u);  // uniform keys: equal rounds, a multiple of the GPUs
  EXPECT_TRUE(same_bits(keys, expected));
}

// Keys heavier than a round in their top digit, then in their top two, then all equal (and equal
// apart from their last bits): partitioned again at every level, down to the last digit, whose
// heavy rounds hold one value. Rounds heard in order across the levels.
TYPED_TEST(RoundsOnGpusTest, DigitsHeavierThanARoundArePartitionedAgainAtEveryLevel) {
  using T = TypeParam;
  using Bits = RadixBits<T>;
  constexpr int kBits = 8 * int(sizeof(T));
  const int g = gpus_present();
  RoundsOnGpus sorter(first_gpus(g), RecordLayout::bare_key(KeyTypeOf<T>::value), kRoundKeys);
  const std::uint64_t count = 6 * kRoundKeys + 11;
  std::vector<Bits> random_bits(count);
  {
    std::vector<std::uint64_t> wide = testing::generated_keys<std::uint64_t>("uniform", count, 21);
    for (std::uint64_t i = 0; i < count; ++i) random_bits[i] = Bits(wide[i]);
  }
  // Inputs in encoded bits (ascending order): the bits above `shared` fixed, the rest random; the
  // last input, every bit fixed but the lowest 4.
  for (const int shared : {16, 32, kBits, kBits - 4}) {
    if (shared > kBits) continue;
    SCOPED_TRACE(std::to_string(shared) + " top bits shared, " + std::to_string(g) + " GPUs");
    const Bits fixed = Bits(0x5a5a5a5a5a5a5a5aULL);
    const Bits low_mask = shared >= kBits ? Bits(0) : Bits((Bits(1) << (kBits - shared)) - 1);
    std::vector<T> keys(count);
    for (std::uint64_t i = 0; i < count; ++i)
      keys[i] = KeyOrder<T, SortOrder::ascending>::decode(Bits((fixed & ~low_mask) | (random_bits[i] & low_mask)));
    const std::vector<T> expected = reference(keys, SortOrder::ascending);
    std::vector<T> scratch(count);
    std::uint64_t next = 0;
    const RoundsOnGpusReport report = sorter.sort(
        reinterpret_cast<std::byte*>(keys.data()), reinterpret_cast<std::byte*>(scratch.data()), count,
        SortOrder::ascending, [&](std::uint64_t first, std::uint64_t n) {
          ASSERT_EQ(first, next);
          ASSERT_EQ(std::memcmp(keys.data() + first, expected.data() + first, n * sizeof(T)), 0);
          next += n;
        });
    EXPECT_EQ(next, count);
    EXPECT_TRUE(same_bits(keys, expected));
    EXPECT_GT(report.heavy_rounds, 0u);
    // Shared top bits take a level each per 16; all equal: every level, the last one's round heavy.
    EXPECT_EQ(report.levels, std::min(shared / kRoundDigitBits, kBits / kRoundDigitBits - 1) + 1);
  }
}

// Whether one top digit of the records' pair keys holds more than `round_keys` records.
bool has_heavy_digit(const std::vector<std::byte>& records, const RecordLayout& layout, SortOrder order,
                     std::uint64_t round_keys) {
  const PairCodec codec = PairCodec::of(layout, order);
  const int shift = 8 * int(key_width(pair_key_type(layout))) - kRoundDigitBits;
  std::vector<std::uint64_t> counts(kRoundDigits, 0);
  for (std::size_t i = 0; i < records.size(); i += layout.record_size) {
    PackedRecord packed = 0;
    std::memcpy(&packed, records.data() + i, layout.record_size);
    ++counts[codec.key_bits(packed) >> shift];
  }
  return *std::max_element(counts.begin(), counts.end()) > round_keys;
}

// Every layout the in-core sort carries as pairs (each key type, bytes:1/3/8, records of the key + 1
// to + 8 bytes, keys first, in the middle and last, unaligned), both orders, 1 and every GPU:
// stable, like std::stable_sort by rank. Rounds of 4096 records, so that 40 000 make ~10 chunks and
// rounds, each round gathered from every chunk; the payloads tell the records apart. A third of the
// keys come from a pool of 5 values: some inputs have heavy digits, down to one value.
TEST(RoundsOnGpusRecordsTest, EveryPairLayoutSortsStablyLikeStableSort) {
  constexpr std::uint64_t kRecordRound = 4096;
  int heavy_inputs = 0;
  for (const RecordLayout& layout : testing::record_test_layouts()) {
    if (!carried_as_pairs(layout)) continue;
    for (const int g : std::set<int>{1, gpus_present()}) {
      RoundsOnGpus sorter(first_gpus(g), layout, kRecordRound);
      for (const SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
        for (const std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{3001}, std::uint64_t{40'000}}) {
          SCOPED_TRACE(testing::layout_name(layout) + ", " + std::to_string(g) + " GPUs, " + std::to_string(count) +
                       " records, " + (order == SortOrder::ascending ? "ascending" : "descending"));
          std::vector<std::byte> records = testing::random_records(layout, count, count * 3 + std::uint64_t(g));
          const std::vector<std::byte> input = records;
          const std::vector<std::byte> expected = testing::reference_sorted(records, layout, order);
          std::vector<std::byte> scratch(records.size());
          const RoundsOnGpusReport report = sorter.sort(records.data(), scratch.data(), count, order);
          const bool heavy = has_heavy_digit(input, layout, order, kRecordRound);
          EXPECT_EQ(report.heavy_rounds > 0, heavy);
          heavy_inputs += heavy;
          ASSERT_TRUE(records == expected) << "first difference at byte "
                                           << std::mismatch(records.begin(), records.end(), expected.begin()).first -
                                                  records.begin();
        }
      }
    }
  }
  EXPECT_GT(heavy_inputs, 0);  // bytes:1 keys, 256 values at most, and the pools of equal keys
}

TEST(RoundsOnGpusMemoryTest, PageLockedMemorySortsAsPageableDoes) {
  const std::uint64_t count = 20 * kRoundKeys + 1;
  std::vector<std::uint64_t> pageable = testing::generated_keys<std::uint64_t>("uniform", count, 11);
  const std::vector<std::uint64_t> expected = reference(pageable, SortOrder::ascending);
  std::uint64_t* keys = nullptr;
  std::uint64_t* scratch = nullptr;
  ASSERT_EQ(cudaHostAlloc(reinterpret_cast<void**>(&keys), count * 8, cudaHostAllocPortable), cudaSuccess);
  ASSERT_EQ(cudaHostAlloc(reinterpret_cast<void**>(&scratch), count * 8, cudaHostAllocPortable), cudaSuccess);
  std::memcpy(keys, pageable.data(), count * 8);
  RoundsOnGpus sorter(first_gpus(gpus_present()), RecordLayout::bare_key(KeyType::u64), kRoundKeys);
  const RoundsOnGpusReport report = sorter.sort(reinterpret_cast<std::byte*>(keys), reinterpret_cast<std::byte*>(scratch),
                                                count, SortOrder::ascending);
  const bool same = std::memcmp(keys, expected.data(), count * 8) == 0;
  (void)cudaFreeHost(keys);
  (void)cudaFreeHost(scratch);
  EXPECT_GT(report.rounds, 1u);
  EXPECT_TRUE(same);
}

TEST(RoundsOnGpusMemoryTest, AFailingHandOffIsThrownAndTheSorterSortsAgain) {
  RoundsOnGpus sorter(first_gpus(gpus_present()), RecordLayout::bare_key(KeyType::u32), kRoundKeys);
  const std::uint64_t count = 10 * kRoundKeys;
  std::vector<std::uint32_t> keys = testing::generated_keys<std::uint32_t>("uniform", count, 13);
  std::vector<std::uint32_t> scratch(count);
  int heard = 0;
  EXPECT_THROW(sorter.sort(reinterpret_cast<std::byte*>(keys.data()), reinterpret_cast<std::byte*>(scratch.data()),
                           count, SortOrder::ascending,
                           [&](std::uint64_t, std::uint64_t) {
                             if (++heard == 2) throw std::runtime_error("the writer failed");
                           }),
               std::runtime_error);
  EXPECT_EQ(heard, 2);
  keys = testing::generated_keys<std::uint32_t>("uniform", count, 14);
  const std::vector<std::uint32_t> expected = reference(keys, SortOrder::ascending);
  (void)sorter.sort(reinterpret_cast<std::byte*>(keys.data()), reinterpret_cast<std::byte*>(scratch.data()), count,
                    SortOrder::ascending);
  EXPECT_TRUE(same_bits(keys, expected));
}

TEST(RoundsOnGpusMemoryTest, TheMemoryNeededIsWhatIsAllocatedAndRoundsFitTheirBudget) {
  // Bare keys: 4 key buffers; (u64, u64) records: 4 key and 4 value buffers of 8 bytes a record.
  for (const auto& [layout, per_record] :
       {std::pair{RecordLayout::bare_key(KeyType::u32), 16}, std::pair{RecordLayout::bare_key(KeyType::f64), 32},
        std::pair{RecordLayout::of({KeyType::u64, 8}, 16, 0), 64}}) {
    const std::uint64_t budget = std::uint64_t{1} << 30;
    const std::uint64_t keys = RoundsOnGpus::round_keys_within(budget, layout);
    EXPECT_GT(keys, budget / std::uint64_t(per_record) * 9 / 10);
    EXPECT_LE(RoundsOnGpus::device_bytes(keys, layout), budget);
    EXPECT_GT(RoundsOnGpus::device_bytes(keys + keys / 1000, layout), budget);  // not far below the most
    EXPECT_EQ(RoundsOnGpus::round_keys_within(1000, layout), 0u);
  }
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  const std::uint64_t round_keys = std::uint64_t{1} << 26;
  const RecordLayout records = RecordLayout::of({KeyType::u64, 8}, 16, 0);
  const std::uint64_t need = RoundsOnGpus::device_bytes(round_keys, records);
  // The free memory the sorter takes: the allocator rounds each buffer up to its granularity (2 MiB),
  // so within a few MiB of the figure. cudaMemGetInfo counts every process on the GPU, and another
  // one allocating or freeing between the two readings moves the difference (seen beside the GPU
  // e2e scripts): the reading is taken again, up to 5 times, and one must hold.
  std::vector<std::uint64_t> taken;
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::size_t free_before = 0, free_after = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
    {
      RoundsOnGpus sorter({0}, records, round_keys);
      ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
    }
    taken.push_back(std::uint64_t(free_before) - std::uint64_t(free_after));
    if (taken.back() >= need && taken.back() <= need + (std::uint64_t{32} << 20)) return;
  }
  std::string readings;
  for (std::uint64_t bytes : taken) readings += " " + std::to_string(bytes);
  ADD_FAILURE() << "the sorter took (bytes, per reading):" << readings << "; need " << need << " to need + 32 MiB";
}

}  // namespace
}  // namespace rmgsort

int main(int argc, char** argv) { return rmgsort::testing::gpu_test_main(argc, argv); }
