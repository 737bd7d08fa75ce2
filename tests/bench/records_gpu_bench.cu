// records_gpu_bench: sorting records of (u64 key, u64 payload) host memory to host memory, rmgsort's
// GPU engine (the records carried as pairs through the in-core RMG sort, core/record_pair.hpp,
// sorted in place) against the single-GPU
// baseline of the records issue, in one run (driven by scripts/bench_records_gpu.sh; nothing here is
// a test). Generates N records (uniform random keys, payload = the record's index) in host memory.
//   baseline  on GPU 0: pinned copy of the records in, split into keys and payloads, stable
//             cub::DeviceRadixSort::SortPairs of every key bit, joined again, copy out; buffers and
//             temporary storage allocated beforehand; wall clock.
//   rmgsort   for every GPU count g of --gpus (devices 0..g-1): the engine of `rmgsort sort
//             --record-size 16` (sort/gpu_engine.hpp), allocated and its buffer page-locked
//             beforehand (as the baseline's), its sort() timed; the records it sorts in place are
//             copied from the generated ones before each run, untimed.
// Each is the median of R runs after one warm-up. Both outputs must be the same bytes (both sorts are
// stable, and the payloads are distinct), or the run fails.
//
//   records_gpu_bench [--count N] [--gpus 1,2] [--repeats R] [--seed S]
//
// N takes k, M, G (powers of 1000). Prints one "RESULT key=value ..." line per measurement.
#include <cuda_runtime_api.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include "core/error.hpp"
#include "core/record_layout.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_resources.hpp"
#include "gpu/in_core_sort.hpp"
#include "io/host_buffer.hpp"
#include "report/size_parse.hpp"
#include "sort/gpu_engine.hpp"

namespace rmgsort {
namespace {

using Clock = std::chrono::steady_clock;

struct Record {
  std::uint64_t key;
  std::uint64_t payload;
};

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__global__ void split_records(const Record* records, std::uint64_t n, std::uint64_t* keys, std::uint64_t* payloads) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x) {
    keys[i] = records[i].key;
    payloads[i] = records[i].payload;
  }
}

__global__ void join_records(const std::uint64_t* keys, const std::uint64_t* payloads, std::uint64_t n, Record* records) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x)
    records[i] = Record{keys[i], payloads[i]};
}

// The baseline on GPU 0: everything allocated once, sort() timed whole.
class PairsBaseline {
 public:
  explicit PairsBaseline(std::uint64_t n) : n_(n) {
    RMGSORT_CUDA_TRY(cudaSetDevice(0));
    records_ = DeviceBuffer(n * sizeof(Record), "baseline records");
    for (auto& b : keys_) b = DeviceBuffer(n * 8, "baseline keys");
    for (auto& b : payloads_) b = DeviceBuffer(n * 8, "baseline payloads");
    cub::DoubleBuffer<std::uint64_t> k(keys_[0].as<std::uint64_t>(), keys_[1].as<std::uint64_t>());
    cub::DoubleBuffer<std::uint64_t> v(payloads_[0].as<std::uint64_t>(), payloads_[1].as<std::uint64_t>());
    RMGSORT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, temporary_bytes_, k, v, n));
    temporary_ = DeviceBuffer(temporary_bytes_, "baseline temporary");
  }

  void sort(const Record* in, Record* out) {
    RMGSORT_CUDA_TRY(cudaSetDevice(0));
    RMGSORT_CUDA_TRY(cudaMemcpyAsync(records_.as(), in, n_ * sizeof(Record), cudaMemcpyHostToDevice, stream_.get()));
    split_records<<<1024, 256, 0, stream_.get()>>>(records_.as<Record>(), n_, keys_[0].as<std::uint64_t>(),
                                                   payloads_[0].as<std::uint64_t>());
    RMGSORT_CUDA_TRY(cudaGetLastError());
    cub::DoubleBuffer<std::uint64_t> k(keys_[0].as<std::uint64_t>(), keys_[1].as<std::uint64_t>());
    cub::DoubleBuffer<std::uint64_t> v(payloads_[0].as<std::uint64_t>(), payloads_[1].as<std::uint64_t>());
    std::size_t bytes = temporary_bytes_;
    RMGSORT_CUDA_TRY(cub::DeviceRadixSort::SortPairs(temporary_.as(), bytes, k, v, n_, 0, 64, stream_.get()));
    join_records<<<1024, 256, 0, stream_.get()>>>(k.Current(), v.Current(), n_, records_.as<Record>());
    RMGSORT_CUDA_TRY(cudaGetLastError());
    RMGSORT_CUDA_TRY(cudaMemcpyAsync(out, records_.as(), n_ * sizeof(Record), cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
  }

 private:
  std::uint64_t n_;
  DeviceBuffer records_;
  DeviceBuffer keys_[2], payloads_[2];
  DeviceBuffer temporary_;
  std::size_t temporary_bytes_ = 0;
  Stream stream_;
};

int run(int argc, char** argv) {
  std::uint64_t n = 1'000'000'000;
  std::vector<int> gpu_counts{1};
  int repeats = 3;
  std::uint64_t seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--count") n = parse_count(value(), "--count");
    else if (arg == "--repeats") repeats = std::stoi(value());
    else if (arg == "--seed") seed = std::stoull(value());
    else if (arg == "--gpus") {
      gpu_counts.clear();
      std::string list = value();
      for (std::size_t at = 0; at < list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        gpu_counts.push_back(std::stoi(list.substr(at, comma - at)));
        at = comma + 1;
      }
    } else throw Error("unknown argument " + arg);
  }
  HostBuffer input(n * sizeof(Record)), baseline_out(n * sizeof(Record));
  auto* records = input.as<Record>();
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, n, 1 << 16), [&](const auto& r) {
    for (std::uint64_t i = r.begin(); i < r.end(); ++i) records[i] = Record{mix(seed ^ mix(i)), i};
  });
  std::printf("records_gpu_bench: %llu records of (u64 key, u64 payload), %.2f GB\n", (unsigned long long)n,
              double(n) * 16 / 1e9);
  {
    PinnedRegistration pin_in(input.data(), input.capacity()), pin_out(baseline_out.data(), baseline_out.capacity());
    PairsBaseline baseline(n);
    std::vector<double> times;
    for (int r = 0; r <= repeats; ++r) {
      const auto start = Clock::now();
      baseline.sort(records, baseline_out.as<Record>());
      if (r > 0) times.push_back(seconds_since(start));
    }
    std::printf("RESULT what=baseline gpus=1 records=%llu seconds=%.4f\n", (unsigned long long)n, median(times));
  }
  const RecordLayout layout = RecordLayout::of(KeySpec{KeyType::u64, 8}, sizeof(Record), 0);
  for (int g : gpu_counts) {
    std::vector<int> gpus(static_cast<std::size_t>(g));
    for (int d = 0; d < g; ++d) gpus[std::size_t(d)] = d;
    std::string why_not;
    auto engine =
        gpu_engine_chooser(gpus, std::nullopt)(layout, PositionSource::none, n, RoundSorting::one_at_a_time, why_not);
    if (!engine) throw Error("no GPU engine: " + why_not);
    if (engine->round_keys() < n) {
      std::printf("RESULT what=rmgsort gpus=%d records=%llu seconds=nan note=more_than_one_round\n", g,
                  (unsigned long long)n);
      continue;
    }
    const auto allocating = Clock::now();
    engine->allocate(n);
    HostBuffer work(n * sizeof(Record));
    engine->place(work.data(), work.capacity());
    engine->pin(work.data(), work.capacity());
    const double allocate_seconds = seconds_since(allocating);
    std::vector<double> times;
    SortedRound sorted;
    for (int r = 0; r <= repeats; ++r) {
      tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, n, 1 << 20), [&](const auto& range) {
        std::memcpy(work.as<Record>() + range.begin(), records + range.begin(), range.size() * sizeof(Record));
      });
      const auto start = Clock::now();
      sorted = engine->sort(work.data(), n, SortOrder::ascending);
      if (r > 0) times.push_back(seconds_since(start));
    }
    const bool same = std::memcmp(sorted.records.data(), baseline_out.data(), n * sizeof(Record)) == 0;
    std::printf("RESULT what=rmgsort gpus=%d records=%llu seconds=%.4f allocate_seconds=%.3f same_as_baseline=%d\n", g,
                (unsigned long long)n, median(times), allocate_seconds, int(same));
    // Where the time went, summed over the warm-up and the timed runs.
    std::printf("engine stats (%d runs): %s\n", repeats + 1, engine->stats().dump().c_str());
    if (!same) return 1;
  }
  return 0;
}

}  // namespace
}  // namespace rmgsort

int main(int argc, char** argv) {
  try {
    return rmgsort::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "records_gpu_bench: %s\n", e.what());
    return 2;
  }
}
