#include "sort/rounds_sort.hpp"

#include "report/stopwatch.hpp"
#include "sort/sorted_sink.hpp"

namespace rmgsort {

RoundsReport sort_in_rounds(KeyType type, const std::byte* input, std::byte* partitioned, std::uint64_t count,
                            SortOrder order, std::uint64_t round_capacity,
                            const std::function<void(std::byte* keys, std::uint64_t count)>& sort_round,
                            const std::function<void(std::span<const std::byte> round)>& sorted,
                            const std::function<void()>& on_partitioned,
                            const std::function<void(std::uint64_t done, std::uint64_t total)>& on_rounds,
                            const TopDigitHistogram* top_digits) {
  RoundsReport report;
  const std::size_t width = key_width(type);
  Stopwatch phase;
  const RoundPlan plan = visit_key_type(type, [&]<class T>(T) {
    return partition_into_rounds(reinterpret_cast<const T*>(input), reinterpret_cast<T*>(partitioned), count, order,
                                 round_capacity, &report.partition, top_digits);
  });
  if (on_partitioned) on_partitioned();
  report.partition_seconds = phase.lap();
  if (on_rounds) on_rounds(0, plan.rounds());
  for (std::size_t r = 0; r < plan.rounds(); ++r) {
    std::byte* keys = partitioned + plan.cuts[r] * width;
    const std::uint64_t n = plan.round_keys(r);
    sort_round(keys, n);
    report.round_sort_seconds.push_back(phase.lap());
    sorted(std::span<const std::byte>(keys, n * width));
    phase.lap();  // the hand-off (waiting for the writer, verifying) is not the sort's
    report.round_keys.push_back(n);
    if (on_rounds) on_rounds(r + 1, plan.rounds());
  }
  return report;
}

SortOutcome sort_in_memory_rounds(SortEngine& engine, KeysInMemory& keys, const SortRun& run) {
  const RecordLayout& layout = engine.layout();
  RMGSORT_EXPECTS(layout.is_bare_key() && engine.output_bytes(1) == 0, "rounds of bare keys, sorted in place");
  const std::uint64_t count = keys.bytes / layout.record_size;
  Progress& progress = *run.progress;
  SortOutcome outcome;
  outcome.bytes = keys.bytes;
  Stopwatch phase;
  // Each round is verified and written as soon as it is sorted. The partition buffer is not pinned
  // as a whole: the sorter page-locks each round for its sort, which runs while the previous round
  // is written. Pinning all of it first was on the critical path: 18-23 s for 64 GB on an x4 H200
  // machine (bench_results/2026-11-22-out-of-core-h200x4-*.md).
  HostBuffer partitioned(keys.bytes);
  engine.place(partitioned.data(), partitioned.capacity());
  allocate_engine(engine, engine.round_keys(), phase, outcome.times, &progress);
  progress.phase("partitioning into rounds", 0);
  SortedSink sink(run, layout, count);
  const std::string devices = engine.devices();
  outcome.rounds = sort_in_rounds(
      layout.key_type, keys.keys.data(), partitioned.data(), count, run.order, engine.round_keys(),
      [&](std::byte* round, std::uint64_t n) { (void)engine.sort(round, n, run.order); },  // in place
      [&](std::span<const std::byte> round) { sink(SortedRound{round, {}}); },
      // The input is partitioned: its memory goes back before the output's pages are written (a
      // machine whose memory grows as it is touched spent ~3 s per 8 GB on fresh pages).
      [&] { keys.keys = HostBuffer(); },
      [&](std::uint64_t done, std::uint64_t total) {
        if (done == 0) progress.phase("sorting rounds on " + devices, keys.bytes);  // partitioned
        progress.rounds(done, total);
      },
      keys.top_digits.get());
  outcome.verify_failure = sink.finish(keys.checksum);
  outcome.duplicates_dropped = sink.duplicates_dropped();
  outcome.times.partition = outcome.rounds->partition_seconds;
  for (double s : outcome.rounds->round_sort_seconds) outcome.times.sort += s;
  outcome.times.write = phase.lap() - outcome.times.partition - outcome.times.sort;  // what the sorts did not hide
  return outcome;
}

}  // namespace rmgsort
