// 5. The statistics of one sort: what every GPU is, and each phase's time from the events it
// recorded (all complete: the bucket sorts waited for them).
#include <algorithm>

#include "gpu/in_core_state.hpp"

namespace rmgsort {

InCoreStats InCoreSorter::Impl::empty_stats() const {
  const std::size_t g = gpus.size();
  InCoreStats stats;
  stats.gpus.resize(g);
  for (std::size_t i = 0; i < g; ++i) stats.gpus[i].device = gpus[i].device;
  stats.bytes_between.assign(g, std::vector<std::uint64_t>(g, 0));
  stats.staged_pairs = staged_pairs;
  return stats;
}

void InCoreSorter::Impl::record_times(const PartitionPlanner& planner, InCoreStats& stats) const {
  stats.passes = planner.passes_done();
  stats.buckets = planner.bucket_count();
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const GpuState& gpu = gpus[i];
    InCoreStats::Gpu& out = stats.gpus[i];
    out.device = gpu.device;
    out.copy_in_ms = gpu.copied_in.since(gpu.start);
    for (std::size_t pass = 0; pass < std::size_t(stats.passes); ++pass) {
      out.histogram_ms.push_back(gpu.histogram_done[pass].since(gpu.histogram_start[pass]));
      out.exchange_ms.push_back(gpu.scatter_start[pass].since(gpu.histogram_done[pass]));
      out.scatter_ms.push_back(gpu.scatter_done[pass].since(gpu.scatter_start[pass]));
    }
    out.swap_ms = gpu.swap_done.since(gpu.swap_start);
    out.sort_and_copy_back_ms = gpu.sorted.since(gpu.swap_done);
    out.first_copy_back_ms = gpu.first_copied_back.since(gpu.swap_start);
    stats.total_ms = std::max(stats.total_ms, double(gpu.sorted.since(gpu.start)));
  }
}

}  // namespace rmgsort
