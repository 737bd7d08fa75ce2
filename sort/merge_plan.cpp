#include "sort/merge_plan.hpp"

#include <dirent.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "sort/chunk_size.hpp"

namespace rmgsort {
namespace {

constexpr std::uint64_t kMinOutputBytes = std::uint64_t{64} << 10;
constexpr std::uint64_t kMaxOutputBytes = std::uint64_t{32} << 20;
// The smallest read of a source: below it the reads' system calls cost more than the merge.
constexpr std::uint64_t kMinChunkBytes = std::uint64_t{64} << 10;
constexpr std::uint64_t kMaxChunkBytes = std::uint64_t{16} << 20;
// A chunk is read 4 times over in memory: the reader's two buffers and the window's two chunks.
constexpr std::uint64_t kChunksPerSource = 4;
// Descriptors a regular input may take (the file, its O_DIRECT twin, its io_uring), and those kept
// for everything else (the outputs, their twins and rings, a pass's temporary file, the statistics).
constexpr std::size_t kFilesPerSource = 3;
constexpr std::size_t kOtherFiles = 64;

// The host memory left to the sources besides the two output buffers.
std::uint64_t memory_for_sources(const MergePlan& plan) {
  const std::uint64_t outputs = 2 * plan.output_buffer_bytes;
  return plan.host_memory > outputs ? plan.host_memory - outputs : 0;
}

}  // namespace

std::uint64_t merge_host_memory_least(std::size_t stride) {
  const std::uint64_t two_sources = 2 * kChunksPerSource * smallest_chunk(kMinChunkBytes, stride);
  // The output buffers grow with the limit (an eighth each), so the least is where what they leave
  // first holds two sources: f(h) = h - 2 * clamp(h / 8) never decreases, and reaches it within a
  // few bytes of 4/3 of the sources when the buffers are past their smallest.
  const auto fits = [&](std::uint64_t h) {
    return 2 * std::clamp(h / 8, kMinOutputBytes, kMaxOutputBytes) + two_sources <= h;
  };
  std::uint64_t least = 2 * kMinOutputBytes + two_sources;
  if (!fits(least)) {
    least = std::max(least, two_sources * 4 / 3);
    while (!fits(least)) ++least;
  }
  return least;
}

MergePlan plan_merge(std::uint64_t host_memory, std::size_t stride, std::size_t open_files, std::size_t fan_in_limit) {
  MergePlan plan;
  plan.host_memory = host_memory;
  plan.open_file_limit = open_files;
  plan.output_buffer_bytes = std::clamp(host_memory / 8, kMinOutputBytes, kMaxOutputBytes);
  const std::uint64_t for_sources = memory_for_sources(plan);
  const std::uint64_t least_per_source = kChunksPerSource * smallest_chunk(kMinChunkBytes, stride);
  plan.fan_in_by_memory = std::size_t(std::max<std::uint64_t>(2, for_sources / least_per_source));
  const std::size_t files_for_sources = open_files > kOtherFiles ? open_files - kOtherFiles : 0;
  plan.fan_in_by_open_files = std::max<std::size_t>(2, files_for_sources / kFilesPerSource);
  plan.fan_in = std::min(plan.fan_in_by_memory, plan.fan_in_by_open_files);
  if (fan_in_limit > 0) plan.fan_in = std::max<std::size_t>(2, std::min(plan.fan_in, fan_in_limit));
  return plan;
}

std::size_t merge_chunk_bytes(const MergePlan& plan, std::size_t sources, std::size_t stride) {
  const std::uint64_t per_source = memory_for_sources(plan) / std::max<std::size_t>(sources, 1);
  const std::uint64_t share = per_source / kChunksPerSource / kChunkAlignment * kChunkAlignment;
  return std::size_t(std::max(std::min(share, kMaxChunkBytes), smallest_chunk(kMinChunkBytes, stride)));
}

std::vector<std::size_t> merge_pass_groups(std::size_t sources, std::size_t fan_in) {
  RMGSORT_EXPECTS(fan_in >= 2, "a merge fan-in of at least 2");
  if (sources <= fan_in) return {sources};
  std::vector<std::size_t> groups;
  if ((sources + fan_in - 1) / fan_in > fan_in) {
    for (std::size_t left = sources; left > 0; left -= groups.back()) groups.push_back(std::min(left, fan_in));
    return groups;
  }
  // Each group of g sources makes one run: the count falls by g - 1, until it is the fan-in.
  std::size_t excess = sources - fan_in, grouped = 0;
  for (; excess >= fan_in - 1 && excess > 0; excess -= fan_in - 1, grouped += fan_in) groups.push_back(fan_in);
  if (excess > 0) {
    groups.push_back(excess + 1);
    grouped += excess + 1;
  }
  groups.insert(groups.end(), sources - grouped, 1);
  return groups;
}

std::size_t runs_held_at_most(const MergePlan& plan, std::size_t in_use) {
  // The run being written, the outputs (file, O_DIRECT twin, ring each, and --index-output's), the
  // statistics, a stream copied: 16 leaves room.
  constexpr std::size_t kMargin = 16;
  const std::size_t taken = in_use + kFilesPerSource * plan.fan_in + kMargin;
  return std::max<std::size_t>(2, plan.open_file_limit > taken ? plan.open_file_limit - taken : 0);
}

std::size_t runs_counter_arity(std::size_t runs, std::size_t room, std::size_t fan_in) {
  RMGSORT_EXPECTS(fan_in >= 2, "a merge fan-in of at least 2");
  if (runs <= room) return 0;
  for (std::size_t levels = 1;; ++levels) {
    // The least arity whose LEVELS levels take RUNS runs: arity^levels >= runs.
    const auto root = std::size_t(std::pow(double(runs), 1.0 / double(levels)));
    std::size_t arity = std::max<std::size_t>(2, root > 1 ? root - 1 : 2);
    const auto reaches = [&](std::size_t k) {
      std::uint64_t taken = 1;
      for (std::size_t l = 0; l < levels && taken < runs; ++l) taken *= k;
      return taken >= runs;
    };
    while (!reaches(arity)) ++arity;
    if (arity == 2 || (arity <= fan_in && (arity - 1) * levels <= room)) return arity;
  }
}

std::size_t open_descriptors(std::size_t fallback) {
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return fallback;
  std::size_t entries = 0;
  while (const dirent* entry = ::readdir(dir))
    if (entry->d_name[0] != '.') ++entries;
  ::closedir(dir);
  return entries > 0 ? entries - 1 : fallback;  // less the listing's own descriptor
}

std::size_t raise_open_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  // RLIM_INFINITY is the largest value: any count of inputs fits then.
  return std::size_t(std::min<rlim_t>(limit.rlim_cur, rlim_t{1} << 30));
}

Json MergePlan::json() const {
  return {
      {"fan_in", std::uint64_t(fan_in)},
      {"fan_in_by_memory", std::uint64_t(fan_in_by_memory)},
      {"fan_in_by_open_files", std::uint64_t(fan_in_by_open_files)},
      {"open_file_limit", std::uint64_t(open_file_limit)},
      {"runs_held_at_most", std::uint64_t(runs_held)},
      {"output_buffer_bytes", output_buffer_bytes},
      {"host_memory_limit_bytes", host_memory},
  };
}

}  // namespace rmgsort
