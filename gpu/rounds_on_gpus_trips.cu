// RoundsOnGpus::sort: the partition trip, the plan, the rounds trip (gpu/rounds_on_gpus.hpp says what
// each does), for every kind of records (gpu/rounds_on_gpus_items.cuh).
#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "core/record_pair.hpp"
#include "gpu/rounds_on_gpus_items.cuh"
#include "gpu/rounds_on_gpus_lane.cuh"
#include "report/stopwatch.hpp"

namespace rmgsort {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

// Copies host bytes [from, from + bytes) to bytes [offset, offset + bytes) of `staged`.
void copy_in_async(StagedRecords<std::byte> staged, std::uint64_t offset, const std::byte* from, std::uint64_t bytes,
                   cudaStream_t stream) {
  for (const StagedCopy<std::byte>& copy : staged_copies(staged, offset, offset + bytes))
    RMGSORT_CUDA_TRY(cudaMemcpyAsync(copy.to, from + (copy.chunk_offset - offset), copy.bytes, cudaMemcpyHostToDevice,
                                     stream));
}

// Copies bytes [0, bytes) of `staged` to the host at `to`.
void copy_out_async(StagedRecords<std::byte> staged, std::uint64_t bytes, std::byte* to, cudaStream_t stream) {
  for (const StagedCopy<std::byte>& copy : staged_copies(staged, 0, bytes))
    RMGSORT_CUDA_TRY(cudaMemcpyAsync(to + copy.chunk_offset, copy.to, copy.bytes, cudaMemcpyDeviceToHost, stream));
}

}  // namespace

template <class Items>
RoundsOnGpusReport RoundsOnGpus::trips(const Items& items, std::byte* records, std::byte* scratch,
                                       std::uint64_t count, const RoundSorted& sorted, bool& planned) {
  constexpr int kKeyBits = Items::kKeyBits;
  const std::size_t size = items.record_bytes();
  RoundsOnGpusReport report;
  Stopwatch phase;
  const auto lanes = unsigned(lanes_.size());
  for (const auto& lane : lanes_) lane->jobs = 0;

  // Trip 1: each chunk sorted by its top digit and copied back to its place in scratch, with its
  // digit starts into `starts` (page-locked: the copies back stay asynchronous).
  const std::uint64_t chunk_keys = first_trip_chunk_keys(count, round_keys_, lanes);
  const std::uint64_t chunks = ceil_div(count, chunk_keys);
  PinnedHostBuffer starts(std::max<std::uint64_t>(chunks, 1) * kStartsPerChunk * sizeof(std::uint64_t));
  const auto chunk_starts = [&](std::uint64_t c) { return starts.as<std::uint64_t>() + c * kStartsPerChunk; };
  for (std::uint64_t c = 0; c < chunks; ++c) {
    Lane& lane = *lanes_[c % lanes];
    ScopedDevice on(lane.device);
    const std::uint64_t first = c * chunk_keys, n = std::min(chunk_keys, count - first);
    lane.enqueue(
        [&](std::size_t slot, cudaStream_t stream) {
          copy_in_async(items.landing(lane, slot), 0, records + first * size, n * size, stream);
        },
        [&](std::size_t slot, cudaStream_t stream) {
          return items.sort(lane, slot, n, kKeyBits - kRoundDigitBits, lane.starts[slot].template as<std::uint64_t>(),
                            stream);
        },
        [&](std::size_t slot, StagedRecords<std::byte> result, cudaStream_t stream) {
          copy_out_async(result, n * size, scratch + first * size, stream);
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

  // Trip 2: round r on GPU r % lanes, its piece of every chunk gathered in chunk order, sorted and
  // copied to its place in `records`; round_done[r] (an event of that GPU's) is recorded once it is there.
  std::vector<Event> round_done;
  round_done.reserve(rounds->size());
  for (std::size_t r = 0; r < rounds->size(); ++r) {
    const DigitRound& round = (*rounds)[r];
    Lane& lane = *lanes_[r % lanes];
    ScopedDevice on(lane.device);
    round_done.emplace_back();
    lane.enqueue(
        [&](std::size_t slot, cudaStream_t stream) {
          std::uint64_t placed = 0;
          for (std::uint64_t c = 0; c < chunks; ++c) {
            const std::uint64_t begin = chunk_starts(c)[round.digit_begin], end = chunk_starts(c)[round.digit_end];
            if (begin == end) continue;
            copy_in_async(items.landing(lane, slot), placed * size, scratch + (c * chunk_keys + begin) * size,
                          (end - begin) * size, stream);
            placed += end - begin;
          }
          RMGSORT_EXPECTS(placed == round.keys, "RoundsOnGpus: a round's pieces add up to its records");
        },
        [&](std::size_t slot, cudaStream_t stream) { return items.sort(lane, slot, round.keys, 0, nullptr, stream); },
        [&](std::size_t, StagedRecords<std::byte> result, cudaStream_t stream) {
          copy_out_async(result, round.keys * size, records + round.first * size, stream);
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

std::optional<RoundsOnGpusReport> RoundsOnGpus::sort(std::byte* records, std::byte* scratch, std::uint64_t count,
                                                     SortOrder order, const RoundSorted& sorted) {
  int previous = 0;
  RMGSORT_CUDA_TRY(cudaGetDevice(&previous));
  bool planned = true;
  try {
    RoundsOnGpusReport report;
    if (layout_.is_bare_key()) {
      report = visit_key_type(layout_.key_type, [&]<class T>(T) {
        return trips(BareKeyItems<T>{order, round_keys_}, records, scratch, count, sorted, planned);
      });
    } else if (key_width(pair_key_type(layout_)) == 4) {
      report = trips(PairItems<std::uint32_t>{layout_, order, round_keys_}, records, scratch, count, sorted, planned);
    } else {
      report = trips(PairItems<std::uint64_t>{layout_, order, round_keys_}, records, scratch, count, sorted, planned);
    }
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
