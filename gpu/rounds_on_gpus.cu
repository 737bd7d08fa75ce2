#include "gpu/rounds_on_gpus.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>

#include "core/error.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_resources.hpp"
#include "gpu/digit_rounds.hpp"
#include "gpu/rounds_on_gpus_lane.cuh"

namespace rmgsort {

std::uint64_t sort_temporary_bytes(std::uint64_t keys, std::size_t width) {
  std::size_t bytes = 0;
  const auto query = [&]<class Bits>(Bits*) {
    cub::DoubleBuffer<Bits> buffers(nullptr, nullptr);
    RMGSORT_CUDA_TRY(cub::DeviceRadixSort::SortKeys(nullptr, bytes, buffers, keys, 0, int(8 * sizeof(Bits))));
  };
  if (width == 4) {
    query(static_cast<std::uint32_t*>(nullptr));
  } else {
    query(static_cast<std::uint64_t*>(nullptr));
  }
  return bytes;
}

std::uint64_t RoundsOnGpus::device_bytes(std::uint64_t round_keys, std::size_t width) {
  return 4 * round_keys * width + sort_temporary_bytes(round_keys, width) + 2 * kStartsPerChunk * sizeof(std::uint64_t);
}

std::uint64_t RoundsOnGpus::round_keys_within(std::uint64_t bytes, std::size_t width) {
  // CUB's storage grows slowly with the keys: start from the buffers alone and step down by what
  // the storage overshoots until the whole fits (two or three steps).
  std::uint64_t keys = bytes / (4 * width);
  while (keys > 0) {
    const std::uint64_t need = device_bytes(keys, width);
    if (need <= bytes) return keys;
    keys -= std::min(keys, (need - bytes + 4 * width - 1) / (4 * width));
  }
  return 0;
}

RoundsOnGpus::RoundsOnGpus(const std::vector<int>& gpus, KeyType type, std::uint64_t round_keys)
    : type_(type), round_keys_(round_keys) {
  RMGSORT_EXPECTS(key_width(type) != 0 && round_keys > 0 && !gpus.empty(), "RoundsOnGpus: number keys, GPUs, rounds");
  const std::size_t width = key_width(type);
  for (const int device : gpus) {
    ScopedDevice on(device);
    auto lane = std::make_unique<Lane>();
    lane->device = device;
    for (auto& slot : lane->keys)
      for (auto& side : slot) side = DeviceBuffer(round_keys * width, "the rounds' keys");
    for (auto& starts : lane->starts) starts = DeviceBuffer(kStartsPerChunk * sizeof(std::uint64_t), "digit starts");
    lane->temporary_bytes = sort_temporary_bytes(round_keys, width);
    lane->temporary = DeviceBuffer(std::max<std::size_t>(lane->temporary_bytes, 1), "the sorts' temporary storage");
    lanes_.push_back(std::move(lane));
  }
}

RoundsOnGpus::~RoundsOnGpus() = default;

void RoundsOnGpus::drain() noexcept {
  for (const auto& lane : lanes_) {
    (void)cudaSetDevice(lane->device);
    (void)cudaStreamSynchronize(lane->in.get());
    (void)cudaStreamSynchronize(lane->sort.get());
    (void)cudaStreamSynchronize(lane->out.get());
  }
  (void)cudaGetLastError();
}

std::optional<RoundsOnGpusReport> RoundsOnGpus::sort(std::byte* keys, std::byte* scratch, std::uint64_t count,
                                                     SortOrder order, const RoundSorted& sorted) {
  int previous = 0;
  RMGSORT_CUDA_TRY(cudaGetDevice(&previous));
  bool planned = true;
  try {
    RoundsOnGpusReport report = visit_key_type(type_, [&]<class T>(T) {
      return sort_as<T>(keys, scratch, count, order, sorted, planned);
    });
    RMGSORT_CUDA_TRY(cudaSetDevice(previous));
    if (!planned) return std::nullopt;
    return report;
  } catch (...) {
    drain();
    (void)cudaSetDevice(previous);
    throw;
  }
}

}  // namespace rmgsort
