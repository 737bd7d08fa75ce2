// The CPU records target, measured in one run against its baseline:
//   record_sort_bench LOG2_RECORDS DISTRIBUTION [REPEATS]
// sorts 2^LOG2_RECORDS records of (u64 key, u64 payload = the record's index) in memory, keys from
// DISTRIBUTION (generate's names: "uniform", "zipf:1.0", ...), with sort_records and with
// tbb::parallel_sort of the same 16-byte structs by key; prints the median seconds of each, the
// ratio, sort_records' phases (median of their own timed calls) and the bytes it used per record
// beside the input and the output. Checks that sort_records' output is sorted and stable.
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
#include "host/record_sort.hpp"
#include "host/record_tags.hpp"
#include "host/tag_sort.hpp"
#include "io/host_buffer.hpp"

using namespace rmgsort;
using Clock = std::chrono::steady_clock;

namespace {

struct Record {
  std::uint64_t key;
  std::uint64_t payload;
};
static_assert(sizeof(Record) == 16);

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

struct Phases {
  std::vector<double> build, tag_sort, refine, gather;
};

// sort_records' four steps, each timed.
void timed_phases(const std::byte* records, std::size_t n, const RecordLayout& layout, std::byte* out,
                  std::uint64_t* tags, std::uint64_t* scratch, Phases& phases) {
  auto start = Clock::now();
  const TagPlan plan = build_record_tags(records, n, layout, SortOrder::ascending, tags);
  phases.build.push_back(since(start));
  start = Clock::now();
  sort_tags(tags, n, plan.index_bits, scratch);
  phases.tag_sort.push_back(since(start));
  start = Clock::now();
  refine_record_tags(tags, n, plan, records, layout, SortOrder::ascending);
  phases.refine.push_back(since(start));
  start = Clock::now();
  gather_records(tags, n, plan, records, layout.record_size, out);
  phases.gather.push_back(since(start));
}

int run(int log2_records, const char* distribution, int repeats) {
  const std::size_t n = std::size_t{1} << log2_records;
  const RecordLayout layout = RecordLayout::of(KeySpec{KeyType::u64, 8}, sizeof(Record), 0);

  HostBuffer input = touched(n * sizeof(Record));
  HostBuffer out = touched(n * sizeof(Record));
  HostBuffer baseline = touched(n * sizeof(Record));
  HostBuffer tags = touched(record_sort_scratch_bytes(n) / 2);
  HostBuffer scratch = touched(record_sort_scratch_bytes(n) / 2);
  {
    std::vector<std::uint64_t> keys(n);
    generate_keys(keys.data(), 0, n, n, parse_distribution(distribution), 1);
    auto* records = input.as<Record>();
    tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) { records[i] = {keys[i], i}; });
  }

  std::vector<double> baseline_s, ours_s;
  Phases phases;
  for (int r = 0; r < repeats; ++r) {
    copy_bytes(baseline.data(), input.data(), input.size());
    auto start = Clock::now();
    tbb::parallel_sort(baseline.as<Record>(), baseline.as<Record>() + n,
                       [](const Record& a, const Record& b) { return a.key < b.key; });
    baseline_s.push_back(since(start));

    start = Clock::now();
    sort_records(input.data(), n, layout, SortOrder::ascending, out.data(), tags.as<std::uint64_t>(),
                 scratch.as<std::uint64_t>());
    ours_s.push_back(since(start));
    if (!sorted_stably(out.as<Record>(), n)) {
      std::fprintf(stderr, "record_sort_bench: sort_records' output is not sorted stably\n");
      return 1;
    }
    timed_phases(input.data(), n, layout, out.data(), tags.as<std::uint64_t>(), scratch.as<std::uint64_t>(), phases);
  }
  for (std::size_t i = 0; i < n; ++i)
    if (out.as<Record>()[i].key != baseline.as<Record>()[i].key) {
      std::fprintf(stderr, "record_sort_bench: sort_records and tbb::parallel_sort disagree at %zu\n", i);
      return 1;
    }
  const double tbb_s = median(baseline_s), ours = median(ours_s);
  std::printf(
      "records=2^%d dist=%s threads=%d tbb_parallel_sort_s=%.3f sort_records_s=%.3f speedup=%.2f "
      "build_s=%.3f tag_sort_s=%.3f refine_s=%.3f gather_s=%.3f extra_bytes_per_record=%llu\n",
      log2_records, distribution, tbb::this_task_arena::max_concurrency(), tbb_s, ours, tbb_s / ours,
      median(phases.build), median(phases.tag_sort), median(phases.refine), median(phases.gather),
      static_cast<unsigned long long>(record_sort_scratch_bytes(n) / n));
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
