// RoundsOnGpus::sort: the partition trip, the plan, the rounds trip (gpu/rounds_on_gpus.hpp says what
// each does) and the heavy rounds partitioned again, for every kind of records
// (gpu/rounds_on_gpus_items.cuh).
#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "core/record_pair.hpp"
#include "gpu/rounds_on_gpus_items.cuh"
#include "gpu/rounds_on_gpus_lane.cuh"
#include "report/stopwatch.hpp"

namespace rmgsort {
namespace {

using Lanes = std::vector<std::unique_ptr<RoundsOnGpus::Lane>>;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

void synchronize_all(const Lanes& lanes) {
  for (const auto& lane : lanes) {
    ScopedDevice on(lane->device);
    lane->synchronize();
  }
}

// Records in host memory, one after the other: a round's piece of every chunk.
struct HostRun {
  const std::byte* from = nullptr;
  std::uint64_t records = 0;
};

// Copies records [begin, end) of the runs, taken one after the other, to the start of `staged`.
void copy_in_async(StagedRecords<std::byte> staged, const std::vector<HostRun>& runs, std::uint64_t begin,
                   std::uint64_t end, std::size_t size, cudaStream_t stream) {
  std::uint64_t run_first = 0, placed = 0;
  for (const HostRun& run : runs) {
    const std::uint64_t from = std::max(begin, run_first), to = std::min(end, run_first + run.records);
    if (from < to) {
      const std::byte* host = run.from + (from - run_first) * size;
      for (const StagedCopy<std::byte>& copy : staged_copies(staged, placed * size, (placed + to - from) * size))
        RMGSORT_CUDA_TRY(cudaMemcpyAsync(copy.to, host + (copy.chunk_offset - placed * size), copy.bytes,
                                         cudaMemcpyHostToDevice, stream));
      placed += to - from;
    }
    run_first += run.records;
  }
  RMGSORT_EXPECTS(placed == end - begin, "RoundsOnGpus: the runs hold the records copied in");
}

// Copies bytes [0, bytes) of `staged` to the host at `to`.
void copy_out_async(StagedRecords<std::byte> staged, std::uint64_t bytes, std::byte* to, cudaStream_t stream) {
  for (const StagedCopy<std::byte>& copy : staged_copies(staged, 0, bytes))
    RMGSORT_CUDA_TRY(cudaMemcpyAsync(to + copy.chunk_offset, copy.to, copy.bytes, cudaMemcpyDeviceToHost, stream));
}

// What the partition trip leaves: the chunks, each sorted by its digit in its place in the scratch,
// and where each chunk's digits start (page-locked: the copies back stay asynchronous).
struct FirstTrip {
  std::uint64_t chunk_keys = 0;
  std::uint64_t chunks = 0;
  PinnedHostBuffer starts;

  [[nodiscard]] std::uint64_t* chunk_starts(std::uint64_t c) const {
    return starts.as<std::uint64_t>() + c * kStartsPerChunk;
  }
  [[nodiscard]] std::vector<std::uint64_t> digit_totals() const {
    std::vector<std::uint64_t> totals(kRoundDigits, 0);
    for (std::uint64_t c = 0; c < chunks; ++c)
      for (std::uint64_t d = 0; d < kRoundDigits; ++d) totals[d] += chunk_starts(c)[d + 1] - chunk_starts(c)[d];
    return totals;
  }
  // The round's piece of every chunk in `scratch`, in chunk order (so that equal keys keep their
  // input order).
  [[nodiscard]] std::vector<HostRun> runs_of(const DigitRound& round, const std::byte* scratch, std::size_t size) const {
    std::vector<HostRun> runs;
    for (std::uint64_t c = 0; c < chunks; ++c) {
      const std::uint64_t begin = chunk_starts(c)[round.digit_begin], end = chunk_starts(c)[round.digit_end];
      if (begin < end) runs.push_back({scratch + (c * chunk_keys + begin) * size, end - begin});
    }
    return runs;
  }
};

// Trip 1 over records[0, count), chunk c on GPU c % lanes: sorted by bits [shift, shift + 16) and
// copied back to its place in scratch, with its digit starts. Returns once every copy is done.
template <class Items>
FirstTrip partition_trip(const Lanes& lanes, const Items& items, std::uint64_t round_keys, const std::byte* records,
                         std::byte* scratch, std::uint64_t count, int shift) {
  const std::size_t size = items.record_bytes();
  FirstTrip trip;
  trip.chunk_keys = first_trip_chunk_keys(count, round_keys, unsigned(lanes.size()));
  trip.chunks = ceil_div(count, trip.chunk_keys);
  trip.starts = PinnedHostBuffer(std::max<std::uint64_t>(trip.chunks, 1) * kStartsPerChunk * sizeof(std::uint64_t));
  for (std::uint64_t c = 0; c < trip.chunks; ++c) {
    RoundsOnGpus::Lane& lane = *lanes[c % lanes.size()];
    ScopedDevice on(lane.device);
    const std::uint64_t first = c * trip.chunk_keys, n = std::min(trip.chunk_keys, count - first);
    lane.enqueue(
        [&](std::size_t slot, cudaStream_t stream) {
          copy_in_async(items.landing(lane, slot), {HostRun{records + first * size, n}}, 0, n, size, stream);
        },
        [&](std::size_t slot, cudaStream_t stream) {
          return items.sort(lane, slot, n, shift, shift + kRoundDigitBits,
                            lane.starts[slot].template as<std::uint64_t>(), stream);
        },
        [&](std::size_t slot, StagedRecords<std::byte> result, cudaStream_t stream) {
          copy_out_async(result, n * size, scratch + first * size, stream);
          RMGSORT_CUDA_TRY(cudaMemcpyAsync(trip.chunk_starts(c), lane.starts[slot].as(),
                                           kStartsPerChunk * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream));
        });
  }
  synchronize_all(lanes);
  return trip;
}

// Trip 2's rounds but the heavy ones, round r on GPU r % lanes: gathered, sorted by bits [0,
// end_bit) and copied to their place in `records`. Returns an event per round (of its GPU's),
// recorded once the round is there (heavy rounds': never recorded).
template <class Items>
std::vector<Event> enqueue_rounds(const Lanes& lanes, const Items& items, const std::vector<DigitRound>& rounds,
                                  const FirstTrip& trip, const std::byte* scratch, std::byte* records, int end_bit) {
  const std::size_t size = items.record_bytes();
  std::vector<Event> round_done;
  round_done.reserve(rounds.size());
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    const DigitRound& round = rounds[r];
    RoundsOnGpus::Lane& lane = *lanes[r % lanes.size()];
    ScopedDevice on(lane.device);
    round_done.emplace_back();
    if (round.heavy) continue;
    const std::vector<HostRun> runs = trip.runs_of(round, scratch, size);
    lane.enqueue(
        [&](std::size_t slot, cudaStream_t stream) {
          copy_in_async(items.landing(lane, slot), runs, 0, round.keys, size, stream);
        },
        [&](std::size_t slot, cudaStream_t stream) {
          return items.sort(lane, slot, round.keys, 0, end_bit, nullptr, stream);
        },
        [&](std::size_t, StagedRecords<std::byte> result, cudaStream_t stream) {
          copy_out_async(result, round.keys * size, records + round.first * size, stream);
          round_done[r].record(stream);
        });
  }
  return round_done;
}

// Copies every heavy round's runs to its place in `records`, in jobs of at most a round, the GPUs
// taking turns: a copy in and a copy back, nothing done between. Returns once every copy is done.
template <class Items>
void gather_heavy_rounds(const Lanes& lanes, const Items& items, std::uint64_t round_keys,
                         const std::vector<DigitRound>& rounds, const FirstTrip& trip, const std::byte* scratch,
                         std::byte* records) {
  const std::size_t size = items.record_bytes();
  std::uint64_t job = 0;
  for (const DigitRound& round : rounds) {
    if (!round.heavy) continue;
    const std::vector<HostRun> runs = trip.runs_of(round, scratch, size);
    for (std::uint64_t begin = 0; begin < round.keys; begin += round_keys, ++job) {
      const std::uint64_t end = std::min(round.keys, begin + round_keys);
      RoundsOnGpus::Lane& lane = *lanes[job % lanes.size()];
      ScopedDevice on(lane.device);
      lane.enqueue(
          [&](std::size_t slot, cudaStream_t stream) {
            copy_in_async(items.landing(lane, slot), runs, begin, end, size, stream);
          },
          [&](std::size_t slot, cudaStream_t) { return items.landing(lane, slot); },
          [&](std::size_t, StagedRecords<std::byte> landed, cudaStream_t stream) {
            copy_out_async(landed, (end - begin) * size, records + (round.first + begin) * size, stream);
          });
    }
  }
  synchronize_all(lanes);
}

}  // namespace

template <class Items>
RoundsOnGpusReport RoundsOnGpus::trips(const Items& items, std::byte* records, std::byte* scratch,
                                       std::uint64_t count, int shift, std::uint64_t first_record,
                                       const RoundSorted& sorted) {
  const std::size_t size = items.record_bytes();
  RoundsOnGpusReport report;
  report.levels = 1;
  Stopwatch phase;
  const FirstTrip trip = partition_trip(lanes_, items, round_keys_, records, scratch, count, shift);
  report.partition_seconds = phase.lap();
  report.chunks = trip.chunks;
  const std::vector<DigitRound> rounds = plan_digit_rounds(trip.digit_totals(), round_keys_, unsigned(lanes_.size()));
  report.rounds = rounds.size();
  for (const DigitRound& round : rounds)
    if (!round.heavy) report.largest_round = std::max(report.largest_round, round.keys);
  // The records share every bit above the digit: each round is sorted by the bits up to its end.
  const std::vector<Event> round_done =
      enqueue_rounds(lanes_, items, rounds, trip, scratch, records, shift + kRoundDigitBits);

  // Rounds are heard in order. At the first heavy round, every heavy round is gathered into its
  // place in `records` once the other rounds are done reading the scratch; each is then partitioned
  // again by its next digit, with its part of the scratch. A heavy round of the last digit holds
  // one key value, in input order.
  bool gathered = false;
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    const DigitRound& round = rounds[r];
    if (!round.heavy) {
      RMGSORT_CUDA_TRY(cudaEventSynchronize(round_done[r].get()));
      if (sorted) sorted(first_record + round.first, round.keys);
      continue;
    }
    if (!gathered) {
      synchronize_all(lanes_);
      gather_heavy_rounds(lanes_, items, round_keys_, rounds, trip, scratch, records);
      gathered = true;
    }
    ++report.heavy_rounds;
    if (shift == 0) {
      if (sorted) sorted(first_record + round.first, round.keys);
      continue;
    }
    const RoundsOnGpusReport again = trips(items, records + round.first * size, scratch + round.first * size,
                                           round.keys, shift - kRoundDigitBits, first_record + round.first, sorted);
    report.levels = std::max(report.levels, again.levels + 1);
    report.heavy_rounds += again.heavy_rounds;
    report.rounds += again.rounds;
    report.largest_round = std::max(report.largest_round, again.largest_round);
  }
  report.rounds_seconds = phase.lap();
  return report;
}

RoundsOnGpusReport RoundsOnGpus::sort(std::byte* records, std::byte* scratch, std::uint64_t count, SortOrder order,
                                      const RoundSorted& sorted) {
  int previous = 0;
  RMGSORT_CUDA_TRY(cudaGetDevice(&previous));
  for (const auto& lane : lanes_) lane->jobs = 0;
  try {
    RoundsOnGpusReport report;
    const auto run = [&](const auto& items) {
      report = trips(items, records, scratch, count, std::decay_t<decltype(items)>::kKeyBits - kRoundDigitBits, 0, sorted);
    };
    if (layout_.is_bare_key()) {
      visit_key_type(layout_.key_type, [&]<class T>(T) { run(BareKeyItems<T>{order, round_keys_}); });
    } else if (key_width(pair_key_type(layout_)) == 4) {
      run(PairItems<std::uint32_t>{layout_, order, round_keys_});
    } else {
      run(PairItems<std::uint64_t>{layout_, order, round_keys_});
    }
    RMGSORT_CUDA_TRY(cudaSetDevice(previous));
    return report;
  } catch (...) {
    drain();
    (void)cudaSetDevice(previous);
    throw;
  }
}

}  // namespace rmgsort
