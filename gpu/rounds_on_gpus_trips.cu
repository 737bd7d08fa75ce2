// RoundsOnGpus::sort for one key type: the partition trip, the plan, the rounds trip
// (gpu/rounds_on_gpus.hpp says what each does).
#include <cub/device/device_radix_sort.cuh>

#include <cstring>
#include <span>
#include <vector>

#include "core/error.hpp"
#include "gpu/digit_starts_kernel.cuh"
#include "gpu/key_transform_kernels.cuh"
#include "gpu/rounds_on_gpus_lane.cuh"
#include "report/stopwatch.hpp"

namespace rmgsort {
namespace {

// Sorts keys[0, n) of `side` (side[0] holds them) by bits [begin_bit, end_bit) on `stream`; returns
// the side that holds them sorted.
template <class Bits>
Bits* sort_bits_async(std::array<DeviceBuffer, 2>& side, std::uint64_t n, int begin_bit, int end_bit,
                      const DeviceBuffer& temporary, std::size_t temporary_bytes, cudaStream_t stream) {
  cub::DoubleBuffer<Bits> buffers(side[0].as<Bits>(), side[1].as<Bits>());
  if (n > 1) {
    std::size_t bytes = temporary_bytes;
    RMGSORT_CUDA_TRY(cub::DeviceRadixSort::SortKeys(temporary.as(), bytes, buffers, n, begin_bit, end_bit, stream));
  }
  return buffers.Current();
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

}  // namespace

template <class T>
RoundsOnGpusReport RoundsOnGpus::sort_as(std::byte* keys, std::byte* scratch, std::uint64_t count, SortOrder order,
                                         const RoundSorted& sorted, bool& planned) {
  using Bits = RadixBits<T>;
  constexpr int kBits = 8 * int(sizeof(T));
  RoundsOnGpusReport report;
  Stopwatch phase;
  const auto lanes = unsigned(lanes_.size());
  for (const auto& lane : lanes_) lane->jobs = 0;

  // Trip 1: each chunk encoded, sorted by its top digit, and copied back to its place in scratch,
  // with its digit starts into `starts` (page-locked: the copies back stay asynchronous).
  const std::uint64_t chunk_keys = first_trip_chunk_keys(count, round_keys_, lanes);
  const std::uint64_t chunks = ceil_div(count, chunk_keys);
  PinnedHostBuffer starts(std::max<std::uint64_t>(chunks, 1) * kStartsPerChunk * sizeof(std::uint64_t));
  const auto chunk_starts = [&](std::uint64_t c) { return starts.as<std::uint64_t>() + c * kStartsPerChunk; };
  for (std::uint64_t c = 0; c < chunks; ++c) {
    Lane& lane = *lanes_[c % lanes];
    ScopedDevice on(lane.device);
    const std::uint64_t first = c * chunk_keys, n = std::min(chunk_keys, count - first);
    lane.enqueue(
        [&](void* to, cudaStream_t stream) {
          RMGSORT_CUDA_TRY(cudaMemcpyAsync(to, keys + first * sizeof(T), n * sizeof(T), cudaMemcpyHostToDevice, stream));
        },
        [&](std::size_t slot, cudaStream_t stream) -> const void* {
          if (!encoding_is_identity<T>(order)) encode_keys_async<T>(lane.keys[slot][0].as(), n, order, stream);
          const Bits* result = sort_bits_async<Bits>(lane.keys[slot], n, kBits - kRoundDigitBits, kBits, lane.temporary,
                                                     lane.temporary_bytes, stream);
          digit_starts_async<Bits>(result, n, lane.starts[slot].as<std::uint64_t>(), stream);
          return result;
        },
        [&](std::size_t slot, const void* result, cudaStream_t stream) {
          RMGSORT_CUDA_TRY(cudaMemcpyAsync(scratch + first * sizeof(T), result, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
          RMGSORT_CUDA_TRY(cudaMemcpyAsync(chunk_starts(c), lane.starts[slot].as(), kStartsPerChunk * sizeof(std::uint64_t),
                                           cudaMemcpyDeviceToHost, stream));
        });
  }
  for (const auto& lane : lanes_) {
    ScopedDevice on(lane->device);
    lane->synchronize();
  }
  report.partition_seconds = phase.lap();
  report.chunks = chunks;

  std::vector<std::uint64_t> totals(kRoundDigits, 0);
  for (std::uint64_t c = 0; c < chunks; ++c)
    for (std::uint64_t d = 0; d < kRoundDigits; ++d) totals[d] += chunk_starts(c)[d + 1] - chunk_starts(c)[d];
  const std::optional<std::vector<DigitRound>> rounds = plan_digit_rounds(totals, round_keys_, lanes);
  if (!rounds) {
    planned = false;
    return report;
  }

  // Trip 2: round r on GPU r % lanes, its piece of every chunk gathered, sorted, decoded and copied
  // to its place in keys; round_done[r] (an event of that GPU's) is recorded once it is there.
  std::vector<Event> round_done;
  round_done.reserve(rounds->size());
  for (std::size_t r = 0; r < rounds->size(); ++r) {
    const DigitRound& round = (*rounds)[r];
    Lane& lane = *lanes_[r % lanes];
    ScopedDevice on(lane.device);
    round_done.emplace_back();
    lane.enqueue(
        [&](void* to, cudaStream_t stream) {
          std::uint64_t placed = 0;
          for (std::uint64_t c = 0; c < chunks; ++c) {
            const std::uint64_t begin = chunk_starts(c)[round.digit_begin], end = chunk_starts(c)[round.digit_end];
            if (begin == end) continue;
            RMGSORT_CUDA_TRY(cudaMemcpyAsync(static_cast<Bits*>(to) + placed, scratch + (c * chunk_keys + begin) * sizeof(T),
                                             (end - begin) * sizeof(T), cudaMemcpyHostToDevice, stream));
            placed += end - begin;
          }
          RMGSORT_EXPECTS(placed == round.keys, "RoundsOnGpus: a round's pieces add up to its keys");
        },
        [&](std::size_t slot, cudaStream_t stream) -> const void* {
          Bits* result = sort_bits_async<Bits>(lane.keys[slot], round.keys, 0, kBits, lane.temporary,
                                               lane.temporary_bytes, stream);
          if (!encoding_is_identity<T>(order)) decode_keys_async<T>(result, round.keys, order, stream);
          return result;
        },
        [&](std::size_t, const void* result, cudaStream_t stream) {
          RMGSORT_CUDA_TRY(cudaMemcpyAsync(keys + round.first * sizeof(T), result, round.keys * sizeof(T),
                                           cudaMemcpyDeviceToHost, stream));
          round_done[r].record(stream);
        });
    report.largest_round = std::max(report.largest_round, round.keys);
  }
  for (std::size_t r = 0; r < rounds->size(); ++r) {
    RMGSORT_CUDA_TRY(cudaEventSynchronize(round_done[r].get()));
    if (sorted) sorted((*rounds)[r].first, (*rounds)[r].keys);
  }
  report.rounds_seconds = phase.lap();
  report.rounds = rounds->size();
  return report;
}

#define RMGSORT_ROUNDS_ON_GPUS_AS(T)                                                                        \
  template RoundsOnGpusReport RoundsOnGpus::sort_as<T>(std::byte*, std::byte*, std::uint64_t, SortOrder, \
                                                       const RoundSorted&, bool&);
RMGSORT_ROUNDS_ON_GPUS_AS(std::uint32_t)
RMGSORT_ROUNDS_ON_GPUS_AS(std::uint64_t)
RMGSORT_ROUNDS_ON_GPUS_AS(std::int32_t)
RMGSORT_ROUNDS_ON_GPUS_AS(std::int64_t)
RMGSORT_ROUNDS_ON_GPUS_AS(float)
RMGSORT_ROUNDS_ON_GPUS_AS(double)

}  // namespace rmgsort
