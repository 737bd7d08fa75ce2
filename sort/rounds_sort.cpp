#include "sort/rounds_sort.hpp"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "host/move_down.hpp"
#include "report/stopwatch.hpp"
#include "sort/sorted_sink.hpp"

namespace rmgsort {
namespace {

// The rounds of `plan` sorted by hooks.sorters threads, round r by sorter r % sorters in order, and
// handed on here in order as each one's sort is done. The first failure, of a sort or a hand-off,
// stops every sorter before its next round and is thrown once all have stopped: no sort is still
// writing the rounds' memory when the caller unwinds.
void sort_and_hand_on(const RoundPlan& plan, std::byte* partitioned, std::size_t width, const RoundHooks& hooks,
                      RoundsReport& report, Stopwatch& phase) {
  const std::size_t rounds = plan.rounds();
  const auto keys_of = [&](std::size_t r) { return partitioned + plan.cuts[r] * width; };
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<char> sorted(rounds, 0);  // guarded by mutex, as failure is
  std::exception_ptr failure;
  const auto fail = [&](std::exception_ptr error) {
    const std::lock_guard lock(mutex);
    if (!failure) failure = std::move(error);
    changed.notify_all();
  };
  {
    std::vector<std::jthread> sorters;
    for (unsigned s = 0; s < hooks.sorters; ++s) {
      sorters.emplace_back([&, s] {
        try {
          for (std::size_t r = s; r < rounds; r += hooks.sorters) {
            if (const std::lock_guard lock(mutex); failure) return;
            hooks.sort_round(keys_of(r), plan.round_keys(r), s);
            const std::lock_guard lock(mutex);
            sorted[r] = 1;
            changed.notify_all();
          }
        } catch (...) {
          fail(std::current_exception());
        }
      });
    }
    try {
      for (std::size_t r = 0; r < rounds; ++r) {
        {
          std::unique_lock lock(mutex);
          changed.wait(lock, [&] { return sorted[r] != 0 || failure; });
          if (failure) break;
        }
        report.round_sort_seconds.push_back(phase.lap());
        hooks.sorted(std::span<const std::byte>(keys_of(r), plan.round_keys(r) * width));
        phase.lap();  // the hand-off (waiting for the writer, verifying) is not the sort's
        report.round_keys.push_back(plan.round_keys(r));
        if (hooks.on_rounds) hooks.on_rounds(r + 1, rounds);
      }
    } catch (...) {
      fail(std::current_exception());
    }
  }  // the sorters have stopped
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

RoundsReport sort_in_rounds(KeyType type, const std::byte* input, std::byte* partitioned, std::uint64_t count,
                            SortOrder order, std::uint64_t round_capacity, const RoundHooks& hooks,
                            const TopDigitHistogram* top_digits) {
  RoundsReport report;
  const std::size_t width = key_width(type);
  Stopwatch phase;
  RoundPlan plan;
  const auto partition = [&] {
    plan = visit_key_type(type, [&]<class T>(T) {
      return partition_into_rounds(reinterpret_cast<const T*>(input), reinterpret_cast<T*>(partitioned), count, order,
                                   round_capacity, &report.partition, top_digits);
    });
  };
  if (hooks.around_partition) {
    hooks.around_partition(partition);
  } else {
    partition();
  }
  if (hooks.on_partitioned) hooks.on_partitioned();
  report.partition_seconds = phase.lap();
  if (hooks.on_rounds) hooks.on_rounds(0, plan.rounds());
  RMGSORT_EXPECTS(hooks.sorters > 0, "sort_in_rounds: at least one sorter");
  sort_and_hand_on(plan, partitioned, width, hooks, report, phase);
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
  // The rounds are partitioned into the output's own pages when they were reserved while the keys
  // were read (sort/read_keys.hpp): each round is sorted where it is written, and nothing is written
  // after the sorts. Else into a buffer of their own, each round written as soon as it is sorted.
  OutputPages* const pages = keys.output_pages.get();
  HostBuffer buffer;
  std::span<std::byte> partitioned;
  if (pages != nullptr) {
    partitioned = {pages->data(), std::size_t(pages->bytes())};  // placed for the engine when reserved
  } else {
    buffer = HostBuffer(keys.bytes);
    engine.place(buffer.data(), buffer.capacity());
    partitioned = {buffer.data(), buffer.capacity()};
  }
  allocate_engine(engine, engine.round_keys(), phase, outcome.times, &progress);
  // The partition's memory is page-locked whole while the partition runs, once instead of before
  // each round (a round's registration and release took 2.4 of the 3.1 s its rounds took on 2 H200s
  // for 32 GB). Before the partition, it was on the critical path: 18-23 s for 64 GB on an x4 H200
  // machine (bench_results/2026-11-22-out-of-core-h200x4-*.md). Released before that memory is
  // freed or unmapped, thrown out of included.
  struct Unpin {
    SortEngine& engine;
    ~Unpin() { engine.unpin_while({}); }
  } unpin{engine};
  progress.phase("partitioning into rounds", 0);
  SortRun checked = run;
  if (pages != nullptr) checked.output_fd = -1;  // the sink verifies and filters; the rounds are in place
  // A sink without writers is done with a round when its call returns: --unique may move the next.
  RMGSORT_EXPECTS(pages == nullptr || checked.index_fd < 0, "no --index-output for rounds in the output's pages");
  SortedSink sink(checked, layout, count);
  std::uint64_t kept_bytes = 0;  // in the output's pages: the records kept so far, at their front
  const std::string devices = engine.devices();
  RoundHooks hooks;
  hooks.sorters = engine.concurrent_sorts();
  hooks.sort_round = [&](std::byte* round, std::uint64_t n, unsigned sorter) {
    (void)engine.sort_on(sorter, round, n, run.order);  // in place
  };
  hooks.sorted = [&](std::span<const std::byte> round) {
    const SortedRound written = sink(SortedRound{round, {}});
    if (pages == nullptr) return;
    // --unique kept the round's first records at its front: they close up behind the rounds before,
    // below every round a sorter may still be writing.
    std::byte* const end_of_kept = pages->data() + kept_bytes;
    if (written.records.data() != end_of_kept) {
      const MovePiece kept{written.records.data(), written.records.size()};
      move_down(end_of_kept, {&kept, 1});
    }
    kept_bytes += written.records.size();
  };
  hooks.around_partition = [&](const std::function<void()>& partition) {
    engine.pin_while(partitioned.data(), partitioned.size(), partition, "partition");
  };
  // The input is partitioned: its memory goes back before the output's pages are written, when they
  // are written (a machine whose memory grows as it is touched spent ~3 s per 8 GB on fresh pages).
  hooks.on_partitioned = [&] { keys.keys = HostBuffer(); };
  hooks.on_rounds = [&](std::uint64_t done, std::uint64_t total) {
    if (done == 0) progress.phase("sorting rounds on " + devices, keys.bytes);  // partitioned
    progress.rounds(done, total);
  };
  outcome.rounds = sort_in_rounds(layout.key_type, keys.keys.data(), partitioned.data(), count, run.order,
                                  engine.round_keys(), hooks, keys.top_digits.get());
  // The last round is written (or checked in the output's pages) while the partition's memory is
  // released.
  engine.unpin_while([&] { outcome.verify_failure = sink.finish(keys.checksum); });
  outcome.duplicates_dropped = sink.duplicates_dropped();
  outcome.times.partition = outcome.rounds->partition_seconds;
  for (double s : outcome.rounds->round_sort_seconds) outcome.times.sort += s;
  if (pages != nullptr && outcome.verify_failure.empty()) pages->finish(kept_bytes);  // (fewer bytes: --unique)
  outcome.sorted_in_output_file = pages != nullptr;
  outcome.times.write = phase.lap() - outcome.times.partition - outcome.times.sort;  // what the sorts did not hide
  return outcome;
}

}  // namespace rmgsort
