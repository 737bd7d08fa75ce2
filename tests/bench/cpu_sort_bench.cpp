// Baselines for the CPU sort targets, measured in the same run as rmgsort itself:
//   cpu_sort_bench memory LOG2_KEYS [REPEATS]   radix_sort vs tbb::parallel_sort of the same uniform
//                                               u32 keys in memory; prints seconds and the ratio
//   cpu_sort_bench file-baseline IN OUT         read IN with read(2), tbb::parallel_sort its u32 keys,
//                                               write OUT with write(2); prints the seconds it took
#include <fcntl.h>
#include <sys/stat.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "generate/generate.hpp"
#include "host/radix_sort.hpp"

using namespace rmgsort;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Parallel copy, so that refilling the input between runs is not timed and pages are touched.
void copy_keys(std::vector<std::uint32_t>& to, const std::vector<std::uint32_t>& from) {
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, from.size(), 1 << 20), [&](const auto& r) {
    std::memcpy(to.data() + r.begin(), from.data() + r.begin(), r.size() * sizeof(std::uint32_t));
  });
}

int memory_benchmark(int log2_keys, int repeats) {
  const std::size_t n = std::size_t{1} << log2_keys;
  std::vector<std::uint32_t> input(n), keys(n), scratch(n), reference(n);
  generate_keys(input.data(), 0, n, n, parse_distribution("uniform"), 1);

  double tbb_best = 1e30, radix_best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    copy_keys(reference, input);
    auto start = Clock::now();
    tbb::parallel_sort(reference.begin(), reference.end());
    tbb_best = std::min(tbb_best, since(start));

    copy_keys(keys, input);
    copy_keys(scratch, input);  // touch the scratch pages, as rmgsort's buffers are touched by reading
    start = Clock::now();
    radix_sort(keys.data(), n, SortOrder::ascending, scratch.data());
    radix_best = std::min(radix_best, since(start));
    if (keys != reference) {
      std::fprintf(stderr, "cpu_sort_bench: radix_sort and tbb::parallel_sort disagree\n");
      return 1;
    }
  }
  std::printf("keys=2^%d threads=%d tbb_parallel_sort_s=%.3f radix_sort_s=%.3f speedup=%.2f radix_gkeys_per_s=%.3f\n",
              log2_keys, tbb::this_task_arena::max_concurrency(), tbb_best, radix_best, tbb_best / radix_best,
              double(n) / radix_best / 1e9);
  return 0;
}

void must(bool ok, const char* what, const char* path) {
  if (!ok) {
    std::fprintf(stderr, "cpu_sort_bench: %s %s: %s\n", what, path, std::strerror(errno));
    std::exit(2);
  }
}

int file_baseline(const char* in_path, const char* out_path) {
  const auto start = Clock::now();
  const int in = open(in_path, O_RDONLY);
  must(in >= 0, "cannot open", in_path);
  struct stat st {};
  must(fstat(in, &st) == 0, "cannot stat", in_path);
  std::vector<std::uint32_t> keys(std::size_t(st.st_size) / sizeof(std::uint32_t));
  auto* bytes = reinterpret_cast<char*>(keys.data());
  for (std::size_t done = 0, total = keys.size() * 4; done < total;) {
    const ssize_t got = read(in, bytes + done, std::min<std::size_t>(total - done, 1 << 24));
    must(got > 0, "cannot read", in_path);
    done += std::size_t(got);
  }
  close(in);
  tbb::parallel_sort(keys.begin(), keys.end());
  const int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  must(out >= 0, "cannot create", out_path);
  for (std::size_t done = 0, total = keys.size() * 4; done < total;) {
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
  if (argc >= 3 && std::string(argv[1]) == "memory") return memory_benchmark(std::atoi(argv[2]), argc > 3 ? std::atoi(argv[3]) : 1);
  if (argc == 4 && std::string(argv[1]) == "file-baseline") return file_baseline(argv[2], argv[3]);
  std::fprintf(stderr, "usage: cpu_sort_bench memory LOG2_KEYS [REPEATS] | file-baseline IN OUT\n");
  return 2;
}
