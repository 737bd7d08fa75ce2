// The in-core sorter's state, shared by its phases: what each GPU owns, and InCoreSorter::Impl, whose
// member functions are the phases of one sort, each defined in its own file:
//   in_core_setup.cpp          allocation and peer access, once per sorter
//   in_core_copy_in.cpp        1. the chunks to the GPUs (records: split into pairs there)
//   in_core_partition_pass.cu  2. one partitioning pass: histograms, exchange, scatter
//   in_core_swap.cpp           3. the all-to-all swap (swap_waits.hpp: what each bucket sort waits for)
//   in_core_bucket_sorts.cu    4. the bucket sorts with the copies back (pairs: joined first)
//   in_core_stats.cpp          5. the statistics from the events
//   in_core_sort.cu            sort_typed, the sequence of the phases, and InCoreSorter itself
// Every phase only enqueues work, except where it says it waits: work never crosses a wait.
// The phases templated on the key type are instantiated explicitly for the six key types in their
// own file, so that each translation unit compiles only the CUB algorithms it calls.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "gpu/device_resources.hpp"
#include "gpu/gpu_policy.hpp"
#include "gpu/in_core_sort.hpp"
#include "gpu/memory_plan.cuh"
#include "gpu/partition_kernels.cuh"
#include "gpu/partition_planner.hpp"
#include "gpu/pass_parts.hpp"
#include "gpu/swap_waits.hpp"

namespace rmgsort {

inline constexpr int kMaxPasses = 64 / gpu_policy::kDigitBits;

// X(T) for every key type: the explicit instantiations of the phases templated on it.
#define RMGSORT_IN_CORE_KEY_TYPES(X) \
  X(std::uint32_t) X(std::uint64_t) X(std::int32_t) X(std::int64_t) X(float) X(double)

// Makes a device current while the members declared after it are built: streams, events and
// buffers belong to the device that was current when they were created.
struct CurrentDevice {
  explicit CurrentDevice(int device) { RMGSORT_CUDA_TRY(cudaSetDevice(device)); }
};

// Everything one GPU owns, allocated once, on that GPU.
struct GpuState {
  explicit GpuState(int ordinal) : on_device(ordinal), device(ordinal) {}
  CurrentDevice on_device;  // first: every member below is created on `device`
  int device = 0;
  GpuLayout layout;
  std::array<DeviceBuffer, 2> keys;  // the double buffer
  std::array<DeviceBuffer, 2> values;  // pairs only: values[i] beside keys[i], index for index
  DeviceBuffer block_counts;         // digit-major block histograms, scanned in place into offsets
  DeviceBuffer scan_temporary;
  std::array<DeviceBuffer, gpu_policy::kSortStreams> sort_temporary;
  Stream main;                                        // the passes
  Stream incoming;                                    // the copy in, in pieces (copy_in_pieces.hpp)
  Stream splitting;                                   // pairs: each piece split into keys and values
  std::array<Event, gpu_policy::kCopyInPieces> piece_copied;  // pairs: after each piece's copy
  std::array<Event, gpu_policy::kCopyInPieces> piece_ready;   // after each piece's keys are in keys[0]
  cudaStream_t copy_in_end = nullptr;                 // where the copy in ended: incoming or splitting
  std::array<Stream, gpu_policy::kSortStreams> sort;  // bucket sorts (decode, join)
  Stream copy_back;                                   // the sorted buckets to the host, in bucket order
  std::vector<Stream> to_gpu;                         // swap: one stream per destination GPU
  Event start, copied_in, swap_start, swap_done, sorted;
  std::array<Event, kMaxPasses> histogram_start, histogram_done, scatter_start, scatter_done;
  std::array<Event, gpu_policy::kSortStreams> sort_stream_done;
  std::array<Event, gpu_policy::kSortStreams> bucket_sorted;  // the last bucket enqueued on each sort stream
  Event copied_back;
  Event first_copied_back;                            // after the first bucket's copy back (or none)
  std::vector<Event> sent_to;                         // per destination
  std::deque<Event> transfer_done;                    // after the swap's awaited sends (swap_waits.hpp); grows
  int current = 0;                                    // which of `keys` holds this GPU's keys
};

struct InCoreSorter::Impl {
  // Where the pipeline is, so that a CUDA error can name the GPU and the stage (an asynchronous
  // error surfaces at the next synchronisation, which is labelled with the stage it ends).
  struct Where {
    int device = -1;
    std::string stage = "setup";
  } where;
  void at(int device, std::string stage) {
    where = Where{device, std::move(stage)};
    RMGSORT_FAULT_STAGE(device, where.stage);  // a test's injected fault (gpu/fault_injection.hpp)
  }

  InCorePlan plan;
  std::vector<GpuState> gpus;
  PinnedHostBuffer digit_starts;  // [spanning bucket][gpu][digit] of the current pass
  std::size_t digit_start_slots = 0;
  std::vector<std::string> staged_pairs;
  // Per GPU, the ends of its copy in's pieces (each with its piece_ready event), which the first
  // pass counts as they arrive (empty for a GPU without keys).
  std::vector<std::vector<std::uint64_t>> piece_ends;
  // The swap's plan for the bucket sorts, set by swap(): each GPU's sorts, the transfers each waits
  // for, and the event after each awaited transfer (in its source GPU's transfer_done), recorded
  // once enqueue_transfer() has enqueued it.
  std::vector<std::vector<BucketSort>> bucket_sorts;
  SwapWaits waits;
  std::vector<const Event*> transfer_events;
  // The swap's transfers (those that copy), in plan order; for each stream (source * GPUs +
  // destination) the indices of its transfers, in plan order, and how many of them are enqueued.
  std::vector<KeyTransfer> transfers;
  std::vector<std::vector<std::size_t>> stream_transfers;
  std::vector<std::size_t> stream_enqueued;
  std::size_t swap_width = 0;
  std::vector<std::size_t> transfer_events_used;  // per GPU: of its transfer_done, this swap's so far

  explicit Impl(const InCorePlan& p);  // in_core_setup.cpp

  [[nodiscard]] bool carries_values() const { return plan.value_bytes > 0; }

  template <class T>
  InCoreStats sort_typed(std::byte* host, std::uint64_t count, SortOrder order);
  // The same phases for records carried as pairs; Bits is their radix bits' type.
  template <class Bits>
  InCoreStats sort_pairs(std::byte* host, std::uint64_t count, const RecordLayout& layout, SortOrder order,
                         std::uint64_t* positions);

  // The phases of sort_typed, in order.
  InCoreStats empty_stats() const;
  void copy_in(const std::byte* host, const std::vector<std::uint64_t>& chunks, std::size_t width);
  // The frame of both (in_core_copy_in.cpp): on every GPU in turn, copy(gpu, first, count) enqueues
  // its chunk, records [first, first + count) of the round, after its start event on `main`, and
  // returns the stream where the copy ends (copy_in_end), on which copied_in is recorded.
  template <class Copy>
  void copy_each_chunk(const std::vector<std::uint64_t>& chunks, Copy&& copy);
  template <class Bits>
  void copy_in_records(const std::byte* host, const std::vector<std::uint64_t>& chunks, const RecordLayout& layout,
                       SortOrder order, bool positions_wanted);
  template <class T>
  void partition_pass(PartitionPlanner& planner, KeyInput input, SortOrder order,
                      const std::vector<std::uint64_t>& chunks);
  void wait_for_last_scatter();
  // Plans the swap and starts it: its streams wait for each GPU's last pass. Its transfers are
  // enqueued stream by stream as the bucket sorts need them (enqueue_through), the rest by
  // finish_swap(); nothing waits for the swap as a whole: each bucket sort waits for its own.
  void swap(const PartitionPlanner& planner, std::size_t width, InCoreStats& stats);
  void enqueue_through(std::size_t transfer);  // that transfer and those before it on its stream
  void enqueue_transfer(std::size_t transfer);
  void finish_swap();                       // every transfer left; each GPU's main stream joins its sends
  template <class T>
  void sort_buckets(std::byte* host, const PartitionPlanner& planner, SortOrder order, InCoreStats& stats);
  // The frame of both (in_core_bucket_sorts.cu).
  template <class SortOne>
  void sort_each_bucket(const PartitionPlanner& planner, InCoreStats& stats, SortOne&& sort_one);
  template <class Bits>
  void sort_pair_buckets(std::byte* host, std::uint64_t* positions, const PartitionPlanner& planner,
                         const RecordLayout& layout, SortOrder order, InCoreStats& stats);
  void record_times(const PartitionPlanner& planner, InCoreStats& stats) const;

  // The partitioning pass's steps (in_core_partition_pass.cu).
  template <class T>
  void enqueue_histograms(const PassParts& parts, int pass, KeyInput input);
  // The first pass's histograms of a part that is the GPU's whole chunk, piece by piece as it arrives.
  template <class T>
  void count_arriving_pieces(GpuState& gpu, const PassPart& part, const std::vector<std::uint64_t>& ends,
                             KeyInput input);
  [[nodiscard]] std::vector<std::vector<std::uint64_t>> wait_for_histograms(const PassParts& parts, int pass);
  template <class T>
  void enqueue_scatters(const PassParts& parts, const std::vector<std::vector<std::uint64_t>>& histograms, int pass,
                        KeyInput input, SortOrder order, const std::vector<std::uint64_t>& chunks);
};

}  // namespace rmgsort
