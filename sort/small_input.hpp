// Under --gpus all, an input small enough that the CPU sorts it before the GPUs would have started
// goes to the CPU, and the CUDA driver is never started for it: an ETL job sorting thousands of small
// files must not pay the GPUs' start-up per file. An explicit device list (--gpus 0,1) still forces
// the GPUs; --gpus none never uses them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace rmgsort {

// The input bytes below which the CPU sorts, per oneTBB thread. Measured with
// scripts/bench_small_inputs.sh (bench_results/2026-11-24-small-inputs-h100.md): one H100, 16
// threads, /dev/shm to /dev/shm, the whole process's wall time. The GPUs' run starts at 0.38 s
// whatever the size (CUDA's start-up; the sort of 1000 keys takes milliseconds), so the CPU wins
// small inputs by far: u64 keys, 8 MB: 0.035 s against 0.38 s. The two meet near 1 GB of u64 keys
// (512 MB: GPUs 0.76 s, CPU 0.59 s; 2 GB: 1.91 s, 2.43 s), near 2 GB of 16-byte records (1 GB:
// 0.99 s, 0.86 s; 4 GB: 3.01 s, 3.34 s) and above 6.4 GB of 100-byte records (4.27 s, 4.04 s).
// The threshold is the lowest of those crossovers, bare u64 keys' 1 GB over 16 threads, so that
// no layout goes to a CPU slower than the GPUs; it scales with the threads, which set the CPU's speed.
inline constexpr std::uint64_t kCpuFirstBytesPerThread = std::uint64_t{64} << 20;

// The most input bytes the CPU takes first with `threads` threads.
[[nodiscard]] constexpr std::uint64_t cpu_first_input_bytes(std::size_t threads) {
  return kCpuFirstBytesPerThread * std::max<std::size_t>(threads, 1);
}

}  // namespace rmgsort
