#include "tests/bench/rounds_on_gpus_bench.hpp"

#include <cuda_runtime_api.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/error.hpp"
#include "core/key_order.hpp"
#include "host/order_check.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_resources.hpp"
#include "gpu/rounds_on_gpus.hpp"
#include "host/checksum.hpp"
#include "report/stopwatch.hpp"

namespace rmgsort {
namespace {

// Whether records [begin, end) are in ascending order, record begin - 1 included when begin > 0
// (so that rounds checked one by one check their borders too).
bool in_order(const std::byte* records, const RecordLayout& layout, std::uint64_t begin, std::uint64_t end) {
  const std::uint64_t from = begin == 0 ? 0 : begin - 1;
  return !find_disorder(records + from * layout.record_size, end - from, layout, SortOrder::ascending).has_value();
}

void page_lock(HostBuffer& buffer) {
  RMGSORT_CUDA_TRY(cudaHostRegister(buffer.data(), buffer.capacity(), cudaHostRegisterPortable));
}

// "u64" for bare keys, "16-byte records, u64 key at 0" for records.
std::string describe(const RecordLayout& layout) {
  if (layout.is_bare_key()) return std::string(key_type_name(layout.key_type));
  return std::to_string(layout.record_size) + "-byte records, " + layout.key().name() + " key at " +
         std::to_string(layout.key_offset);
}

}  // namespace

bool bench_rounds_on_gpus(const RoundsOnGpusBenchOptions& o, const HostBuffer& original, double both_ways_gbps) {
  const std::size_t size = o.layout.record_size;
  const std::uint64_t bytes = o.count * size;
  std::uint64_t budget = 0;
  if (o.gpu_memory) {
    budget = *o.gpu_memory;
  } else {
    ScopedDevice on(o.gpus.front());
    std::size_t free = 0, total = 0;
    RMGSORT_CUDA_TRY(cudaMemGetInfo(&free, &total));
    budget = free / 10 * 9;
  }
  const std::uint64_t round_keys = RoundsOnGpus::round_keys_within(budget, o.layout);
  if (round_keys == 0) throw Error("--gpu-memory holds no round");
  RoundsOnGpus sorter(o.gpus, o.layout, round_keys);

  const unsigned threads = unsigned(tbb::this_task_arena::max_concurrency());
  HostBuffer keys(bytes), scratch(bytes);
  Stopwatch step;
  populate_pages(keys.data(), bytes, threads);
  populate_pages(scratch.data(), bytes, threads);
  const double populate_s = step.lap();
  page_lock(keys);
  page_lock(scratch);
  const double lock_s = step.lap();

  RoundsOnGpusReport best;
  double best_wall = 1e30;
  for (int run = 0; run < o.repeats; ++run) {
    parallel_copy(keys.data(), original.data(), bytes);
    step.lap();
    const RoundsOnGpusReport report = sorter.sort(keys.data(), scratch.data(), o.count, SortOrder::ascending);
    const double wall = step.lap();
    std::printf("RESULT partition=gpu gb=%.2f gpus=%zu chunks=%llu rounds=%llu heavy_rounds=%llu levels=%d wall=%.3f "
                "partition_trip=%.3f rounds_trip=%.3f gbps=%.2f\n",
                double(bytes) / 1e9, o.gpus.size(), (unsigned long long)report.chunks,
                (unsigned long long)report.rounds, (unsigned long long)report.heavy_rounds, report.levels, wall,
                report.partition_seconds, report.rounds_seconds, double(bytes) / 1e9 / wall);
    if (wall < best_wall) best_wall = wall, best = report;
  }
  // The checked run: each round's order (and its border with the previous one) as it lands, then
  // the checksum of the whole against the input's.
  parallel_copy(keys.data(), original.data(), bytes);
  bool ordered = true;
  std::uint64_t heard = 0;
  (void)sorter.sort(keys.data(), scratch.data(), o.count, SortOrder::ascending, [&](std::uint64_t first, std::uint64_t n) {
    ordered = ordered && first == heard && in_order(keys.data(), o.layout, first, first + n);
    heard += n;
  });
  const bool ok = heard == o.count && ordered &&
                  checksum_records(keys.data(), bytes, size) == checksum_records(original.data(), bytes, size);
  step.lap();
  RMGSORT_CUDA_TRY(cudaHostUnregister(keys.data()));
  RMGSORT_CUDA_TRY(cudaHostUnregister(scratch.data()));
  const double release_s = step.lap();

  const double gb = double(bytes) / 1e9;
  const double trip_floor = both_ways_gbps > 0 ? gb / both_ways_gbps : 0;
  std::printf("\n## The GPUs alone (partition trip + rounds trip): %.1f GB of %s, %zu GPU(s), rounds of at most "
              "%llu records per GPU; best of %d runs\n\n",
              gb, describe(o.layout).c_str(), o.gpus.size(), (unsigned long long)round_keys, o.repeats);
  std::printf("| stage | seconds | GB/s | bound (same run) | bound s |\n|---|---|---|---|---|\n");
  std::printf("| partition trip (%llu chunks) | %.3f | %.2f | PCIe in and out at once, %.1f GB/s each way | %.3f |\n",
              (unsigned long long)best.chunks, best.partition_seconds, gb / best.partition_seconds, both_ways_gbps,
              trip_floor);
  std::printf("| rounds trip (%llu rounds) | %.3f | %.2f | the same | %.3f |\n", (unsigned long long)best.rounds,
              best.rounds_seconds, gb / best.rounds_seconds, trip_floor);
  std::printf("| **wall, host memory (page-locked before) to host memory** | %.3f | **%.2f** | two trips | %.3f |\n",
              best_wall, gb / best_wall, 2 * trip_floor);
  std::printf("| populating the keys' and the scratch's pages (once, untimed above) | %.3f | | | |\n", populate_s);
  std::printf("| page-locking them (once, untimed above) | %.3f | %.2f | | |\n", lock_s, 2 * gb / lock_s);
  std::printf("| releasing them (once, untimed above) | %.3f | %.2f | | |\n", release_s, 2 * gb / release_s);
  std::printf("| wall with page-locking and release added | %.3f | %.2f | | |\n", best_wall + lock_s + release_s,
              gb / (best_wall + lock_s + release_s));
  std::printf("RESULT partition=gpu check=%s\n", ok ? "ok" : "WRONG");
  return ok;
}

}  // namespace rmgsort
