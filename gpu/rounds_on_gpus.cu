#include "gpu/rounds_on_gpus.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>

#include "core/error.hpp"
#include "core/record_pair.hpp"
#include "gpu/rounds_on_gpus_lane.cuh"

namespace rmgsort {
namespace {

// Bytes per record of one side of a slot: the key buffer's and, for records, the value buffer's.
std::uint64_t side_bytes_per_record(const RecordLayout& layout) {
  if (layout.is_bare_key()) return layout.key_size;
  return key_width(pair_key_type(layout)) + kPairValueBytes;
}

}  // namespace

std::uint64_t sort_temporary_bytes(std::uint64_t keys, const RecordLayout& layout) {
  std::size_t bytes = 0;
  const auto query = [&]<class Bits>(Bits*) {
    cub::DoubleBuffer<Bits> key_buffers(nullptr, nullptr);
    if (layout.is_bare_key()) {
      RMGSORT_CUDA_TRY(cub::DeviceRadixSort::SortKeys(nullptr, bytes, key_buffers, keys, 0, int(8 * sizeof(Bits))));
    } else {
      cub::DoubleBuffer<std::uint64_t> value_buffers(nullptr, nullptr);
      RMGSORT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, key_buffers, value_buffers, keys, 0,
                                                       int(8 * sizeof(Bits))));
    }
  };
  const KeyType bits = layout.is_bare_key() ? layout.key_type : pair_key_type(layout);
  if (key_width(bits) == 4) {
    query(static_cast<std::uint32_t*>(nullptr));
  } else {
    query(static_cast<std::uint64_t*>(nullptr));
  }
  return bytes;
}

bool RoundsOnGpus::sorts(const RecordLayout& layout) { return layout.is_bare_key() || carried_as_pairs(layout); }

std::uint64_t RoundsOnGpus::device_bytes(std::uint64_t round_keys, const RecordLayout& layout) {
  RMGSORT_EXPECTS(sorts(layout), "RoundsOnGpus: bare number keys or records carried as pairs");
  return 4 * round_keys * side_bytes_per_record(layout) + sort_temporary_bytes(round_keys, layout) +
         2 * kStartsPerChunk * sizeof(std::uint64_t);
}

std::uint64_t RoundsOnGpus::round_keys_within(std::uint64_t bytes, const RecordLayout& layout) {
  // CUB's storage grows slowly with the keys: start from the buffers alone and step down by what
  // the storage overshoots until the whole fits (two or three steps).
  const std::uint64_t per_record = 4 * side_bytes_per_record(layout);
  std::uint64_t keys = bytes / per_record;
  while (keys > 0) {
    const std::uint64_t need = device_bytes(keys, layout);
    if (need <= bytes) return keys;
    keys -= std::min(keys, (need - bytes + per_record - 1) / per_record);
  }
  return 0;
}

RoundsOnGpus::RoundsOnGpus(const std::vector<int>& gpus, const RecordLayout& layout, std::uint64_t round_keys)
    : layout_(layout), round_keys_(round_keys) {
  RMGSORT_EXPECTS(sorts(layout), "RoundsOnGpus: bare number keys or records carried as pairs");
  RMGSORT_EXPECTS(round_keys > 0 && !gpus.empty(), "RoundsOnGpus: GPUs and rounds of at least a record");
  const std::uint64_t key_bytes = layout.is_bare_key() ? layout.key_size : key_width(pair_key_type(layout));
  for (const int device : gpus) {
    ScopedDevice on(device);
    auto lane = std::make_unique<Lane>();
    lane->device = device;
    for (std::size_t slot = 0; slot < 2; ++slot) {
      for (std::size_t side = 0; side < 2; ++side) {
        lane->keys[slot][side] = DeviceBuffer(round_keys * key_bytes, "the rounds' keys");
        if (!layout.is_bare_key())
          lane->values[slot][side] = DeviceBuffer(round_keys * kPairValueBytes, "the rounds' values");
      }
      lane->starts[slot] = DeviceBuffer(kStartsPerChunk * sizeof(std::uint64_t), "digit starts");
    }
    lane->temporary_bytes = sort_temporary_bytes(round_keys, layout);
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

}  // namespace rmgsort
