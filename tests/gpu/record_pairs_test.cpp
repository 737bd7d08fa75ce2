// InCoreSorter::sort_records (records carried as pairs, core/record_pair.hpp) against
// std::stable_sort by the records' rank (tests/host/record_test_layouts.hpp), on a GPU host (label
// "gpu"; exits 77 where there is no CUDA device): every test layout sorted as pairs (each key type,
// bytes:1/3/8, record sizes from the key + 1 to the key + 8, keys first, in the middle and last,
// unaligned) x both orders x sizes 0, 1, 7, a few thousand and 2^18 + 3 x ties, integer extremes,
// ±0 and NaNs x every GPU count the machine has (up to 4), one sorter per (layout, g) reused for
// every round. Stability shows: payloads differ from record to record. Then bare keys of every type
// carrying their input positions, rounds large enough to be copied in and split in pieces, all keys
// equal across GPUs, and the memory plan's value buffers, counted before anything is allocated.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/record_rank.hpp"
#include "gpu/devices.hpp"
#include "gpu/gpu_policy.hpp"
#include "gpu/in_core_sort.hpp"
#include "core/record_pair.hpp"
#include "tests/host/record_test_layouts.hpp"
#include "tests/gpu/gpu_test_main.hpp"

namespace rmgsort {
namespace {

constexpr int kMostGpus = 4;
constexpr std::uint64_t kLargest = (std::uint64_t{1} << 18) + 3;  // no multiple of 2, 3 or 4

std::vector<int> first_gpus(int g) {
  std::vector<int> gpus(static_cast<std::size_t>(g));
  std::iota(gpus.begin(), gpus.end(), 0);
  return gpus;
}
int gpus_present() { return std::min(cuda_device_count(), kMostGpus); }

TEST(RecordPairsTest, EveryLayoutSizeOrderAndGpuCountSortsLikeStableSort) {
  for (const RecordLayout& layout : testing::record_test_layouts()) {
    if (!carried_as_pairs(layout)) continue;
    for (int g = 1; g <= gpus_present(); ++g) {
      const InCorePlan plan =
          plan_in_core_for(pair_key_type(layout), first_gpus(g), kLargest, std::nullopt, kPairValueBytes);
      InCoreSorter sorter(plan);
      for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
        for (std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{3001}, kLargest}) {
          SCOPED_TRACE(testing::layout_name(layout) + ", " + std::to_string(g) + " GPUs, " + std::to_string(count) +
                       " records, " + (order == SortOrder::ascending ? "ascending" : "descending"));
          std::vector<std::byte> records = testing::random_records(layout, count, count * 7 + std::uint64_t(g));
          const std::vector<std::byte> expected = testing::reference_sorted(records, layout, order);
          const InCoreStats stats = sorter.sort_records(records.data(), count, layout, order);
          ASSERT_TRUE(records == expected) << "first difference at byte "
                                           << std::mismatch(records.begin(), records.end(), expected.begin()).first -
                                                  records.begin();
          std::uint64_t received = 0;
          for (const InCoreStats::Gpu& gpu : stats.gpus) received += gpu.keys_received;
          EXPECT_EQ(received, count);
        }
      }
    }
  }
}

TEST(RecordPairsTest, BareKeysCarryTheirInputPositions) {
  for (KeyType type : kNumericKeyTypes) {
    const RecordLayout layout = RecordLayout::bare_key(type);
    for (int g = 1; g <= gpus_present(); ++g) {
      InCoreSorter sorter(plan_in_core_for(pair_key_type(layout), first_gpus(g), kLargest, std::nullopt, kPairValueBytes));
      for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
        for (std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{7}, kLargest}) {
          SCOPED_TRACE(testing::layout_name(layout) + ", " + std::to_string(g) + " GPUs, " + std::to_string(count) +
                       " keys, " + (order == SortOrder::ascending ? "ascending" : "descending"));
          std::vector<std::byte> records = testing::random_records(layout, count, count + std::uint64_t(g));
          const std::vector<std::byte> input = records;
          const std::vector<std::uint64_t> expected = testing::stable_argsort(records, layout, order);
          std::vector<std::uint64_t> positions(count);
          (void)sorter.sort_records(records.data(), count, layout, order, positions.data());
          ASSERT_EQ(positions, expected);
          for (std::uint64_t j = 0; j < count; ++j)
            ASSERT_EQ(std::memcmp(records.data() + j * layout.record_size,
                                  input.data() + expected[j] * layout.record_size, layout.record_size), 0)
                << "key " << j << " is not the input's key at its position";
        }
      }
    }
  }
}

// Rounds large enough that one GPU's chunk is copied in and split in pieces (gpu/copy_in_pieces.hpp),
// with a count that ends inside a kernel block, on one GPU and on all: records of odd sizes (u64 keys
// in 9 bytes, u32 in 5: a record straddles the two staging buffers inside the second piece, read
// byte by byte), and u32 keys in 12 bytes (the second piece lies wholly in the second staging
// buffer, read in 4-byte words); then bare keys carrying their positions, which each piece's split
// numbers from its first record.
TEST(RecordPairsTest, RoundsCopiedInPiecesSortLikeStableSort) {
  const std::vector<RecordLayout> layouts = testing::record_test_layouts();
  const auto first_layout = [&](KeyType key, auto&& wanted) {
    const auto found = std::find_if(layouts.begin(), layouts.end(), [&](const RecordLayout& layout) {
      return carried_as_pairs(layout) && pair_key_type(layout) == key && wanted(layout);
    });
    EXPECT_NE(found, layouts.end()) << key_type_name(key);
    return found == layouts.end() ? std::optional<RecordLayout>() : std::optional<RecordLayout>(*found);
  };
  const auto odd_size = [](const RecordLayout& layout) { return layout.record_size % 4 != 0; };
  const auto twelve_bytes = [](const RecordLayout& layout) { return layout.record_size == 12; };
  for (const std::optional<RecordLayout>& chosen :
       {first_layout(KeyType::u64, odd_size), first_layout(KeyType::u32, odd_size),
        first_layout(KeyType::u32, twelve_bytes)}) {
    ASSERT_TRUE(chosen.has_value());
    const RecordLayout layout = *chosen;
    const KeyType key = pair_key_type(layout);
    // Two pieces and a part of a block more on one GPU.
    const std::uint64_t count = 2 * gpu_policy::kMinCopyInPieceBytes / key_width(key) + 4097;
    for (const int g : std::set<int>{1, gpus_present()}) {
      SCOPED_TRACE(testing::layout_name(layout) + ", " + std::to_string(g) + " GPUs, " + std::to_string(count) +
                   " records");
      InCoreSorter sorter(plan_in_core_for(key, first_gpus(g), count, std::nullopt, kPairValueBytes));
      std::vector<std::byte> records = testing::random_records(layout, count, 91 + std::uint64_t(g));
      const std::vector<std::byte> expected = testing::reference_sorted(records, layout, SortOrder::descending);
      (void)sorter.sort_records(records.data(), count, layout, SortOrder::descending);
      ASSERT_TRUE(records == expected) << "first difference at byte "
                                       << std::mismatch(records.begin(), records.end(), expected.begin()).first -
                                              records.begin();
    }
  }
  const RecordLayout bare = RecordLayout::bare_key(KeyType::u64);
  const std::uint64_t count = 3 * gpu_policy::kMinCopyInPieceBytes / sizeof(std::uint64_t) + 1;
  InCoreSorter sorter(plan_in_core_for(KeyType::u64, first_gpus(1), count, std::nullopt, kPairValueBytes));
  std::vector<std::byte> records = testing::random_records(bare, count, 92);
  const std::vector<std::uint64_t> expected = testing::stable_argsort(records, bare, SortOrder::ascending);
  std::vector<std::uint64_t> positions(count);
  (void)sorter.sort_records(records.data(), count, bare, SortOrder::ascending, positions.data());
  ASSERT_TRUE(positions == expected) << "the positions of 3 pieces' keys";
}

TEST(RecordPairsTest, OneValueOfAllEqualKeysKeepsTheInputOrderAcrossGpus) {
  // Every key equal: the planner splits the one value at the GPUs' boundaries, and the records
  // must still leave in input order.
  const RecordLayout layout = RecordLayout::of({KeyType::u64, 8}, 16, 0);
  const std::uint64_t count = kLargest;
  for (int g = 1; g <= gpus_present(); ++g) {
    InCoreSorter sorter(plan_in_core_for(KeyType::u64, first_gpus(g), count, std::nullopt, kPairValueBytes));
    for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
      std::vector<std::uint64_t> records(2 * count);
      for (std::uint64_t i = 0; i < count; ++i) records[2 * i] = 42, records[2 * i + 1] = i;
      (void)sorter.sort_records(reinterpret_cast<std::byte*>(records.data()), count, layout, order);
      for (std::uint64_t i = 0; i < count; ++i) {
        ASSERT_EQ(records[2 * i], 42u);
        ASSERT_EQ(records[2 * i + 1], i) << g << " GPUs";
      }
    }
  }
}

TEST(RecordPairsTest, ThePlanCountsTheValueBuffersBeforeAnythingIsAllocated) {
  const std::uint64_t round = std::uint64_t{1} << 26;
  const InCorePlan keys = plan_in_core_for(KeyType::u64, first_gpus(1), round, std::nullopt);
  const InCorePlan pairs = plan_in_core_for(KeyType::u64, first_gpus(1), round, std::nullopt, kPairValueBytes);
  EXPECT_EQ(keys.need[0].value_buffers, 0u);
  // Values: u64 beside every key of both buffers, as many as the keys' buffers hold.
  EXPECT_EQ(pairs.need[0].value_buffers, pairs.need[0].key_buffers);
  EXPECT_GT(pairs.need[0].total(), keys.need[0].total());
  const std::uint64_t free_before = gpu_info(0).free_memory;
  InCoreSorter sorter(pairs);
  const std::uint64_t used = free_before - std::min(free_before, gpu_info(0).free_memory);
  constexpr std::uint64_t kSlack = std::uint64_t{64} << 20;  // allocation granularity
  EXPECT_GE(used + kSlack, pairs.need[0].key_buffers + pairs.need[0].value_buffers);
  EXPECT_LE(used, pairs.need[0].total() + kSlack);
  // A budget that holds the keys of a round but not their values takes fewer records a round.
  const std::uint64_t budget = keys.need[0].total();
  EXPECT_LT(plan_in_core(KeyType::u64, first_gpus(1), budget, kPairValueBytes).round_keys,
            plan_in_core(KeyType::u64, first_gpus(1), budget).round_keys);
}

}  // namespace
}  // namespace rmgsort

int main(int argc, char** argv) { return rmgsort::testing::gpu_test_main(argc, argv); }
