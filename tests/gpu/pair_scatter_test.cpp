// gpu/partition_kernels: the pair scatter with its values staged whole (1 part, what GPUs of compute
// capability 8.0, 9.0 and 10.0 run) and in halves (2 parts, what GPUs whose blocks take at most
// 99 KiB of shared memory run: 8.6, 8.9, 12.x) gives the same output, a stable partition by digit,
// on a GPU host (label "gpu"; exits 77 where there is no CUDA device): u32 and u64 keys, sizes 0,
// 1, 7, one tile less one, one tile, several tiles and a part tile, few digits (long runs of equal
// digits show stability: the values are the input positions).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gpu/gpu_policy.hpp"
#include "gpu/partition_kernels.cuh"
#include "tests/gpu/gpu_test_main.hpp"

namespace rmgsort {
namespace {

#define ASSERT_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call

// Device memory freed at scope exit.
template <class T>
struct Device {
  T* data = nullptr;
  explicit Device(std::size_t count) {
    if (cudaMalloc(reinterpret_cast<void**>(&data), std::max<std::size_t>(count, 1) * sizeof(T)) != cudaSuccess)
      data = nullptr;  // the test's first copy fails and names it
  }
  ~Device() { (void)cudaFree(data); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
};

constexpr int kShift = 8;  // the second digit: keys differ above and below it
unsigned digit_of(std::uint64_t key) { return unsigned(key >> kShift) & ((1u << gpu_policy::kDigitBits) - 1); }

template <class Bits>
void expect_stable_partition(std::uint32_t count, int value_parts) {
  SCOPED_TRACE(std::to_string(sizeof(Bits) * 8) + "-bit keys, " + std::to_string(count) + " keys, " +
               std::to_string(value_parts) + " value part(s)");
  std::mt19937_64 random(count * 31 + sizeof(Bits));
  std::vector<Bits> keys(count);
  std::vector<std::uint64_t> values(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    // Five digits only, low and high bits random: long runs of one digit in every block.
    keys[i] = Bits((random() % 5) << kShift | (random() & 0xff) | (Bits(random()) & ~Bits(0xffff)));
    values[i] = i;
  }
  const std::uint64_t blocks = gpu_policy::blocks_for(count, sizeof(Bits));
  const std::size_t entries = std::size_t(gpu_policy::kDigits) * std::max<std::uint64_t>(blocks, 1);
  Device<Bits> d_keys(count), d_out_keys(count);
  Device<std::uint64_t> d_values(count), d_out_values(count);
  Device<std::uint32_t> d_counts(entries);
  ASSERT_CUDA(cudaMemcpy(d_keys.data, keys.data(), count * sizeof(Bits), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(d_values.data, values.data(), count * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
  block_histograms_async<Bits>(d_keys.data, count, kShift, KeyInput::encoded, d_counts.data, nullptr);
  // The exclusive scan of the digit-major block histograms, as the partitioning pass makes it.
  std::vector<std::uint32_t> offsets(entries);
  ASSERT_CUDA(cudaMemcpy(offsets.data(), d_counts.data, entries * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  std::uint32_t sum = 0;
  for (std::uint32_t& entry : offsets) sum += std::exchange(entry, sum);
  ASSERT_EQ(sum, count);
  ASSERT_CUDA(cudaMemcpy(d_counts.data, offsets.data(), entries * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  scatter_pairs_async<Bits>(d_keys.data, d_values.data, count, kShift, d_counts.data, d_out_keys.data,
                            d_out_values.data, nullptr, value_parts);
  ASSERT_CUDA(cudaDeviceSynchronize());
  std::vector<Bits> out_keys(count);
  std::vector<std::uint64_t> out_values(count);
  ASSERT_CUDA(cudaMemcpy(out_keys.data(), d_out_keys.data, count * sizeof(Bits), cudaMemcpyDeviceToHost));
  ASSERT_CUDA(cudaMemcpy(out_values.data(), d_out_values.data, count * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  std::vector<std::uint64_t> expected(count);
  for (std::uint32_t i = 0; i < count; ++i) expected[i] = i;
  std::stable_sort(expected.begin(), expected.end(),
                   [&](std::uint64_t a, std::uint64_t b) { return digit_of(keys[a]) < digit_of(keys[b]); });
  ASSERT_EQ(out_values, expected);
  for (std::uint32_t i = 0; i < count; ++i) ASSERT_EQ(out_keys[i], keys[out_values[i]]) << "at " << i;
}

template <class Bits>
void every_size_and_staging() {
  const std::uint32_t tile = std::uint32_t(gpu_policy::kKeysPerBlock<sizeof(Bits)>);
  for (const std::uint32_t count : {0u, 1u, 7u, tile - 1, tile, 3 * tile + 5, 100003u}) {
    for (const int value_parts : {0, 1, 2}) {
      if (value_parts == 1) {
        int device = 0, optin = 0;
        ASSERT_CUDA(cudaGetDevice(&device));
        ASSERT_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        // The whole value tile needs the keys' and values' tiles and the kernel's static part.
        if (std::size_t(optin) < std::size_t(tile) * (sizeof(Bits) + 8) + 16384) continue;
      }
      expect_stable_partition<Bits>(count, value_parts);
    }
  }
}

TEST(PairScatterTest, U32KeysStagedWholeOrInHalvesPartitionStably) { every_size_and_staging<std::uint32_t>(); }
TEST(PairScatterTest, U64KeysStagedWholeOrInHalvesPartitionStably) { every_size_and_staging<std::uint64_t>(); }

}  // namespace
}  // namespace rmgsort

int main(int argc, char** argv) { return rmgsort::testing::gpu_test_main(argc, argv); }
