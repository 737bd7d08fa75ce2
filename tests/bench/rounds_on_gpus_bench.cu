#include "tests/bench/rounds_on_gpus_bench.hpp"

#include <cuda_runtime_api.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/error.hpp"
#include "core/key_order.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_resources.hpp"
#include "gpu/rounds_on_gpus.hpp"
#include "host/checksum.hpp"
#include "report/stopwatch.hpp"

namespace rmgsort {
namespace {

// Whether keys[begin, end) are in ascending order of their encoded bits, key begin - 1 included
// when begin > 0 (so that rounds checked one by one check their borders too).
template <class T>
bool in_order(const T* keys, std::uint64_t begin, std::uint64_t end) {
  const auto encoded = [&](std::uint64_t i) { return KeyOrder<T, SortOrder::ascending>::encode(keys[i]); };
  return tbb::parallel_reduce(
      tbb::blocked_range<std::uint64_t>(begin == 0 ? 1 : begin, std::max<std::uint64_t>(end, 1), 1 << 20), true,
      [&](const auto& r, bool ok) {
        for (std::uint64_t i = r.begin(); ok && i < r.end(); ++i) ok = encoded(i - 1) <= encoded(i);
        return ok;
      },
      [](bool a, bool b) { return a && b; });
}

void page_lock(HostBuffer& buffer) {
  RMGSORT_CUDA_TRY(cudaHostRegister(buffer.data(), buffer.capacity(), cudaHostRegisterPortable));
}

}  // namespace

bool bench_rounds_on_gpus(const RoundsOnGpusBenchOptions& o, const HostBuffer& original, double both_ways_gbps) {
  const std::size_t width = key_width(o.type);
  const std::uint64_t bytes = o.count * width;
  std::uint64_t budget = 0;
  if (o.gpu_memory) {
    budget = *o.gpu_memory;
  } else {
    ScopedDevice on(o.gpus.front());
    std::size_t free = 0, total = 0;
    RMGSORT_CUDA_TRY(cudaMemGetInfo(&free, &total));
    budget = free / 10 * 9;
  }
  const std::uint64_t round_keys = RoundsOnGpus::round_keys_within(budget, width);
  if (round_keys == 0) throw Error("--gpu-memory holds no round");
  RoundsOnGpus sorter(o.gpus, o.type, round_keys);

  const unsigned threads = unsigned(tbb::this_task_arena::max_concurrency());
  HostBuffer keys(bytes), scratch(bytes);
  Stopwatch step;
  populate_pages(keys.data(), bytes, threads);
  populate_pages(scratch.data(), bytes, threads);
  const double populate_s = step.lap();
  page_lock(keys);
  page_lock(scratch);
  const double lock_s = step.lap();

  std::optional<RoundsOnGpusReport> best;
  double best_wall = 1e30;
  for (int run = 0; run < o.repeats; ++run) {
    parallel_copy(keys.data(), original.data(), bytes);
    step.lap();
    const auto report = sorter.sort(keys.data(), scratch.data(), o.count, SortOrder::ascending);
    const double wall = step.lap();
    if (!report) throw Error("a top digit holds more keys than a round: the GPUs alone cannot sort these keys");
    std::printf("RESULT partition=gpu gb=%.2f gpus=%zu chunks=%llu rounds=%llu wall=%.3f partition_trip=%.3f "
                "rounds_trip=%.3f gbps=%.2f\n",
                double(bytes) / 1e9, o.gpus.size(), (unsigned long long)report->chunks,
                (unsigned long long)report->rounds, wall, report->partition_seconds, report->rounds_seconds,
                double(bytes) / 1e9 / wall);
    if (wall < best_wall) best_wall = wall, best = report;
  }
  // The checked run: each round's order (and its border with the previous one) as it lands, then
  // the checksum of the whole against the input's.
  parallel_copy(keys.data(), original.data(), bytes);
  bool ordered = true;
  const auto sorted = sorter.sort(keys.data(), scratch.data(), o.count, SortOrder::ascending,
                                  [&](std::uint64_t first, std::uint64_t n) {
                                    visit_key_type(o.type, [&]<class T>(T) {
                                      ordered = ordered && in_order(keys.as<T>(), first, first + n);
                                    });
                                  });
  const bool ok = sorted && ordered &&
                  checksum_keys(keys.data(), bytes, width) == checksum_keys(original.data(), bytes, width);
  step.lap();
  RMGSORT_CUDA_TRY(cudaHostUnregister(keys.data()));
  RMGSORT_CUDA_TRY(cudaHostUnregister(scratch.data()));
  const double release_s = step.lap();

  const double gb = double(bytes) / 1e9;
  const double trip_floor = both_ways_gbps > 0 ? gb / both_ways_gbps : 0;
  std::printf("\n## The GPUs alone (partition trip + rounds trip): %.1f GB of %s, %zu GPU(s), rounds of at most "
              "%llu keys per GPU; best of %d runs\n\n",
              gb, std::string(key_type_name(o.type)).c_str(), o.gpus.size(), (unsigned long long)round_keys, o.repeats);
  std::printf("| stage | seconds | GB/s | bound (same run) | bound s |\n|---|---|---|---|---|\n");
  std::printf("| partition trip (%llu chunks) | %.3f | %.2f | PCIe in and out at once, %.1f GB/s each way | %.3f |\n",
              (unsigned long long)best->chunks, best->partition_seconds, gb / best->partition_seconds, both_ways_gbps,
              trip_floor);
  std::printf("| rounds trip (%llu rounds) | %.3f | %.2f | the same | %.3f |\n", (unsigned long long)best->rounds,
              best->rounds_seconds, gb / best->rounds_seconds, trip_floor);
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
