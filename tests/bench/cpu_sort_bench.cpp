// Baselines for the CPU sort targets, measured in the same run as rmgsort itself:
//   cpu_sort_bench table LOG2_KEYS [REPEATS] [no-std]
//       for u32, u64 and f64 keys of several distributions: the radix sort (host/radix_sort.hpp),
//       the out-of-place one it replaced (legacy, the baseline), tbb::parallel_sort and std::sort
//       ("no-std": without std::sort) of the same keys in memory; prints a Markdown table of the
//       best of REPEATS runs and checks that all four agree
//   cpu_sort_bench scaling LOG2_KEYS [REPEATS] [FIRST_THREADS]
//       uniform u64 keys sorted by the radix sort and the legacy one, and a parallel copy of the
//       same bytes, on FIRST_THREADS (default 1), twice as many, ... threads up to every core (a
//       task_arena each): how each scales (a large sort on one thread takes minutes: start higher)
//   cpu_sort_bench file-baseline IN OUT TYPE
//       read IN with read(2), tbb::parallel_sort its keys of TYPE (u32, u64), write OUT with
//       write(2); prints the seconds it took
#include <fcntl.h>
#include <sys/stat.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "generate/generate.hpp"
#include "host/radix_sort.hpp"
#include "tests/bench/legacy_radix_sort.hpp"

using namespace rmgsort;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Parallel copy, so that refilling the input between runs is not timed and pages are touched.
template <class T>
void copy_keys(std::vector<T>& to, const std::vector<T>& from) {
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, from.size(), 1 << 20), [&](const auto& r) {
    std::memcpy(to.data() + r.begin(), from.data() + r.begin(), r.size() * sizeof(T));
  });
}

// The best of `repeats` runs of sort(keys), each on a fresh copy of `input`; leaves the sorted keys.
template <class T>
double best_of(int repeats, std::vector<T>& keys, const std::vector<T>& input, const std::function<void()>& sort) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    copy_keys(keys, input);
    const auto start = Clock::now();
    sort();
    best = std::min(best, since(start));
  }
  return best;
}

template <class T>
bool table_rows(const char* type_name, int log2_keys, int repeats, bool with_std_sort) {
  const std::size_t n = std::size_t{1} << log2_keys;
  std::vector<T> input(n), keys(n), scratch(n), legacy_sorted(n);
  for (const char* distribution : {"uniform", "zipf:1.0", "bits:4", "sorted", "reverse"}) {
    generate_keys(input.data(), 0, n, n, parse_distribution(distribution), 1);
    copy_keys(scratch, input);  // touch the legacy sort's buffer, as rmgsort's buffers are touched by reading
    const double legacy = best_of<T>(repeats, legacy_sorted, input, [&] {
      legacy::radix_sort(legacy_sorted.data(), n, SortOrder::ascending, scratch.data());
    });
    const double ours = best_of<T>(repeats, keys, input, [&] { radix_sort(keys.data(), n, SortOrder::ascending); });
    bool agree = std::memcmp(keys.data(), legacy_sorted.data(), n * sizeof(T)) == 0;
    const double tbb_s = best_of<T>(repeats, keys, input, [&] { tbb::parallel_sort(keys.begin(), keys.end()); });
    agree = agree && std::memcmp(keys.data(), legacy_sorted.data(), n * sizeof(T)) == 0;
    double std_s = 0;
    if (with_std_sort) {
      std_s = best_of<T>(1, keys, input, [&] { std::sort(keys.begin(), keys.end()); });
      agree = agree && std::memcmp(keys.data(), legacy_sorted.data(), n * sizeof(T)) == 0;
    }
    const auto rate = [&](double s) { return double(n) / s / 1e6; };
    std::printf("| %-4s | %-9s | %8.1f | %8.1f | %8.1f | %8.1f | %6.2fx | %6.2fx |\n", type_name, distribution,
                rate(legacy), rate(ours), rate(tbb_s), with_std_sort ? rate(std_s) : 0.0, legacy / ours, tbb_s / ours);
    std::fflush(stdout);
    if (!agree) {
      std::fprintf(stderr, "cpu_sort_bench: the sorts disagree on %s %s keys\n", type_name, distribution);
      return false;
    }
  }
  return true;
}

int table(int log2_keys, int repeats, bool with_std_sort) {
  std::printf("2^%d keys, %d threads, best of %d runs (std::sort: of 1); M keys/s; speedups of the radix sort\n\n",
              log2_keys, tbb::this_task_arena::max_concurrency(), repeats);
  std::printf("| type | keys      | legacy   | radix    | tbb par. | std::sort | vs legacy | vs tbb |\n");
  std::printf("|------|-----------|----------|----------|----------|----------|---------|---------|\n");
  const bool ok = table_rows<std::uint32_t>("u32", log2_keys, repeats, with_std_sort) &&
                  table_rows<std::uint64_t>("u64", log2_keys, repeats, with_std_sort) &&
                  table_rows<double>("f64", log2_keys, repeats, with_std_sort);
  return ok ? 0 : 1;
}

// Best of `repeats` parallel copies of `from` into `to` (touched before), in seconds.
template <class T>
double copy_seconds(int repeats, std::vector<T>& to, const std::vector<T>& from) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    copy_keys(to, from);
    best = std::min(best, since(start));
  }
  return best;
}

int scaling(int log2_keys, int repeats, int first_threads) {
  using T = std::uint64_t;
  const std::size_t n = std::size_t{1} << log2_keys;
  std::vector<T> input(n), keys(n), scratch(n), legacy_sorted(n);
  generate_keys(input.data(), 0, n, n, parse_distribution("uniform"), 1);
  copy_keys(scratch, input);
  const int most = tbb::this_task_arena::max_concurrency();
  std::printf("2^%d uniform u64 keys, best of %d runs; radix and legacy in M keys/s, copy in GB/s (of the keys)\n\n",
              log2_keys, repeats);
  std::printf("| threads | radix | per thread | legacy | per thread | copy GB/s | radix / copy time |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (int threads = std::clamp(first_threads, 1, most);; threads = std::min(threads * 2, most)) {
    const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, std::size_t(threads));
    tbb::task_arena arena(threads);
    double ours = 0, legacy_s = 0, copy_s = 0;
    arena.execute([&] {
      copy_s = copy_seconds<T>(repeats, keys, input);
      legacy_s = best_of<T>(repeats, legacy_sorted, input, [&] {
        legacy::radix_sort(legacy_sorted.data(), n, SortOrder::ascending, scratch.data());
      });
      ours = best_of<T>(repeats, keys, input, [&] { radix_sort(keys.data(), n, SortOrder::ascending); });
    });
    if (std::memcmp(keys.data(), legacy_sorted.data(), n * sizeof(T)) != 0) {
      std::fprintf(stderr, "cpu_sort_bench: the sorts disagree on %d threads\n", threads);
      return 1;
    }
    const double rate = double(n) / ours / 1e6, legacy_rate = double(n) / legacy_s / 1e6;
    std::printf("| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f |\n", threads, rate, rate / threads, legacy_rate,
                legacy_rate / threads, double(n * sizeof(T)) / copy_s / 1e9, ours / copy_s);
    std::fflush(stdout);
    if (threads == most) return 0;
  }
}

void must(bool ok, const char* what, const char* path) {
  if (!ok) {
    std::fprintf(stderr, "cpu_sort_bench: %s %s: %s\n", what, path, std::strerror(errno));
    std::exit(2);
  }
}

template <class T>
int file_baseline(const char* in_path, const char* out_path) {
  const auto start = Clock::now();
  const int in = open(in_path, O_RDONLY);
  must(in >= 0, "cannot open", in_path);
  struct stat st {};
  must(fstat(in, &st) == 0, "cannot stat", in_path);
  std::vector<T> keys(std::size_t(st.st_size) / sizeof(T));
  auto* bytes = reinterpret_cast<char*>(keys.data());
  for (std::size_t done = 0, total = keys.size() * sizeof(T); done < total;) {
    const ssize_t got = read(in, bytes + done, std::min<std::size_t>(total - done, 1 << 24));
    must(got > 0, "cannot read", in_path);
    done += std::size_t(got);
  }
  close(in);
  tbb::parallel_sort(keys.begin(), keys.end());
  const int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  must(out >= 0, "cannot create", out_path);
  for (std::size_t done = 0, total = keys.size() * sizeof(T); done < total;) {
    const ssize_t put = write(out, bytes + done, std::min<std::size_t>(total - done, 1 << 24));
    must(put > 0, "cannot write", out_path);
    done += std::size_t(put);
  }
  close(out);
  std::printf("read_parallel_sort_write_s=%.3f\n", since(start));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (argc >= 3 && mode == "table")
    return table(std::atoi(argv[2]), argc > 3 ? std::atoi(argv[3]) : 1, !(argc > 4 && std::string(argv[4]) == "no-std"));
  if (argc >= 3 && mode == "scaling")
    return scaling(std::atoi(argv[2]), argc > 3 ? std::atoi(argv[3]) : 2, argc > 4 ? std::atoi(argv[4]) : 1);
  if (argc == 5 && mode == "file-baseline" && std::string(argv[4]) == "u32")
    return file_baseline<std::uint32_t>(argv[2], argv[3]);
  if (argc == 5 && mode == "file-baseline" && std::string(argv[4]) == "u64")
    return file_baseline<std::uint64_t>(argv[2], argv[3]);
  std::fprintf(stderr, "usage: cpu_sort_bench table LOG2_KEYS [REPEATS] [no-std] | scaling LOG2_KEYS [REPEATS] [FIRST_THREADS] | file-baseline IN OUT u32|u64\n");
  return 2;
}
