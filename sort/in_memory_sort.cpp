#include "sort/in_memory_sort.hpp"

#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <optional>

#include "report/stopwatch.hpp"
#include "host/order_check.hpp"
#include "io/uring_writer.hpp"
#include "sort/sorted_prefix_writer.hpp"
#include "sort/sorted_sink.hpp"
#include "sort/unique_filter.hpp"

namespace rmgsort {
namespace {

// engine.sort(), with the output written WHILE_SORTING beside it. Into pages reserved beside the
// sort (run.output_reserved, io/output_reservation.hpp), only stores are left for the writer's
// threads, and they get cores of their own: the sort takes what the machine's cores leave them,
// within --threads. 2^30 u64 keys, /dev/shm to /dev/shm, 16-core H200 host, three turns: sorting on
// all 16 threads beside the writer's 4, 3.27-3.38 s end to end (5.94 s in a turn whose read took
// 1.1 s), 1.8-2.5 GiB written while sorting; on 12 of them, 3.15-3.37 s, 5.3-6.5 GiB; on 8 beside
// 8 writer threads, 3.82-4.76 s (bench_results/2026-12-02-cpu-output-reservation-h200.md).
SortedRound sort_beside_writer(SortEngine& engine, std::byte* records, std::uint64_t count, const SortRun& run,
                               bool while_sorting) {
  if (!while_sorting || !run.output_reserved) return engine.sort(records, count, run.order);
  // Within --threads (the global limit, which an arena larger than it would only warn about on
  // standard error) and within the cores the writer's threads leave.
  const int allowed = int(SortedPrefixWriter::sort_threads());
  const int writers = int(SortedPrefixWriter::threads_while_sorting());
  const int sorters = std::min(allowed, std::max(1, tbb::info::default_concurrency() - writers));
  tbb::task_arena arena(sorters);
  SortedRound sorted;
  arena.execute([&] { sorted = engine.sort(records, count, run.order); });
  return sorted;
}

}  // namespace

SortOutcome sort_in_memory(SortEngine& engine, KeysInMemory& keys, const SortRun& run) {
  const RecordLayout& layout = engine.layout();
  const std::uint64_t count = keys.bytes / layout.record_size;
  Progress& progress = *run.progress;
  SortOutcome outcome;
  outcome.bytes = keys.bytes;
  Stopwatch phase;
  allocate_engine(engine, count, phase, outcome.times, &progress);
  const std::string devices = engine.devices();
  // An engine that tells the bytes it has placed as it goes (the CPU's, of bare keys) gives its
  // phase a total, and so a percentage. The others' phases show only their time.
  const bool told = engine.report_to(progress);
  // An engine that tells the prefix it has finished (the CPU's, of bare keys) has it written while
  // it sorts the rest, unless something must be checked first (--verify writes nothing when it
  // fails) or a second output is written (--index-output).
  std::optional<SortedPrefixWriter> streaming;
  // Keys sorted in the output's own pages (io/output_pages.hpp) are written once sorted.
  const bool in_output = keys.output_pages != nullptr;
  if (!in_output && run.output_fd >= 0 && run.index_fd < 0 && !run.verify &&
      engine.hand_prefixes_to([&streaming](std::uint64_t records) { streaming->sorted(records); })) {
    streaming.emplace(run, layout, keys.data(), keys.bytes);
  }
  // The engine stops telling once this sort is over, thrown out of included: its sink refers to
  // `streaming`, which ends with this call.
  struct StopTelling {
    SortEngine& engine;
    bool telling;
    ~StopTelling() {
      if (telling) (void)engine.hand_prefixes_to({});
    }
  } stop_telling{engine, streaming.has_value()};
  progress.phase(devices.empty() ? std::string("sorting") : "sorting on " + devices, told ? keys.bytes : 0);
  SortedRound sorted = sort_beside_writer(engine, keys.data(), count, run, streaming.has_value());
  outcome.times.sort = phase.lap();
  RMGSORT_EXPECTS(!in_output || sorted.records.data() == keys.data(), "keys in the output's pages sorted in place");
  outcome.sorted_in_output_file = in_output;
  if (streaming) {
    progress.phase("writing " + run.output_name, 0);
    streaming->finish();
    outcome.times.write = phase.lap();  // what the sort did not hide
    outcome.written_while_sorting = streaming->written_while_sorting();
    outcome.duplicates_dropped = streaming->duplicates_dropped();
    return outcome;
  }
  if (run.verify) {
    progress.phase("verifying", 0);
    OrderChecker order(layout, run.order);
    order.feed(sorted.records.data(), sorted.records.size());
    outcome.verify_failure =
        verify_failure(layout, order.first_disorder(),
                       checksum_records(sorted.records.data(), sorted.records.size(), layout.record_size) == keys.checksum);
    outcome.times.verify = phase.lap();
    if (!outcome.verify_failure.empty()) return outcome;
  }
  // The keys' page-locking (the GPUs') is released beside what is left to do with them, before
  // their memory is unmapped or freed: an unmapping or a cut under the registration would leave the
  // pages held until the run ends.
  engine.unpin_while([&] {
    if (run.unique) {  // (timed with the write)
      UniqueFilter unique(layout, run.order);
      sorted = unique.keep_firsts(sorted);
      outcome.duplicates_dropped = unique.dropped();
    }
    if (!in_output && run.output_fd >= 0) {
      progress.phase("writing " + run.output_name, 0);
      write_file(run.output_fd, run.output_name, sorted.records.data(), sorted.records.size(), WriteOptions{});
    }
    if (run.index_fd >= 0) {
      progress.phase("writing " + run.index_name, 0);
      const auto positions = std::as_bytes(sorted.positions);
      write_file(run.index_fd, run.index_name, positions.data(), positions.size(), WriteOptions{});
    }
  });
  if (in_output) keys.output_pages->finish(sorted.records.size());  // (fewer bytes: --unique)
  outcome.times.write = phase.lap();  // in the output's pages: --unique and the unmapping
  return outcome;
}

}  // namespace rmgsort
