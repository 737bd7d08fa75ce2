// in_core_bench: the in-core sort against the issue's single-GPU baseline, in one run (driven by
// scripts/bench_in_core.sh; nothing here is a test). Generates N keys on the host (generate_keys),
// page-locks them (PinnedRegistration) and, for every GPU count g of --gpus (devices 0..g-1):
//   sorter    InCoreSorter::sort, host memory to host memory, wall clock: the median of R runs after
//             one warm-up. Planning and building the sorter (its allocations) are timed apart. The
//             phases of InCoreStats are printed for GPU 0 and as the maximum over the GPUs.
//   baseline  pinned copy to GPU 0, cub::DeviceRadixSort::SortKeys of every bit (DoubleBuffer and
//             temporary storage allocated beforehand), copy back; CUDA events, median of R after one
//             warm-up. Printed as not measured where GPU 0 lacks the memory.
//   copy floor every one of the g GPUs copying its share in, then out, all at once, with no sort
//             (bench_copy_floor); after each g's sorter, whose memory is free again by then.
// Every output, warm-up included, is checked: in order (find_disorder) and the input's checksum.
//
//   in_core_bench [--type u32|u64|i32|i64|f32|f64] [--count N] [--dist DIST] [--gpus 1,2,4] [--repeats R]
//                 [--seed S] [--descending] [--no-baseline] [--no-copy-floor]
//   in_core_bench --devices        "devices N", then "device ORDINAL FREE_BYTES TOTAL_BYTES NAME"
//
// N takes k, M, G, T (powers of 1000: 4G = 4e9). Besides readable lines, every measurement prints
// one "RESULT key=value ..." line for the script. Exit status: 0, 1 if an output was wrong, 2 on a
// usage or setup error.
#include <cuda_runtime_api.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include "gpu/cuda_check.hpp"
#include "gpu/devices.hpp"
#include "gpu/in_core_sort.hpp"
#include "host/checksum.hpp"
#include "generate/distribution.hpp"
#include "generate/generate.hpp"
#include "core/key_order.hpp"
#include "core/key_type.hpp"
#include "host/order_check.hpp"
#include "core/error.hpp"

namespace rmgsort {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Options {
  KeyType type = KeyType::u32;
  std::uint64_t count = 1'000'000'000;
  std::string dist_text = "uniform";
  Distribution dist;
  std::vector<int> gpu_counts = {1, 2, 4};
  int repeats = 5;
  std::uint64_t seed = 1;
  SortOrder order = SortOrder::ascending;
  bool baseline = true;
  bool copy_floor = true;
  bool list_devices = false;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "in_core_bench: %s\n"
               "usage: in_core_bench [--type u32|u64|i32|i64|f32|f64] [--count N] [--dist DIST] [--gpus 1,2,4] [--repeats R]\n"
               "                     [--seed S] [--descending] [--no-baseline]\n"
               "                     [--no-copy-floor]\n"
               "       in_core_bench --devices\n",
               why.c_str());
  std::exit(2);
}

// "4G", "2.5M", "1000", "4e9": k, M, G, T are powers of 1000.
std::uint64_t parse_count(std::string_view text) {
  const std::string copy(text);
  char* end = nullptr;
  double value = std::strtod(copy.c_str(), &end);
  const std::string_view suffix(end);
  if (suffix == "k") value *= 1e3;
  else if (suffix == "M") value *= 1e6;
  else if (suffix == "G") value *= 1e9;
  else if (suffix == "T") value *= 1e12;
  else if (!suffix.empty()) usage("--count '" + copy + "': expected a number with an optional k, M, G or T");
  if (end == copy.c_str() || !(value >= 1) || value > 1e15) usage("--count '" + copy + "': expected 1 or more keys");
  return std::uint64_t(std::llround(value));
}

std::vector<int> parse_gpu_counts(std::string_view text) {
  std::vector<int> counts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item(text.substr(start, comma - start));
    char* end = nullptr;
    const long g = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || g < 1 || g > 64) usage("--gpus '" + std::string(text) + "': expected GPU counts such as 1,2,4");
    counts.push_back(int(g));
    start = comma + 1;
  }
  return counts;
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    const auto value = [&]() -> std::string_view {
      if (i + 1 >= argc) usage(std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "--type") {
      const std::string_view name = value();
      const std::optional<KeyType> type = parse_key_type(name);
      if (!type) usage("--type '" + std::string(name) + "': expected u32, u64, i32, i64, f32 or f64");
      options.type = *type;
    } else if (arg == "--count") {
      options.count = parse_count(value());
    } else if (arg == "--dist") {
      options.dist_text = value();
    } else if (arg == "--gpus") {
      options.gpu_counts = parse_gpu_counts(value());
    } else if (arg == "--repeats") {
      options.repeats = std::atoi(std::string(value()).c_str());
      if (options.repeats < 1) usage("--repeats: expected 1 or more");
    } else if (arg == "--seed") {
      options.seed = std::strtoull(std::string(value()).c_str(), nullptr, 10);
    } else if (arg == "--descending") {
      options.order = SortOrder::descending;
    } else if (arg == "--no-baseline") {
      options.baseline = false;
    } else if (arg == "--no-copy-floor") {
      options.copy_floor = false;
    } else if (arg == "--devices") {
      options.list_devices = true;
    } else {
      usage("unknown argument '" + std::string(arg) + "'");
    }
  }
  try {
    options.dist = parse_distribution(options.dist_text);
    validate_distribution(options.dist, options.type);
  } catch (const Error& error) {
    usage(error.what());
  }
  return options;
}

// Parallel copy: restoring the input between runs is not timed, and must not take long either.
template <class T>
void copy_keys(T* to, const T* from, std::uint64_t n) {
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, n, std::uint64_t{1} << 22),
                    [&](const tbb::blocked_range<std::uint64_t>& r) {
                      std::memcpy(to + r.begin(), from + r.begin(), r.size() * sizeof(T));
                    });
}

// In order and a permutation of the input (by checksum); prints what is wrong.
template <class T>
bool output_ok(const T* keys, std::uint64_t n, SortOrder order, const KeyChecksum& input, const std::string& what) {
  bool ok = true;
  if (const auto at = find_disorder(keys, std::size_t(n), order)) {
    std::printf("FAILED: %s: key %zu of %llu is out of order\n", what.c_str(), *at, static_cast<unsigned long long>(n));
    ok = false;
  }
  const KeyChecksum output = checksum_keys(reinterpret_cast<const std::byte*>(keys), n * sizeof(T), sizeof(T));
  if (!(output == input)) {
    std::printf("FAILED: %s: checksum %s, the input's %s\n", what.c_str(), output.hex().c_str(), input.hex().c_str());
    ok = false;
  }
  return ok;
}

// The index of the median of `ms` (the lower one for an even count).
std::size_t median_index(const std::vector<double>& ms) {
  std::vector<std::size_t> order(ms.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ms[a] < ms[b]; });
  return order[(ms.size() - 1) / 2];
}

double gkeys_per_s(std::uint64_t n, double ms) { return double(n) / ms / 1e6; }

// ---------------------------------------------------------------------------------------------------
// InCoreSorter

struct Phases {
  double copy_in = 0, histogram = 0, exchange = 0, scatter = 0, swap = 0, sort_and_copy_back = 0;
  double first_copy_back = 0;  // from the swap's start to the end of the first bucket's copy back
  // All partitioning passes on the critical path: for one GPU, its histograms and scatters plus
  // its waits between them; over GPUs (max_phases), the slowest GPU's kernels plus, per pass, the
  // shortest wait, which is the exchange itself (the GPU that finished its histogram last waits
  // only for the host planner; the others' waits include its lateness, e.g. a later copy in).
  double partition = 0;
};

Phases phases_of(const InCoreStats::Gpu& gpu) {
  Phases p;
  p.copy_in = gpu.copy_in_ms;
  p.histogram = std::accumulate(gpu.histogram_ms.begin(), gpu.histogram_ms.end(), 0.0);
  p.exchange = std::accumulate(gpu.exchange_ms.begin(), gpu.exchange_ms.end(), 0.0);
  p.scatter = std::accumulate(gpu.scatter_ms.begin(), gpu.scatter_ms.end(), 0.0);
  p.swap = gpu.swap_ms;
  p.sort_and_copy_back = gpu.sort_and_copy_back_ms;
  p.first_copy_back = gpu.first_copy_back_ms;
  p.partition = p.histogram + p.exchange + p.scatter;
  return p;
}

Phases max_phases(const InCoreStats& stats) {
  Phases most;
  for (const InCoreStats::Gpu& gpu : stats.gpus) {
    const Phases p = phases_of(gpu);
    most.copy_in = std::max(most.copy_in, p.copy_in);
    most.histogram = std::max(most.histogram, p.histogram);
    most.scatter = std::max(most.scatter, p.scatter);
    most.swap = std::max(most.swap, p.swap);
    most.sort_and_copy_back = std::max(most.sort_and_copy_back, p.sort_and_copy_back);
    most.first_copy_back = std::max(most.first_copy_back, p.first_copy_back);
    most.exchange = std::max(most.exchange, p.exchange);
  }
  double kernels = 0;
  for (const InCoreStats::Gpu& gpu : stats.gpus) {
    const Phases p = phases_of(gpu);
    kernels = std::max(kernels, p.histogram + p.scatter);
  }
  double exchange = 0;
  for (std::size_t pass = 0; pass < std::size_t(stats.passes); ++pass) {
    double shortest = -1;
    for (const InCoreStats::Gpu& gpu : stats.gpus)
      if (pass < gpu.exchange_ms.size() && (shortest < 0 || gpu.exchange_ms[pass] < shortest)) shortest = gpu.exchange_ms[pass];
    exchange += std::max(shortest, 0.0);
  }
  most.partition = kernels + exchange;
  return most;
}

std::string phase_fields(const Phases& p, const char* suffix) {
  char text[512];
  std::snprintf(text, sizeof text,
                " copy_in_ms_%s=%.3f histogram_ms_%s=%.3f exchange_ms_%s=%.3f scatter_ms_%s=%.3f swap_ms_%s=%.3f"
                " sort_copy_back_ms_%s=%.3f partition_ms_%s=%.3f first_copy_back_ms_%s=%.3f",
                suffix, p.copy_in, suffix, p.histogram, suffix, p.exchange, suffix, p.scatter, suffix, p.swap, suffix,
                p.sort_and_copy_back, suffix, p.partition, suffix, p.first_copy_back);
  return text;
}

std::string result_prefix(const char* kind, const Options& o, int g) {
  return std::string("RESULT kind=") + kind + " type=" + std::string(key_type_name(o.type)) + " dist=" + o.dist_text +
         " keys=" + std::to_string(o.count) + " g=" + std::to_string(g) +
         " order=" + (o.order == SortOrder::ascending ? "ascending" : "descending");
}

std::vector<int> first_gpus(int g) {
  std::vector<int> gpus(static_cast<std::size_t>(g));
  std::iota(gpus.begin(), gpus.end(), 0);
  return gpus;
}

// The warm-up and the timed runs of one sorter; prints its lines. Returns false if an output was wrong.
template <class T>
bool measure_sorter(const Options& o, const T* original, T* work, const KeyChecksum& input, int g,
                    InCoreSorter& sorter, double plan_ms, double alloc_ms) {
  const std::uint64_t n = o.count;
  bool ok = true;
  std::vector<double> ms;
  std::vector<InCoreStats> stats;
  for (int run = 0; run <= o.repeats; ++run) {  // run 0: the warm-up
    copy_keys(work, original, n);
    const auto start = Clock::now();
    InCoreStats round = sorter.sort(reinterpret_cast<std::byte*>(work), n, o.order);
    const double elapsed = ms_since(start);
    ok &= output_ok(work, n, o.order, input, "g=" + std::to_string(g) + " run " + std::to_string(run));
    if (run == 0) {
      std::printf("g=%d: warm-up %.1f ms\n", g, elapsed);
      continue;
    }
    ms.push_back(elapsed);
    stats.push_back(std::move(round));
  }

  const std::size_t median = median_index(ms);
  const InCoreStats& s = stats[median];
  const Phases gpu0 = s.gpus.empty() ? Phases{} : phases_of(s.gpus[0]);
  const Phases most = max_phases(s);
  std::uint64_t received_max = 0;
  std::size_t bucket_sorts_max = 0;
  for (const auto& gpu : s.gpus) {
    received_max = std::max(received_max, gpu.keys_received);
    bucket_sorts_max = std::max(bucket_sorts_max, gpu.bucket_sorts);
  }
  std::printf("g=%d: sort %.1f ms (median of %d; min %.1f, max %.1f), %.3f G keys/s; plan %.1f ms, "
              "allocation %.1f ms\n",
              g, ms[median], o.repeats, *std::min_element(ms.begin(), ms.end()), *std::max_element(ms.begin(), ms.end()),
              gkeys_per_s(n, ms[median]), plan_ms, alloc_ms);
  std::printf("      median run: %d pass(es), %zu buckets, stats total %.1f ms, largest share %.4f of the keys, "
              "at most %zu bucket sorts per GPU, %zu pair(s) swapped through host memory\n",
              s.passes, s.buckets, s.total_ms, n ? double(received_max) / double(n) : 0.0, bucket_sorts_max,
              s.staged_pairs.size());
  std::printf("      %-14s %9s %9s %9s %9s %9s %14s %10s %11s\n", "phase ms", "copy_in", "histogram", "exchange",
              "scatter", "swap", "sort+copy_out", "partition", "first_back");
  for (const auto& [name, p] : {std::pair<const char*, Phases>{"GPU 0", gpu0}, {"max over GPUs", most}})
    std::printf("      %-14s %9.2f %9.2f %9.2f %9.2f %9.2f %14.2f %10.2f %11.2f\n", name, p.copy_in, p.histogram,
                p.exchange, p.scatter, p.swap, p.sort_and_copy_back, p.partition, p.first_copy_back);
  std::printf("%s status=%s median_ms=%.3f min_ms=%.3f max_ms=%.3f gkeys_per_s=%.4f plan_ms=%.1f alloc_ms=%.1f"
              " passes=%d buckets=%zu staged_pairs=%zu stats_total_ms=%.3f%s%s\n",
              result_prefix("sorter", o, g).c_str(), ok ? "ok" : "wrong_output", ms[median],
              *std::min_element(ms.begin(), ms.end()), *std::max_element(ms.begin(), ms.end()),
              gkeys_per_s(n, ms[median]), plan_ms, alloc_ms, s.passes, s.buckets, s.staged_pairs.size(), s.total_ms,
              phase_fields(gpu0, "gpu0").c_str(), phase_fields(most, "max").c_str());
  return ok;
}

// Returns false if an output was wrong or the sorter failed. A plan or sorter that does not fit is
// reported as not measured.
template <class T>
bool bench_sorter(const Options& o, const T* original, T* work, const KeyChecksum& input, int g) {
  const std::uint64_t n = o.count;
  auto start = Clock::now();
  std::unique_ptr<InCoreSorter> sorter;
  double plan_ms = 0;
  double alloc_ms = 0;
  try {
    const InCorePlan plan = plan_in_core_for(o.type, first_gpus(g), n, std::nullopt);
    plan_ms = ms_since(start);
    start = Clock::now();
    sorter = std::make_unique<InCoreSorter>(plan);
    alloc_ms = ms_since(start);
  } catch (const Error& error) {
    std::printf("g=%d: not measured: %s\n", g, error.what());
    std::printf("%s status=not_measured\n", result_prefix("sorter", o, g).c_str());
    return true;
  }
  try {
    return measure_sorter(o, original, work, input, g, *sorter, plan_ms, alloc_ms);
  } catch (const Error& error) {
    std::printf("FAILED: g=%d: %s\n", g, error.what());
    std::printf("%s status=error\n", result_prefix("sorter", o, g).c_str());
    return false;
  }
}

// ---------------------------------------------------------------------------------------------------
// The baseline: one GPU, CUB

// Device memory, streams and events released on every path; a failure to release is reported.
struct DeviceMemory {
  void* p = nullptr;
  ~DeviceMemory() {
    if (p != nullptr && cudaFree(p) != cudaSuccess) std::fprintf(stderr, "in_core_bench: cudaFree failed\n");
  }
};
struct Stream {
  cudaStream_t s = nullptr;
  ~Stream() {
    if (s != nullptr && cudaStreamDestroy(s) != cudaSuccess) std::fprintf(stderr, "in_core_bench: cudaStreamDestroy failed\n");
  }
};
struct Event {
  cudaEvent_t e = nullptr;
  ~Event() {
    if (e != nullptr && cudaEventDestroy(e) != cudaSuccess) std::fprintf(stderr, "in_core_bench: cudaEventDestroy failed\n");
  }
};

float event_ms(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  RMGSORT_CUDA_TRY(cudaEventElapsedTime(&ms, from, to));
  return ms;
}

// cub::DeviceRadixSort of every bit, with 32-bit offsets where the count allows them (CUB's fastest
// path: up to 4 294 967 295 keys, so 4e9 keys too), 64-bit offsets above.
template <class T>
cudaError_t cub_sort_keys(void* temp, std::size_t& temp_bytes, cub::DoubleBuffer<T>& keys, std::uint64_t n,
                          SortOrder order, cudaStream_t stream) {
  constexpr int kBits = 8 * sizeof(T);
  const auto sort = [&](auto count) {
    return order == SortOrder::ascending
               ? cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, count, 0, kBits, stream)
               : cub::DeviceRadixSort::SortKeysDescending(temp, temp_bytes, keys, count, 0, kBits, stream);
  };
  return n <= UINT32_MAX ? sort(std::uint32_t(n)) : sort(n);
}

// Returns false if an output was wrong.
template <class T>
bool bench_baseline(const Options& o, const T* original, T* work, const KeyChecksum& input) {
  const std::uint64_t n = o.count;
  const std::uint64_t bytes = n * sizeof(T);
  constexpr int kBits = 8 * sizeof(T);
  constexpr std::uint64_t kMargin = std::uint64_t{512} << 20;  // context, CUB's kernels, fragmentation
  RMGSORT_CUDA_TRY(cudaSetDevice(0));
  std::size_t temp_bytes = 0;
  cub::DoubleBuffer<T> probe(nullptr, nullptr);
  RMGSORT_CUDA_TRY(cub_sort_keys(nullptr, temp_bytes, probe, n, o.order, nullptr));
  std::size_t free_bytes = 0, total_bytes = 0;
  RMGSORT_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::uint64_t need = 2 * bytes + temp_bytes;
  if (need + kMargin > free_bytes) {
    std::printf("baseline: not measured: it needs %.2f GB on GPU 0 (keys, alternate buffer, %.2f GB of CUB "
                "temporary storage), %.2f GB of %.2f GB are free\n",
                need / 1e9, temp_bytes / 1e9, free_bytes / 1e9, total_bytes / 1e9);
    std::printf("%s status=not_measured need_bytes=%llu free_bytes=%llu\n", result_prefix("baseline", o, 1).c_str(),
                static_cast<unsigned long long>(need), static_cast<unsigned long long>(free_bytes));
    return true;
  }

  auto start = Clock::now();
  DeviceMemory keys, alternate, temp;
  RMGSORT_CUDA_TRY(cudaMalloc(&keys.p, bytes));
  RMGSORT_CUDA_TRY(cudaMalloc(&alternate.p, bytes));
  RMGSORT_CUDA_TRY(cudaMalloc(&temp.p, std::max<std::size_t>(temp_bytes, 1)));
  Stream stream;
  RMGSORT_CUDA_TRY(cudaStreamCreateWithFlags(&stream.s, cudaStreamNonBlocking));
  Event events[4];
  for (Event& event : events) RMGSORT_CUDA_TRY(cudaEventCreate(&event.e));
  RMGSORT_CUDA_TRY(cudaDeviceSynchronize());
  const double alloc_ms = ms_since(start);

  bool ok = true;
  std::vector<double> ms, wall, copy_in, sort, copy_out;
  for (int run = 0; run <= o.repeats; ++run) {  // run 0: the warm-up
    copy_keys(work, original, n);
    cub::DoubleBuffer<T> buffers(static_cast<T*>(keys.p), static_cast<T*>(alternate.p));
    start = Clock::now();
    RMGSORT_CUDA_TRY(cudaEventRecord(events[0].e, stream.s));
    RMGSORT_CUDA_TRY(cudaMemcpyAsync(buffers.Current(), work, bytes, cudaMemcpyHostToDevice, stream.s));
    RMGSORT_CUDA_TRY(cudaEventRecord(events[1].e, stream.s));
    RMGSORT_CUDA_TRY(cub_sort_keys(temp.p, temp_bytes, buffers, n, o.order, stream.s));
    RMGSORT_CUDA_TRY(cudaEventRecord(events[2].e, stream.s));
    RMGSORT_CUDA_TRY(cudaMemcpyAsync(work, buffers.Current(), bytes, cudaMemcpyDeviceToHost, stream.s));
    RMGSORT_CUDA_TRY(cudaEventRecord(events[3].e, stream.s));
    RMGSORT_CUDA_TRY(cudaStreamSynchronize(stream.s));
    const double wall_ms = ms_since(start);
    ok &= output_ok(work, n, o.order, input, "baseline run " + std::to_string(run));
    if (run == 0) {
      std::printf("baseline: warm-up %.1f ms\n", event_ms(events[0].e, events[3].e));
      continue;
    }
    ms.push_back(event_ms(events[0].e, events[3].e));
    wall.push_back(wall_ms);
    copy_in.push_back(event_ms(events[0].e, events[1].e));
    sort.push_back(event_ms(events[1].e, events[2].e));
    copy_out.push_back(event_ms(events[2].e, events[3].e));
  }
  const std::size_t median = median_index(ms);
  std::printf("baseline (GPU 0: pinned copy in, cub::DeviceRadixSort of all %d bits with %d-bit offsets, copy out): "
              "%.1f ms (median of %d; min %.1f, max %.1f; wall %.1f), %.3f G keys/s; allocation %.1f ms\n",
              kBits, n <= UINT32_MAX ? 32 : 64, ms[median], o.repeats, *std::min_element(ms.begin(), ms.end()),
              *std::max_element(ms.begin(), ms.end()), wall[median], gkeys_per_s(n, ms[median]), alloc_ms);
  std::printf("      median run: copy in %.2f ms (%.1f GB/s), sort %.2f ms (%.2f G keys/s), copy out %.2f ms (%.1f GB/s)\n",
              copy_in[median], bytes / copy_in[median] / 1e6, sort[median], gkeys_per_s(n, sort[median]),
              copy_out[median], bytes / copy_out[median] / 1e6);
  std::printf("%s status=%s median_ms=%.3f min_ms=%.3f max_ms=%.3f wall_ms=%.3f gkeys_per_s=%.4f alloc_ms=%.1f"
              " copy_in_ms=%.3f sort_ms=%.3f copy_out_ms=%.3f temp_bytes=%zu\n",
              result_prefix("baseline", o, 1).c_str(), ok ? "ok" : "wrong_output", ms[median],
              *std::min_element(ms.begin(), ms.end()), *std::max_element(ms.begin(), ms.end()), wall[median],
              gkeys_per_s(n, ms[median]), alloc_ms, copy_in[median], sort[median], copy_out[median], temp_bytes);
  return ok;
}

// ---------------------------------------------------------------------------------------------------
// The copy floor: what the sort cannot beat, host memory to host memory

// Every GPU of g copies its equal share of the page-locked keys in, all at once, then back out, all
// at once: the in-core sort moves each key in and out once and cannot copy a key back before every
// key is in, so in + out is its floor. `both`: in and out at once on every GPU (PCIe is full duplex;
// the rounds overlap the directions, a single in-core sort cannot). Wall clock, median of R after
// one warm-up, like the sorter.
template <class T>
void bench_copy_floor(const Options& o, T* work, int g) {
  std::vector<std::uint64_t> share(std::size_t(g), o.count / std::uint64_t(g));
  share[0] += o.count % std::uint64_t(g);
  const std::unique_ptr<DeviceMemory[]> buffers(new DeviceMemory[std::size_t(g)]);
  const std::unique_ptr<Stream[]> in(new Stream[std::size_t(g)]), out(new Stream[std::size_t(g)]);
  for (int i = 0; i < g; ++i) {
    const std::size_t gi = std::size_t(i);
    RMGSORT_CUDA_TRY(cudaSetDevice(i));
    DeviceMemory& buffer = buffers[gi];
    const std::uint64_t bytes = std::max<std::uint64_t>(share[gi] * sizeof(T), 1);
    RMGSORT_CUDA_TRY(cudaMalloc(&buffer.p, bytes));
    RMGSORT_CUDA_TRY(cudaStreamCreateWithFlags(&in[gi].s, cudaStreamNonBlocking));
    RMGSORT_CUDA_TRY(cudaStreamCreateWithFlags(&out[gi].s, cudaStreamNonBlocking));
  }
  // copies(to_device, to_host): every GPU's share in one or both directions; the wall time.
  const auto copies = [&](bool to_device, bool to_host) {
    const auto start = Clock::now();
    std::uint64_t first = 0;
    for (int i = 0; i < g; ++i) {
      const std::size_t gi = std::size_t(i);
      RMGSORT_CUDA_TRY(cudaSetDevice(i));
      const std::uint64_t bytes = share[gi] * sizeof(T);
      if (to_device)
        RMGSORT_CUDA_TRY(cudaMemcpyAsync(buffers[gi].p, work + first, bytes, cudaMemcpyHostToDevice, in[gi].s));
      if (to_host)  // (both at once: the bytes are garbage afterwards; every sort restores its input first)
        RMGSORT_CUDA_TRY(cudaMemcpyAsync(work + first, buffers[gi].p, bytes, cudaMemcpyDeviceToHost, out[gi].s));
      first += share[gi];
    }
    for (int i = 0; i < g; ++i) {
      RMGSORT_CUDA_TRY(cudaStreamSynchronize(in[std::size_t(i)].s));
      RMGSORT_CUDA_TRY(cudaStreamSynchronize(out[std::size_t(i)].s));
    }
    return ms_since(start);
  };
  std::vector<double> in_ms, out_ms, both_ms;
  for (int run = 0; run <= o.repeats; ++run) {  // run 0: the warm-up
    const double a = copies(true, false), b = copies(false, true), c = copies(true, true);
    if (run == 0) continue;
    in_ms.push_back(a);
    out_ms.push_back(b);
    both_ms.push_back(c);
  }
  const auto median = [](std::vector<double> v) { return v[median_index(v)]; };
  const double floor = median(in_ms) + median(out_ms);
  const double bytes = double(o.count) * sizeof(T);
  std::printf("g=%d: copy floor %.1f ms: in %.1f ms (%.1f GB/s), out %.1f ms (%.1f GB/s), both at once %.1f ms "
              "(medians of %d, all GPUs at once)\n",
              g, floor, median(in_ms), bytes / median(in_ms) / 1e6, median(out_ms), bytes / median(out_ms) / 1e6,
              median(both_ms), o.repeats);
  std::printf("%s status=ok floor_ms=%.3f in_ms=%.3f out_ms=%.3f both_ms=%.3f\n",
              result_prefix("copy_floor", o, g).c_str(), floor, median(in_ms), median(out_ms), median(both_ms));
}

// ---------------------------------------------------------------------------------------------------

template <class T>
int run(const Options& o) {
  const int present = cuda_device_count();
  if (present == 0) {
    std::fprintf(stderr, "in_core_bench: no CUDA device\n");
    return 2;
  }
  const std::uint64_t n = o.count;
  const std::uint64_t bytes = n * sizeof(T);
  std::printf("in_core_bench: %llu %s keys (%.2f GB), %s, %s; %d CUDA device(s), GPU 0 = %s; %ld host cores\n",
              static_cast<unsigned long long>(n), std::string(key_type_name(o.type)).c_str(), bytes / 1e9,
              o.dist_text.c_str(), o.order == SortOrder::ascending ? "ascending" : "descending", present,
              gpu_info(0).name.c_str(), sysconf(_SC_NPROCESSORS_ONLN));

  auto start = Clock::now();
  std::unique_ptr<T[]> original(new T[n]);
  generate_keys(original.get(), 0, n, n, o.dist, o.seed);
  const double generate_ms = ms_since(start);
  start = Clock::now();
  std::unique_ptr<T[]> work(new T[n]);
  copy_keys(work.get(), original.get(), n);  // touches every page before it is pinned
  const double copy_ms = ms_since(start);
  start = Clock::now();
  PinnedRegistration pinned(work.get(), bytes);
  const double pin_ms = ms_since(start);
  start = Clock::now();
  const KeyChecksum input = checksum_keys(reinterpret_cast<const std::byte*>(original.get()), bytes, sizeof(T));
  const double checksum_ms = ms_since(start);
  std::printf("host: generate %.0f ms, first copy %.0f ms, pin %.0f ms, checksum %.0f ms\n", generate_ms, copy_ms,
              pin_ms, checksum_ms);
  std::printf("RESULT kind=host type=%s dist=%s keys=%llu generate_ms=%.1f pin_ms=%.1f checksum_ms=%.1f\n",
              std::string(key_type_name(o.type)).c_str(), o.dist_text.c_str(), static_cast<unsigned long long>(n),
              generate_ms, pin_ms, checksum_ms);

  bool ok = true;
  for (int g : o.gpu_counts) {
    if (g > present) {
      std::printf("g=%d: skipped: %d CUDA device(s) present\n", g, present);
      std::printf("%s status=skipped present=%d\n", result_prefix("sorter", o, g).c_str(), present);
      continue;
    }
    ok &= bench_sorter(o, original.get(), work.get(), input, g);
    if (o.copy_floor) {
      try {
        bench_copy_floor(o, work.get(), g);
      } catch (const Error& error) {
        std::printf("g=%d: copy floor not measured: %s\n", g, error.what());
        std::printf("%s status=not_measured\n", result_prefix("copy_floor", o, g).c_str());
      }
    }
  }
  if (o.baseline) {
    try {
      ok &= bench_baseline(o, original.get(), work.get(), input);
    } catch (const Error& error) {
      std::printf("FAILED: baseline: %s\n", error.what());
      std::printf("%s status=error\n", result_prefix("baseline", o, 1).c_str());
      ok = false;
    }
  }
  if (!ok) std::printf("in_core_bench: some outputs were WRONG (see FAILED above)\n");
  return ok ? 0 : 1;
}

int list_devices() {
  const int present = cuda_device_count();
  std::printf("devices %d\n", present);
  for (int i = 0; i < present; ++i) {
    const GpuInfo info = gpu_info(i);
    std::printf("device %d %llu %llu %s\n", i, static_cast<unsigned long long>(info.free_memory),
                static_cast<unsigned long long>(info.total_memory), info.name.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace rmgsort

int main(int argc, char** argv) {
  using namespace rmgsort;
  const Options options = parse_options(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines reach a log as they are printed
  try {
    if (options.list_devices) return list_devices();
    return visit_key_type(options.type, [&]<class T>(T) { return run<T>(options); });
  } catch (const std::exception& error) {
    std::fprintf(stderr, "in_core_bench: %s\n", error.what());
    return 2;
  }
}
