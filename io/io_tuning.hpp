// Every tuning constant of the io/ layer, with the measurement that chose it. Two machines, both
// Firecracker VMs with ext4 on a virtio disk that streams about 2 GB/s:
//   dev   a 2-core virtual machine (shared with other work, so its figures scatter by 2x);
//   h100  an NVIDIA H100 host, 16 cores, 125 GiB (2026-11-21, scripts/bench_io.sh and
//         read_bench sweeps over a 4 GiB file).
#pragma once

#include <cstddef>

namespace rmgsort::io_tuning {

// Bytes per io_uring request. Uncached O_DIRECT reads, h100, 1 thread, depth 16: 1 MiB 2.04, 4 MiB
// 2.02, 16 MiB 2.21 GB/s (all within the disk's noise); cached, 16 threads, prefaulted: 1 MiB 42.4,
// 4 MiB 47.2, 16 MiB 47.2 GB/s. 4 MiB is the smallest at full speed.
inline constexpr std::size_t kBlockBytes = std::size_t{4} << 20;

// Requests in flight per ring. Uncached O_DIRECT reads, h100, 1 thread: depth 2 1.70, 4 2.08, 8 2.17,
// 16 2.02, 32 2.04 GB/s (dd iflag=direct bs=4M: 1.85); dev: 4..32 all 2.3-2.7 GB/s. O_DIRECT writes,
// h100: depth 2..32 all 2.0-2.4 GB/s (dd oflag=direct: 1.83). 16 (64 MiB in flight) leaves room for a
// faster disk at no cost on these.
inline constexpr unsigned kQueueDepth = 16;

// Whole-file reads split the file across this many threads at most (one ring each). Cached 4 GiB into
// a prefaulted buffer, h100: 1 thread 7.4, 2 12.4, 4 19.8, 8 33.4, 16 47.2 GB/s (cat: 8.7); into a
// fresh buffer, whose pages the kernel zeroes on first touch: 3.7, 7.7, 12.8, 20.5, 27.1 GB/s. Past 16
// threads the 64-core machines' memory bandwidth limits (a 64-thread memcpy there: about 110 GB/s).
inline constexpr unsigned kMaxReadThreads = 16;

// A thread is worth starting for this much data: 64 MiB takes 13 ms at one thread's 5 GB/s, against
// about 0.1 ms to start a thread and set up its ring.
inline constexpr std::size_t kMinBytesPerReadThread = std::size_t{64} << 20;

// ChunkReader: chunks read ahead of the one the caller holds. Cached 4 GiB, h100, a consumer that
// XORs every word, 16 / 64 MiB chunks: 0 ahead 4.5 / 4.6 GB/s; 1 ahead 12.6 / 8.6, again 12.7 / 7.7
// and 9.4 / 6.4; 2 ahead 17.0 / 7.6, 10.6 / 7.6, 11.2 / 8.6; 3 ahead 11.5 / 7.2, 10.1 / 8.2 (cat:
// 7.6-8.7). Uncached, 64 MiB: 0, 1 and 2 ahead all 1.66-1.73, the disk's speed. One chunk ahead (double
// buffering) gets all there is; more only costs memory.
inline constexpr unsigned kChunksAhead = 1;

// Buffered writes in flight at once (ChunkWriter, write_file). They serialize on the file's inode
// lock, and several in flight only contend for it: 4 GiB to tmpfs, h100: 1 in flight 3.3 GB/s, 2 2.6,
// 16 2.4; dev, ext4 through kernel workers: 16 in flight 0.34-0.45 GB/s, 1 1.6-2.7 GB/s.
inline constexpr unsigned kBufferedWritesInFlight = 1;

// A stream's prefix starts in a buffer of this size; doubling from here costs a few mremaps for
// inputs of many GiB.
inline constexpr std::uint64_t kInitialStreamBytes = std::uint64_t{64} << 20;

// The most one read of a stream's prefix asks for, so that progress hears of a slow stream's bytes as
// they come: a pipe hands over at most its buffer (1 MiB: enlarge_pipe_buffer) a read() anyway.
inline constexpr std::size_t kReadStepBytes = std::size_t{1} << 20;

}  // namespace rmgsort::io_tuning
