// What RoundsOnGpus's trips (gpu/rounds_on_gpus_trips.cu) do to a job's records, by kind: bare number
// keys, or records carried as pairs (core/record_pair.hpp). Each kind says where a job's records land
// when copied in, and sorts them there by bits [begin_bit, end_bit) of their encoded keys (stably),
// counting where each digit of bits [begin_bit, begin_bit + kRoundDigitBits) starts when asked, and
// returns where they then lie, in the form they came in.
// Records are staged in two runs of device memory (gpu/staged_records.hpp) so that copies in and out
// are plain copies of host bytes whatever the layout. Every function only enqueues work on `stream`.
#pragma once

#include <cub/device/device_radix_sort.cuh>

#include <cstdint>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "gpu/digit_starts_kernel.cuh"
#include "gpu/key_transform_kernels.cuh"
#include "gpu/record_pair_kernels.cuh"
#include "gpu/rounds_on_gpus_lane.cuh"

namespace rmgsort {

template <class T>
struct BareKeyItems {
  using Bits = RadixBits<T>;
  static constexpr int kKeyBits = 8 * int(sizeof(T));
  SortOrder order;
  std::uint64_t capacity;  // records a slot holds

  [[nodiscard]] std::size_t record_bytes() const { return sizeof(T); }
  [[nodiscard]] StagedRecords<std::byte> landing(RoundsOnGpus::Lane& lane, std::size_t slot) const {
    return {lane.keys[slot][0].as(), capacity * sizeof(T), nullptr};
  }
  // Sorts the n keys landed in `slot` by bits [begin_bit, end_bit) of their encoding; `starts`, when
  // not null, gets the digits' starts.
  StagedRecords<std::byte> sort(RoundsOnGpus::Lane& lane, std::size_t slot, std::uint64_t n, int begin_bit,
                                int end_bit, std::uint64_t* starts, cudaStream_t stream) const {
    if (!encoding_is_identity<T>(order)) encode_keys_async<T>(lane.keys[slot][0].as(), n, order, stream);
    cub::DoubleBuffer<Bits> buffers(lane.keys[slot][0].as<Bits>(), lane.keys[slot][1].as<Bits>());
    if (n > 1) {
      std::size_t bytes = lane.temporary_bytes;
      RMGSORT_CUDA_TRY(cub::DeviceRadixSort::SortKeys(lane.temporary.as(), bytes, buffers, n, begin_bit, end_bit, stream));
    }
    if (starts != nullptr) digit_starts_async<Bits>(buffers.Current(), n, begin_bit, starts, stream);
    if (!encoding_is_identity<T>(order)) decode_keys_async<T>(buffers.Current(), n, order, stream);
    return {reinterpret_cast<std::byte*>(buffers.Current()), n * sizeof(T), nullptr};
  }
};

// Records land in the slot's second sides (keys, then values: a key's width plus 8 bytes per
// record, never less than the record), are split into pairs in the first sides, sorted there, and
// joined again in whichever sides the sort left free.
template <class Bits>
struct PairItems {
  static constexpr int kKeyBits = 8 * int(sizeof(Bits));
  RecordLayout layout;
  SortOrder order;
  std::uint64_t capacity;

  [[nodiscard]] std::size_t record_bytes() const { return layout.record_size; }
  [[nodiscard]] StagedRecords<std::byte> landing(RoundsOnGpus::Lane& lane, std::size_t slot) const {
    return {lane.keys[slot][1].as(), capacity * sizeof(Bits), lane.values[slot][1].as()};
  }
  StagedRecords<std::byte> sort(RoundsOnGpus::Lane& lane, std::size_t slot, std::uint64_t n, int begin_bit,
                                int end_bit, std::uint64_t* starts, cudaStream_t stream) const {
    auto& keys = lane.keys[slot];
    auto& values = lane.values[slot];
    const StagedRecords<std::byte> landed = landing(lane, slot);
    split_records_async<Bits>({landed.first, landed.first_bytes, landed.rest}, n, layout, order, false, 0,
                              keys[0].as<Bits>(), values[0].as<std::uint64_t>(), stream);
    cub::DoubleBuffer<Bits> key_buffers(keys[0].as<Bits>(), keys[1].as<Bits>());
    cub::DoubleBuffer<std::uint64_t> value_buffers(values[0].as<std::uint64_t>(), values[1].as<std::uint64_t>());
    if (n > 1) {
      std::size_t bytes = lane.temporary_bytes;
      RMGSORT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(lane.temporary.as(), bytes, key_buffers, value_buffers, n,
                                                       begin_bit, end_bit, stream));
    }
    if (starts != nullptr) digit_starts_async<Bits>(key_buffers.Current(), n, begin_bit, starts, stream);
    const std::size_t free_side = std::size_t(1 - key_buffers.selector);
    const StagedRecords<std::byte> joined{keys[free_side].as(), n * sizeof(Bits), values[free_side].as()};
    join_records_async<Bits>(key_buffers.Current(), value_buffers.Current(), n, layout, order, false, joined, stream);
    return joined;
  }
};

}  // namespace rmgsort
