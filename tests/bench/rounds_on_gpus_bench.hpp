// rounds_bench --partition gpu: the rounds sorted on the GPUs alone (gpu/rounds_on_gpus.hpp), host
// memory to host memory, beside the PCIe rate of the same run (tests/bench/rounds_bench.cu says the rest).
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "core/record_layout.hpp"
#include "io/host_buffer.hpp"

namespace rmgsort {

// Copies `bytes` on every core, 64 MiB a task.
inline void parallel_copy(std::byte* to, const std::byte* from, std::uint64_t bytes) {
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, bytes, 64 << 20), [&](const auto& r) {
    std::memcpy(to + r.begin(), from + r.begin(), r.size());
  });
}

struct RoundsOnGpusBenchOptions {
  RecordLayout layout = RecordLayout::bare_key(KeyType::u64);
  std::uint64_t count = 0;  // records
  std::vector<int> gpus;
  std::optional<std::uint64_t> gpu_memory;  // per GPU; default: what the GPUs have free, less 10 %
  int repeats = 2;
};

// Sorts a fresh copy of `original` (the records) `repeats` times and once more checked (order and
// checksum), prints a markdown table of the best run and one RESULT line per run; `both_ways_gbps`
// is the GPUs' pinned copy rate each way with both directions at once (summed over the GPUs).
// Returns whether the checked run's output was right.
bool bench_rounds_on_gpus(const RoundsOnGpusBenchOptions& o, const HostBuffer& original, double both_ways_gbps);

}  // namespace rmgsort
