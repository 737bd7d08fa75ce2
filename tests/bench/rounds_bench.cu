// rounds_bench: keys larger than the GPUs' memory, host memory to host memory, through the rounds
// pipeline of `rmgsort sort` (sort/rounds_sort.hpp: the CPU partition into value-disjoint rounds,
// each round sorted by the GPU engine), timed without file I/O, beside the bounds measured in the
// same run (driven by scripts/bench_rounds.sh; nothing here is a test):
//   host copy  the keys copied from one populated host buffer to another on every core: the
//              partition reads and writes each byte once, as this copy does;
//   PCIe       every GPU's pinned copy of 1 GiB in, out, and both at once, all GPUs together: the
//              rounds move each byte in and out once, so their floor is the keys' bytes at these rates.
// The input is generated once; each run sorts a fresh copy of it (the copy untimed: the pipeline
// frees its input once partitioned, as `rmgsort sort` does). The last run also checks the output
// (--verify's order and checksum, round by round), outside the timed runs. Each way of sorting the
// rounds (--sorters) is measured in the same run: "1", one sorter with all of the GPUs' memory, a
// round at a time (the spill path's way, and the rounds path's before their sorts overlapped); "2",
// two sorters of half of it each, alternate rounds, one's copy back beside the other's copy in (what
// `rmgsort sort` does for bare keys in rounds); "both" (the default), 1 then 2, and their ratio.
//
// --partition gpu measures the rounds sorted on the GPUs alone instead (gpu/rounds_on_gpus.hpp: a
// partition trip and a rounds trip over PCIe, no CPU pass): --gpu-memory is then each GPU's budget,
// and the keys and the scratch are page-locked once, before the timed runs, as a caller sorting in
// memory it keeps would have them; the page-locking and its release are timed apart and shown added
// to the best run. --partition both measures the CPU partition's pipeline first, then the GPUs'.
//
//   rounds_bench [--type u64|u32|i32|i64|f32|f64] [--count N] [--gpus all|0,1] [--gpu-memory SIZE]
//                [--repeats R] [--dist DIST] [--seed S] [--sorters 1|2|both] [--partition cpu|gpu|both]
//                [--record-size BYTES]
// --record-size sorts records of BYTES with the --type key first and a payload after it (generate's
// records), on the GPUs alone (--partition gpu): the CPU partition's pipeline sorts bare keys.
//
// N takes k, M, G (powers of 1000). Prints a markdown table, then one "RESULT key=value ..." line
// per run. Exit status: 0, 1 if the output was wrong, 2 on a usage or setup error.
#include <cuda_runtime_api.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/record_layout.hpp"
#include "generate/distribution.hpp"
#include "generate/generate.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_resources.hpp"
#include "gpu/devices.hpp"
#include "gpu/gpu_selection.hpp"
#include "host/checksum.hpp"
#include "io/host_buffer.hpp"
#include "report/progress.hpp"
#include "report/size_parse.hpp"
#include "report/stopwatch.hpp"
#include "sort/gpu_engine.hpp"
#include "sort/rounds_sort.hpp"
#include "tests/bench/rounds_on_gpus_bench.hpp"

namespace rmgsort {
namespace {

struct Options {
  KeyType type = KeyType::u64;
  std::uint64_t count = 1'000'000'000;
  std::vector<int> gpus = {0};
  std::optional<std::uint64_t> gpu_memory;
  int repeats = 2;
  std::string dist = "uniform";
  std::uint64_t seed = 1;
  std::vector<RoundSorting> sortings = {RoundSorting::one_at_a_time, RoundSorting::overlapped};
  std::size_t record_size = 0;  // 0: bare keys
  bool cpu_partition = true;
  bool gpu_partition = false;
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--type") {
      const std::string name = value();
      const auto type = parse_key_type(name);
      if (!type) throw Error("--type " + name + ": not a number key type");
      o.type = *type;
    }
    else if (arg == "--count") o.count = parse_count(value(), "--count");
    else if (arg == "--gpus") o.gpus = resolve_gpus(parse_gpu_spec(value()), cuda_device_count());
    else if (arg == "--gpu-memory") o.gpu_memory = parse_size(value(), "--gpu-memory");
    else if (arg == "--repeats") o.repeats = std::max(1, std::stoi(value()));
    else if (arg == "--dist") o.dist = value();
    else if (arg == "--seed") o.seed = std::stoull(value());
    else if (arg == "--sorters") {
      const std::string v = value();
      if (v == "1") o.sortings = {RoundSorting::one_at_a_time};
      else if (v == "2") o.sortings = {RoundSorting::overlapped};
      else if (v == "both") o.sortings = {RoundSorting::one_at_a_time, RoundSorting::overlapped};
      else throw Error("--sorters " + v + ": 1, 2 or both");
    }
    else if (arg == "--record-size") o.record_size = std::stoull(value());
    else if (arg == "--partition") {
      const std::string v = value();
      if (v != "cpu" && v != "gpu" && v != "both") throw Error("--partition " + v + ": cpu, gpu or both");
      o.cpu_partition = v != "gpu";
      o.gpu_partition = v != "cpu";
    }
    else throw Error("unknown option " + arg);
  }
  return o;
}

// The host copy bound: GB/s of a copy of `bytes` between two populated buffers on every core.
double host_copy_gbps(const std::byte* from, std::uint64_t bytes) {
  HostBuffer to(bytes);
  populate_pages(to.data(), bytes, unsigned(tbb::this_task_arena::max_concurrency()));
  double best = 0;
  for (int run = 0; run < 2; ++run) {
    Stopwatch took;
    parallel_copy(to.data(), from, bytes);
    best = std::max(best, double(bytes) / took.lap() / 1e9);
  }
  return best;
}

// Every GPU's pinned copy rates, all GPUs at once (GB/s summed over the GPUs): in, out, and each
// direction's rate while both run at once.
struct PcieRates {
  double in = 0, out = 0, both = 0;
};

PcieRates pcie_rates(const std::vector<int>& gpus) {
  constexpr std::size_t kBytes = std::size_t(1) << 30;
  struct Gpu {
    DeviceBuffer device_in, device_out;
    PinnedHostBuffer host_in, host_out;
    Stream in, out;
  };
  std::vector<Gpu> state;
  state.reserve(gpus.size());
  for (const int gpu : gpus) {
    ScopedDevice scope(gpu);
    state.push_back(Gpu{DeviceBuffer(kBytes, "the copy in"), DeviceBuffer(kBytes, "the copy out"),
                        PinnedHostBuffer(kBytes), PinnedHostBuffer(kBytes), Stream(), Stream()});
  }
  const auto timed = [&](bool in, bool out) {
    double best = 1e30;
    for (int run = 0; run < 3; ++run) {
      Stopwatch took;
      for (std::size_t i = 0; i < gpus.size(); ++i) {
        ScopedDevice scope(gpus[i]);
        if (in)
          RMGSORT_CUDA_TRY(cudaMemcpyAsync(state[i].device_in.as(), state[i].host_in.as(), kBytes,
                                           cudaMemcpyHostToDevice, state[i].in.get()));
        if (out)
          RMGSORT_CUDA_TRY(cudaMemcpyAsync(state[i].host_out.as(), state[i].device_out.as(), kBytes,
                                           cudaMemcpyDeviceToHost, state[i].out.get()));
      }
      for (std::size_t i = 0; i < gpus.size(); ++i) {
        RMGSORT_CUDA_TRY(cudaStreamSynchronize(state[i].in.get()));
        RMGSORT_CUDA_TRY(cudaStreamSynchronize(state[i].out.get()));
      }
      best = std::min(best, took.lap());
    }
    return double(kBytes) * double(gpus.size()) / best / 1e9;
  };
  return {timed(true, false), timed(false, true), timed(true, true)};
}

struct Run {
  double wall = 0;
  SortOutcome outcome;
  Json engine;
};

// One run of the pipeline on a fresh copy of `original`; `verify` checks the output as it goes.
Run sort_once(SortEngine& engine, const HostBuffer& original, std::uint64_t bytes, const Options& o, bool verify,
              Progress& progress) {
  KeysInMemory keys;
  keys.keys = HostBuffer(bytes);
  keys.bytes = bytes;
  parallel_copy(keys.keys.data(), original.data(), bytes);
  if (verify) keys.checksum = checksum_keys(keys.keys.data(), bytes, key_width(o.type));
  SortRun run;
  run.verify = verify;
  run.progress = &progress;
  Run result;
  Stopwatch took;
  result.outcome = sort_in_memory_rounds(engine, keys, run);
  result.wall = took.lap();
  result.engine = engine.stats();
  return result;
}

double seconds_at(double bytes, double gbps) { return gbps > 0 ? bytes / gbps / 1e9 : 0; }

void print_table(const Options& o, const Run& r, std::uint64_t bytes, double host_gbps, const PcieRates& pcie) {
  const double gb = double(bytes) / 1e9;
  const RoundsReport& rounds = *r.outcome.rounds;
  // The engine's list holds every sort it made, earlier runs' too: this run's are the last ones.
  const Json& per_sort = r.engine["device_seconds_per_sort"];
  double device = 0;
  for (std::size_t i = per_sort.size() - rounds.round_keys.size(); i < per_sort.size(); ++i)
    device += per_sort[i].get<double>();
  const Json& locked = r.engine["host_page_locking"];
  const double lock_s = locked.is_null() ? 0 : locked["seconds"].get<double>();
  const double waited_s = locked.is_null() ? 0 : locked["waited_seconds"].get<double>();
  const double in_s = seconds_at(double(bytes), pcie.in), out_s = seconds_at(double(bytes), pcie.out);
  const double both_s = seconds_at(double(bytes), pcie.both);  // in and out at once
  std::printf("| stage | seconds | GB/s | bound (same run) | bound s |\n|---|---|---|---|---|\n");
  std::printf("| partition into %zu rounds (page-locking beside it) | %.3f | %.2f | host copy at %.1f GB/s | %.3f |\n",
              rounds.round_keys.size(), r.outcome.times.partition, gb / r.outcome.times.partition, host_gbps,
              seconds_at(double(bytes), host_gbps));
  const RoundPartitionStats& part = rounds.partition;
  std::printf("| of which counting, planning, scattering (ms) | %.0f, %.0f, %.0f | | | |\n", part.histogram_ms,
              part.plan_ms, part.scatter_ms);
  std::printf("| page-locking the rounds (own thread; waited after the partition) | %.3f (%.3f) | | | |\n", lock_s,
              waited_s);
  std::printf("| sort of every round (GPUs host to host) | %.3f | %.2f | copy in + out, unoverlapped | %.3f |\n",
              r.outcome.times.sort, gb / r.outcome.times.sort, in_s + out_s);
  std::printf("| of which the GPUs' own time (summed over the sorts, which overlap with 2 sorters) | %.3f | %.2f | "
              "in and out at once (%.1f GB/s each way) | %.3f |\n",
              device, gb / device, pcie.both, both_s);
  std::printf("| after the rounds (release) | %.3f | | | |\n", r.outcome.times.write);
  std::printf("| **wall, host memory to host memory** | %.3f | **%.2f** | partition + copies unoverlapped | %.3f |\n",
              r.wall, gb / r.wall, seconds_at(double(bytes), host_gbps) + in_s + out_s);
}

int run(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  if (o.gpus.empty()) throw Error("no GPU to sort on: the bench measures the GPUs' rounds");
  const std::size_t width = key_width(o.type);
  const RecordLayout layout = o.record_size == 0 ? RecordLayout::bare_key(o.type)
                                                 : RecordLayout::of({o.type, width}, o.record_size, 0);
  if (!layout.valid()) throw Error("--record-size " + std::to_string(o.record_size) + ": smaller than the key");
  if (!layout.is_bare_key() && o.cpu_partition) throw Error("records: give --partition gpu (the CPU partition's pipeline sorts bare keys)");
  const std::uint64_t bytes = o.count * layout.record_size;
  HostBuffer original(bytes);
  generate_records(original.data(), 0, o.count, o.count, layout, parse_distribution(o.dist), o.seed);
  const double host_gbps = host_copy_gbps(original.data(), bytes);
  const PcieRates pcie = pcie_rates(o.gpus);
  Progress progress(ProgressMode::never);
  std::vector<double> sort_seconds, walls;
  bool all_ok = true;
  for (const RoundSorting sorting : o.cpu_partition ? o.sortings : std::vector<RoundSorting>{}) {
    std::string why_not;
    std::unique_ptr<SortEngine> engine = gpu_engine_chooser(o.gpus, o.gpu_memory)(
        RecordLayout::bare_key(o.type), PositionSource::none, o.count, sorting, why_not);
    if (!engine) throw Error("no GPU engine: " + why_not);
    if (engine->round_keys() >= o.count) throw Error("one round holds every key: give a smaller --gpu-memory");
    std::vector<Run> runs;
    for (int i = 0; i < o.repeats; ++i) runs.push_back(sort_once(*engine, original, bytes, o, false, progress));
    const Run checked = sort_once(*engine, original, bytes, o, true, progress);
    const auto best =
        std::min_element(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.wall < b.wall; });
    const unsigned sorters = engine->concurrent_sorts();
    std::printf("\n## %u sorter%s: %.1f GB of %s (%s), %zu GPU(s), rounds of at most %llu keys; best of %d runs\n\n",
                sorters, sorters == 1 ? ", a round at a time" : "s, alternate rounds overlapped", double(bytes) / 1e9,
                std::string(key_type_name(o.type)).c_str(), o.dist.c_str(), o.gpus.size(),
                (unsigned long long)engine->round_keys(), o.repeats);
    print_table(o, *best, bytes, host_gbps, pcie);
    for (const Run& r : runs)
      std::printf("RESULT sorters=%u gb=%.2f gpus=%zu rounds=%zu wall=%.3f partition=%.3f sort=%.3f after=%.3f "
                  "gbps=%.2f\n",
                  sorters, double(bytes) / 1e9, o.gpus.size(), r.outcome.rounds->round_keys.size(), r.wall,
                  r.outcome.times.partition, r.outcome.times.sort, r.outcome.times.write,
                  double(bytes) / 1e9 / r.wall);
    const bool ok = checked.outcome.verify_failure.empty();
    std::printf("RESULT sorters=%u check=%s\n", sorters, ok ? "ok" : checked.outcome.verify_failure.c_str());
    all_ok = all_ok && ok;
    sort_seconds.push_back(best->outcome.times.sort);
    walls.push_back(best->wall);
  }
  if (o.gpu_partition) {
    const RoundsOnGpusBenchOptions gpu_options{layout, o.count, o.gpus, o.gpu_memory, o.repeats};
    all_ok = bench_rounds_on_gpus(gpu_options, original, pcie.both) && all_ok;
  }
  std::printf("RESULT floors host_copy_gbps=%.2f pcie_in_gbps=%.2f pcie_out_gbps=%.2f pcie_both_gbps=%.2f\n", host_gbps,
              pcie.in, pcie.out, pcie.both);
  if (sort_seconds.size() == 2)
    std::printf("\nTwo sorters against one, same run: sort of every round %.3f s -> %.3f s (%.2fx), wall %.3f s -> "
                "%.3f s (%.2fx).\n",
                sort_seconds[0], sort_seconds[1], sort_seconds[0] / sort_seconds[1], walls[0], walls[1],
                walls[0] / walls[1]);
  return all_ok ? 0 : 1;
}

}  // namespace
}  // namespace rmgsort

int main(int argc, char** argv) {
  try {
    return rmgsort::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rounds_bench: %s\n", e.what());
    return 2;
  }
}
