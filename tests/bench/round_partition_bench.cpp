// round_partition_bench: partition_into_rounds against a parallel memcpy of the same bytes, measured
// in the same run (the target: partition throughput >= 0.6 of the copy's). Prints one
// markdown table row; scripts/bench_partition.sh prints the header and drives the cases.
//
//   --type T            u32 u64 i32 i64 f32 f64 (default u64)
//   --log2-keys N       2^N keys (default 28); or --count N
//   --dist D            any `rmgsort generate --dist` (default uniform)
//   --capacity-log2 N   round capacity 2^N keys (default 25); or --capacity N
//   --descending        partition in descending order
//   --repeats N         timed runs of each contender, alternating; the median is reported (default 5)
//   --threads N         oneTBB threads (default: every core)
//   --given-histogram   histogram while reading: the partition is given the keys' TopDigitHistogram,
//                       counted beforehand from 4 MiB byte ranges in parallel (as read_file's
//                       callbacks would add them), and skips its first pass; "add ms" is that count
//   --header            print the table header first
//
// The copy: tbb::parallel_for over 8 MiB blocks, each a memcpy into a destination touched
// beforehand (glibc streams blocks that large with non-temporal stores). partition_into_rounds
// writes into a touched buffer too, and its first run is checked (rounds ordered, within capacity,
// output a permutation of the input) before anything is timed.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "host/checksum.hpp"
#include "generate/generate.hpp"
#include "core/key_type.hpp"
#include "host/round_partition.hpp"
#include "host/top_digit_histogram.hpp"
#include "core/error.hpp"
#include "io/io_tuning.hpp"

using namespace rmgsort;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  KeyType type = KeyType::u64;
  std::uint64_t count = std::uint64_t{1} << 28;
  std::string dist = "uniform";
  std::uint64_t capacity = std::uint64_t{1} << 25;
  SortOrder order = SortOrder::ascending;
  int repeats = 5;
  int threads = 0;
  bool given_histogram = false;
  bool header = false;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: round_partition_bench [--type T] [--log2-keys N | --count N] [--dist D] "
               "[--capacity-log2 N | --capacity N] [--descending] [--repeats N] [--threads N] [--given-histogram] "
               "[--header]\n");
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (arg == "--type") {
      const auto type = parse_key_type(value());
      if (!type) usage();
      options.type = *type;
    } else if (arg == "--log2-keys") {
      options.count = std::uint64_t{1} << std::stoi(value());
    } else if (arg == "--count") {
      options.count = std::stoull(value());
    } else if (arg == "--dist") {
      options.dist = value();
    } else if (arg == "--capacity-log2") {
      options.capacity = std::uint64_t{1} << std::stoi(value());
    } else if (arg == "--capacity") {
      options.capacity = std::stoull(value());
    } else if (arg == "--descending") {
      options.order = SortOrder::descending;
    } else if (arg == "--repeats") {
      options.repeats = std::max(1, std::stoi(value()));
    } else if (arg == "--threads") {
      options.threads = std::stoi(value());
    } else if (arg == "--given-histogram") {
      options.given_histogram = true;
    } else if (arg == "--header") {
      options.header = true;
    } else {
      usage();
    }
  }
  return options;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

template <class T>
std::unique_ptr<T[]> touched_buffer(std::uint64_t count) {
  auto buffer = std::make_unique_for_overwrite<T[]>(count);
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, 1 << 20),
                    [&](const auto& r) { std::memset(buffer.get() + r.begin(), 0, r.size() * sizeof(T)); });
  return buffer;
}

void parallel_memcpy(void* to, const void* from, std::uint64_t bytes) {
  constexpr std::uint64_t kBlock = std::uint64_t{8} << 20;
  tbb::parallel_for(std::uint64_t{0}, (bytes + kBlock - 1) / kBlock, [&](std::uint64_t block) {
    const std::uint64_t begin = block * kBlock;
    std::memcpy(static_cast<char*>(to) + begin, static_cast<const char*>(from) + begin, std::min(kBlock, bytes - begin));
  });
}

// The rounds' order, capacity and the permutation (by checksum); exits 1 on a failure.
template <class T, SortOrder kOrder>
void check(const T* in, const T* out, std::uint64_t count, std::uint64_t capacity, const RoundPlan& plan) {
  using Order = KeyOrder<T, kOrder>;
  using Bits = typename Order::Bits;
  const auto fail = [](const char* what) {
    std::fprintf(stderr, "round_partition_bench: %s\n", what);
    std::exit(1);
  };
  if (plan.cuts.front() != 0 || plan.cuts.back() != count) fail("cuts do not cover the keys");
  std::vector<Bits> low(plan.rounds()), high(plan.rounds());
  tbb::parallel_for(std::size_t{0}, plan.rounds(), [&](std::size_t r) {
    if (plan.round_keys(r) == 0 || plan.round_keys(r) > capacity) fail("a round is empty or over capacity");
    low[r] = tbb::parallel_reduce(
        tbb::blocked_range<std::uint64_t>(plan.cuts[r], plan.cuts[r + 1], 1 << 16), std::numeric_limits<Bits>::max(),
        [&](const auto& k, Bits m) {
          for (auto i = k.begin(); i < k.end(); ++i) m = std::min(m, Order::encode(out[i]));
          return m;
        },
        [](Bits a, Bits b) { return std::min(a, b); });
    high[r] = tbb::parallel_reduce(
        tbb::blocked_range<std::uint64_t>(plan.cuts[r], plan.cuts[r + 1], 1 << 16), Bits(0),
        [&](const auto& k, Bits m) {
          for (auto i = k.begin(); i < k.end(); ++i) m = std::max(m, Order::encode(out[i]));
          return m;
        },
        [](Bits a, Bits b) { return std::max(a, b); });
  });
  for (std::size_t r = 0; r + 1 < plan.rounds(); ++r)
    if (high[r] > low[r + 1]) fail("rounds out of order");
  const auto bytes = count * sizeof(T);
  if (!(checksum_keys(reinterpret_cast<const std::byte*>(in), bytes, sizeof(T)) ==
        checksum_keys(reinterpret_cast<const std::byte*>(out), bytes, sizeof(T))))
    fail("the output is not a permutation of the input");
}

// The keys' histogram as read_file's callbacks would fill it: io_tuning::kBlockBytes ranges of
// bytes, added from the arena's threads in parallel.
template <class T>
std::unique_ptr<TopDigitHistogram> histogram_of(const T* keys, std::uint64_t n, SortOrder order) {
  auto histogram = std::make_unique<TopDigitHistogram>(KeyTypeOf<T>::value, order, n);
  const auto* bytes = reinterpret_cast<const std::byte*>(keys);
  const std::uint64_t total = n * sizeof(T), block = io_tuning::kBlockBytes;
  tbb::parallel_for(std::uint64_t{0}, (total + block - 1) / block, [&](std::uint64_t b) {
    histogram->add_bytes(b * block, bytes + b * block, std::min(block, total - b * block));
  });
  histogram->finish();
  return histogram;
}

template <class T>
int bench(const Options& options) {
  const std::uint64_t n = options.count;
  auto in = touched_buffer<T>(n);
  auto out = touched_buffer<T>(n);
  auto copy = touched_buffer<T>(n);
  generate_keys(in.get(), 0, n, n, parse_distribution(options.dist), 1);

  std::unique_ptr<TopDigitHistogram> histogram;
  if (options.given_histogram) histogram = histogram_of(in.get(), n, options.order);
  RoundPlan plan = partition_into_rounds(in.get(), out.get(), n, options.order, options.capacity, nullptr,
                                         histogram.get());
  if (options.order == SortOrder::ascending) {
    check<T, SortOrder::ascending>(in.get(), out.get(), n, options.capacity, plan);
  } else {
    check<T, SortOrder::descending>(in.get(), out.get(), n, options.capacity, plan);
  }

  std::vector<double> partition_ms, copy_ms, histogram_ms, plan_ms, scatter_ms, add_ms;
  RoundPartitionStats stats;
  for (int r = 0; r < options.repeats; ++r) {
    auto start = Clock::now();
    parallel_memcpy(copy.get(), in.get(), n * sizeof(T));
    copy_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (options.given_histogram) {
      histogram.reset();
      start = Clock::now();
      histogram = histogram_of(in.get(), n, options.order);
      add_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    start = Clock::now();
    plan = partition_into_rounds(in.get(), out.get(), n, options.order, options.capacity, &stats, histogram.get());
    partition_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    histogram_ms.push_back(stats.histogram_ms);
    plan_ms.push_back(stats.plan_ms);
    scatter_ms.push_back(stats.scatter_ms);
  }

  if (options.header) {
    std::printf("| %-4s | %-12s | %-10s | %-8s | %-5s | %-5s | %6s | %9s | %7s | %8s | %9s | %9s | %5s | %6s | %3s |\n",
                "type", "keys", "dist", "capacity", "order", "hist", "rounds", "memcpy ms", "part ms", "part/cpy",
                "part GB/s", "hist/plan/scat ms", "refin", "add ms", "thr");
    std::printf("|------|--------------|------------|----------|-------|-------|-------:|----------:|--------:|---------:|"
                "----------:|----------:|------:|-------:|----:|\n");
  }
  const double copy_median = median(copy_ms), partition_median = median(partition_ms);
  char phases[64], added[32] = "-";
  std::snprintf(phases, sizeof phases, "%.0f/%.0f/%.0f", median(histogram_ms), median(plan_ms), median(scatter_ms));
  if (!add_ms.empty()) std::snprintf(added, sizeof added, "%.1f", median(add_ms));
  std::printf("| %-4s | %12llu | %-10s | %8llu | %-5s | %-5s | %6zu | %9.1f | %7.1f | %8.2f | %9.2f | %9s | %5d | %6s | %3d |\n",
              std::string(key_type_name(options.type)).c_str(), static_cast<unsigned long long>(n),
              options.dist.c_str(), static_cast<unsigned long long>(options.capacity),
              options.order == SortOrder::ascending ? "asc" : "desc", stats.top_digits_given ? "given" : "own",
              plan.rounds(), copy_median, partition_median, copy_median / partition_median,
              double(n * sizeof(T)) / partition_median / 1e6, phases, stats.refinement_passes, added,
              tbb::this_task_arena::max_concurrency());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  try {
    if (options.threads > 0) {
      tbb::task_arena arena(options.threads);
      return arena.execute([&] { return visit_key_type(options.type, [&](auto key) { return bench<decltype(key)>(options); }); });
    }
    return visit_key_type(options.type, [&](auto key) { return bench<decltype(key)>(options); });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "round_partition_bench: %s\n", e.what());
    return 2;
  }
}
