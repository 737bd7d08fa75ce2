// Writing an in-memory sort's output while the sort still runs. The write to a memory file system is
// bound by the kernel (2^30 u64 keys, /dev/shm on a 16-thread host: a 2.5 s write after a 2.5 s
// sort), so it is hidden behind the sort: the engine tells the prefix of the records that is final
// (SortEngine::hand_prefixes_to), and a thread of this writer's own writes it, piece by piece, while
// the sort goes on with the rest; on a memory file system, while nothing is final, it allocates the
// output's pages ahead. Whatever the sort had not finished when it returns is written then, on every
// core.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "core/record_layout.hpp"
#include "io/uring_writer.hpp"
#include "sort/sort_run.hpp"
#include "sort/unique_filter.hpp"

namespace rmgsort {

namespace prefix_writer_config {
// While the sort runs, a piece is written once this much more is final (the last piece: whatever
// is left), so that a write is never a small one; and at most this much at a time, so that the
// write of the rest, in one piece on every core, starts soon after the sort ends. The first pass's
// buckets of 2^30 u64 keys are 32 MiB each.
inline constexpr std::uint64_t kMinPieceBytes = std::uint64_t{8} << 20;
inline constexpr std::uint64_t kMaxPieceBytes = std::uint64_t{256} << 20;
// Pieces end on multiples of this (but the last), so that direct writes stay aligned.
inline constexpr std::uint64_t kPieceAlignment = std::uint64_t{1} << 20;
// Threads that copy into a memory file system's mapping while the sort runs (io/detail/mapped_output.hpp):
// one for every kCoresPerMappedThread of the sort's threads (at least one), so that the sort keeps most
// cores; every core for what is left after it. Measured on a 16-thread host, 2^30 u64 keys /dev/shm to
// /dev/shm, three turns each in one run (bench_results/2026-11-24-cpu-write-while-sorting-h100host.md):
// 1 in 8 (2 threads) 4.89-4.94 s end to end, 2.3-2.8 GiB written while sorting; 1 in 4 (4 threads)
// 4.47-4.60 s, 3.5-3.8 GiB; 1 in 2 (8 threads) 4.21-4.68 s, 3.8-4.0 GiB, the sort slower by up to
// 0.2 s. On 2 cores the writer's one thread takes a core from the sort (the write hidden, the sort as
// much slower: bench_results/2026-11-24-cpu-write-while-sorting-2core.md).
inline constexpr unsigned kCoresPerMappedThread = 4;
// On a memory file system, while nothing is final to write (the sort's first pass), the writer
// populates the output's pages ahead, this much a thread at a time (io/detail/mapped_output.cpp's
// piece), so that their write later only copies: 2 GiB from one thread, 2-core machine, populated
// in 0.84 s, then written in 0.44 s, against 1.01 s to write fresh pages.
inline constexpr std::uint64_t kPopulateBytesPerThread = std::uint64_t{64} << 20;
}  // namespace prefix_writer_config

class SortedPrefixWriter {
 public:
  // Writes RECORDS[0, BYTES) (records of LAYOUT, sorted in place as the sink is told) to
  // run.output_fd, named run.output_name in errors; with run.unique, only the first record of each
  // run of equal keys (moved to the front of its piece, which the sort no longer touches).
  SortedPrefixWriter(const SortRun& run, const RecordLayout& layout, std::byte* records, std::uint64_t bytes);
  // Stops the writer thread after its current piece, when finish() was not reached (an error).
  ~SortedPrefixWriter();
  SortedPrefixWriter(const SortedPrefixWriter&) = delete;
  SortedPrefixWriter& operator=(const SortedPrefixWriter&) = delete;

  // The engine's SortedPrefixSink: records [0, RECORDS) are final. Only wakes the writer thread.
  void sorted(std::uint64_t records);

  // The sort has returned, every record is final: writes what is left on every core and waits for
  // the whole output. Throws the write's rmgsort::Error (e.g. "out.bin: write failed: No space
  // left on device"), which stops the writer at the failing piece.
  void finish();

  // The threads the sort may run on: the current arena's, within --threads (the global limit).
  [[nodiscard]] static unsigned sort_threads();
  // The threads that write into a memory file system's mapping while the sort runs (elsewhere the
  // writes go through io_uring, from the writer's one thread).
  [[nodiscard]] static unsigned threads_while_sorting();
  // Bytes of the output written before finish() was called: what the sort hid.
  [[nodiscard]] std::uint64_t written_while_sorting() const { return written_while_sorting_; }
  // Records --unique left out.
  [[nodiscard]] std::uint64_t duplicates_dropped() const { return unique_ ? unique_->dropped() : 0; }

 private:
  void run_writes();  // the writer thread
  // The end of the next piece to write from written_, or written_ when none is due yet.
  [[nodiscard]] std::uint64_t piece_end() const;
  // Whether pages ahead are to be populated (a memory file system, while the sort runs).
  [[nodiscard]] bool populate_due() const;
  void write(std::uint64_t begin, std::uint64_t end);

  std::byte* records_;
  std::uint64_t bytes_;
  std::size_t record_size_;
  ChunkWriter writer_;
  std::optional<UniqueFilter> unique_;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::uint64_t final_ = 0;    // bytes final (sorted())
  std::uint64_t written_ = 0;  // bytes handed to writer_ (the writer thread's, read under the mutex)
  std::uint64_t populated_ = 0;  // the output's pages populated ahead, [0, populated_) (also the writer thread's)
  std::uint64_t populate_step_ = 0;  // bytes populated at a time; 0: none (not a memory file system, --unique)
  bool sort_done_ = false;     // finish() was called: every byte is final
  bool stop_ = false;          // the destructor: write no more
  std::exception_ptr failure_;
  std::uint64_t written_while_sorting_ = 0;
  std::thread thread_;  // last: started once every member above exists
};

}  // namespace rmgsort
