// The CPU records target, measured in one run against its baseline:
//   record_sort_bench LOG2_RECORDS DISTRIBUTION [REPEATS]
// sorts 2^LOG2_RECORDS records of (u64 key, u64 payload = the record's index) in memory, keys from
// DISTRIBUTION (generate's names: "uniform", "zipf:1.0", ...), with the CPU engine of `rmgsort sort
// --record-size 16` (sort/cpu_engine.hpp: the records sorted as pairs, in place) and with
// tbb::parallel_sort of the same 16-byte structs by key, each on a fresh copy of the records made
// untimed before the run; prints the median seconds of each, the ratio and the bytes the engine
// used per record beside the records. Also, in the same run, the pair sort as it was before the
// one-pass and logarithmic digits (stable_radix_sort_before.hpp: what the engine ran for these
// records) as `before_s`. Checks that every output is sorted and stable. An untimed sort first
// touches the engine's buffers (first-touch faults are not what is measured).
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "generate/generate.hpp"
#include "io/host_buffer.hpp"
#include "sort/cpu_engine.hpp"
#include "tests/bench/stable_radix_sort_before.hpp"

using namespace rmgsort;
using Clock = std::chrono::steady_clock;

namespace {

struct Record {
  std::uint64_t key;
  std::uint64_t payload;
};
static_assert(sizeof(Record) == 16);

struct RecordKey {
  std::uint64_t operator()(const Record& r) const { return r.key; }
};

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median(std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

// Parallel copy, so that refilling a buffer between runs is not timed.
void copy_bytes(std::byte* to, const std::byte* from, std::size_t bytes) {
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, bytes, std::size_t{1} << 24),
                    [&](const auto& r) { std::memcpy(to + r.begin(), from + r.begin(), r.size()); });
}

// Touches every page (first-touch faults are not what is measured).
HostBuffer touched(std::size_t bytes) {
  HostBuffer buffer(bytes);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, bytes, std::size_t{1} << 24),
                    [&](const auto& r) { std::memset(buffer.data() + r.begin(), 0, r.size()); });
  return buffer;
}

// Sorted by key, equal keys by payload (= input position): the stable order.
bool sorted_stably(const Record* out, std::size_t n) {
  bool ok = true;
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(1, std::max<std::size_t>(n, 1), std::size_t{1} << 20), [&](const auto& r) {
        for (std::size_t i = r.begin(); i < r.end(); ++i)
          if (out[i - 1].key > out[i].key || (out[i - 1].key == out[i].key && out[i - 1].payload >= out[i].payload))
            ok = false;
      });
  return ok;
}

int run(int log2_records, const char* distribution, int repeats) {
  const std::size_t n = std::size_t{1} << log2_records;
  const RecordLayout layout = RecordLayout::of(KeySpec{KeyType::u64, 8}, sizeof(Record), 0);

  HostBuffer input = touched(n * sizeof(Record));
  HostBuffer baseline = touched(n * sizeof(Record));
  HostBuffer work = touched(n * sizeof(Record));
  HostBuffer before_scratch = touched(n * sizeof(Record));
  {
    std::vector<std::uint64_t> keys(n);
    generate_keys(keys.data(), 0, n, n, parse_distribution(distribution), 1);
    auto* records = input.as<Record>();
    tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) { records[i] = {keys[i], i}; });
  }
  CpuEngine engine(layout);
  engine.allocate(n);
  copy_bytes(work.data(), input.data(), input.size());
  (void)engine.sort(work.data(), n, SortOrder::ascending);

  std::vector<double> baseline_s, ours_s, before_s;
  const Record* out = nullptr;
  for (int r = 0; r < repeats; ++r) {
    copy_bytes(baseline.data(), input.data(), input.size());
    auto start = Clock::now();
    tbb::parallel_sort(baseline.as<Record>(), baseline.as<Record>() + n,
                       [](const Record& a, const Record& b) { return a.key < b.key; });
    baseline_s.push_back(since(start));

    copy_bytes(work.data(), input.data(), input.size());
    start = Clock::now();
    const SortedRound sorted = engine.sort(work.data(), n, SortOrder::ascending);
    ours_s.push_back(since(start));
    out = reinterpret_cast<const Record*>(sorted.records.data());
    if (!sorted_stably(out, n)) {
      std::fprintf(stderr, "record_sort_bench: the engine's output is not sorted stably\n");
      return 1;
    }
    for (std::size_t i = 0; i < n; ++i)
      if (out[i].key != baseline.as<Record>()[i].key) {
        std::fprintf(stderr, "record_sort_bench: the engine and tbb::parallel_sort disagree at %zu\n", i);
        return 1;
      }

    copy_bytes(baseline.data(), input.data(), input.size());
    start = Clock::now();
    before::stable_radix_sort<Record, RecordKey>(baseline.as<Record>(), n, 0, before_scratch.as<Record>());
    before_s.push_back(since(start));
    if (!sorted_stably(baseline.as<Record>(), n)) {
      std::fprintf(stderr, "record_sort_bench: the sort before's output is not sorted stably\n");
      return 1;
    }
  }
  if (std::memcmp(out, baseline.data(), n * sizeof(Record)) != 0) {
    std::fprintf(stderr, "record_sort_bench: the engine and the sort before disagree\n");
    return 1;
  }
  const double tbb_s = median(baseline_s), ours = median(ours_s), was = median(before_s);
  std::printf("records=2^%d dist=%s threads=%d tbb_parallel_sort_s=%.3f engine_s=%.3f speedup=%.2f "
              "before_s=%.3f before_speedup=%.2f extra_bytes_per_record=%llu engine=%s\n",
              log2_records, distribution, tbb::this_task_arena::max_concurrency(), tbb_s, ours, tbb_s / ours, was,
              tbb_s / was,
              static_cast<unsigned long long>(engine.host_bytes_beside(n) / n), engine.stats().dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: record_sort_bench LOG2_RECORDS DISTRIBUTION [REPEATS]\n");
    return 2;
  }
  return run(std::atoi(argv[1]), argv[2], argc > 3 ? std::atoi(argv[3]) : 3);
}
