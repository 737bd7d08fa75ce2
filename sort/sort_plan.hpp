// How one run sorts, decided once: the path (in memory, in rounds, through spill files), the engine
// (the GPUs, or the CPU and why), and the whole host memory budget from exact sizes, checked against
// --host-memory. A file is planned from its size before it is read. A stream's size is unknown: it
// is planned once its prefix (at most stream_prefix_limit()) is read: complete, in memory; not
// complete, through spill files, the prefix leading the streaming pass.
//
// The budget, part by part (bytes):
//   in memory   the keys (input) and, on the CPU, the radix sort buffer (sort_scratch);
//   rounds      the keys (input) and the buffer they are partitioned into (partition), when they do
//               not fit one sort of the engine;
//   records     (any layout but a bare key, or --index-output): the records (input), the engine's
//               tags beside them (sort_scratch; the CPU's radix buffer of the tags too) and one
//               output buffer the records are gathered into (outputs), when one sort takes them all;
//               else the spill path below, its spill file in memory (spill_memory: every record,
//               with its position appended for --index-output) when that fits H, and two output
//               buffers beside its round buffers.
//   spill       when the in-memory budget exceeds --host-memory H: spill_sort's chunks (5 chunks of
//               C = H / 16, 4 KiB to 64 MiB: sort/spill_sort.hpp lists them), two round buffers
//               (the writer writes one while the next round sorts) and the engine's sort buffer for
//               a round, the rounds as large as H - 5 C holds. A stream's prefix (input, at most
//               H / 2) is let go before the round buffers exist.
// Beyond H: the program itself and bookkeeping of a few bytes per round and per pass.
//
// The GPUs' engine holds its device memory from the moment it is chosen (sort/gpu_engine.hpp), so
// the rounds planned here are rounds the GPUs have memory for: planned again with smaller rounds
// when another process took memory meanwhile, or, when not even that could be allocated, the CPU's
// engine with cpu_because saying so, and every part above the CPU's. Bare keys whose rounds path fits
// --host-memory get the GPUs' engine of two sorters (RoundSorting::overlapped), whose rounds are
// half as large: the rounds path sorts two at once; the spill path and records sort one at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "report/stats.hpp"
#include "core/record_layout.hpp"
#include "sort/gpu_engine.hpp"
#include "sort/sort_engine.hpp"

namespace rmgsort {

enum class SortPath { in_memory, rounds, spill };

[[nodiscard]] std::string_view sort_path_name(SortPath path);  // "in_memory", "rounds", "spill"

struct HostMemoryBudget {
  std::uint64_t input = 0;          // the keys read into memory, or a stream's prefix read before it spilled
  std::uint64_t partition = 0;      // rounds: the buffer the keys are partitioned into
  std::uint64_t sort_scratch = 0;   // the engine's buffer beside the keys of its largest sort
  std::uint64_t round_buffers = 0;  // spill: two rounds
  std::uint64_t spill_chunks = 0;   // spill: spill_sort's chunks, at most 5 at any time
  std::uint64_t outputs = 0;        // records: the engine's output buffers (one in memory, two in rounds)
  std::uint64_t spill_memory = 0;   // records in rounds: the spill file kept in memory
  std::uint64_t limit = 0;          // --host-memory

  // The most held at once: a stream's prefix is let go before a spill's round buffers exist.
  [[nodiscard]] std::uint64_t peak() const;
};

// What a plan is made from besides the input's size.
struct PlanRequest {
  RecordLayout layout;
  bool positions = false;          // --index-output: the records' input positions are written too
  std::string input_name;          // as errors name the input
  std::uint64_t host_memory = 0;   // --host-memory
  GpuEngineChooser choose_gpus;    // the GPUs' engine for a number of records, or nullptr and why not
  std::string host_memory_name = "--host-memory";  // as errors name it (host/system_memory.hpp)
};

struct SortPlan {
  SortPath path = SortPath::in_memory;
  std::unique_ptr<SortEngine> engine;
  std::string cpu_because;          // why the CPU sorts ("no GPU selected", the GPUs' memory ...); "" on the GPUs
  std::uint64_t round_keys = 0;     // the most keys one sort takes (in memory: the input's keys)
  std::size_t spill_chunk_bytes = 0;  // spill: the streaming pass's read size
  bool spill_in_memory = false;     // spill: the spill file is anonymous memory, not in --temp-dir
  PositionSource positions = PositionSource::none;  // where --index-output's positions come from
  HostMemoryBudget memory;

  // --stats "plan": the path, the engine, each budget part and the limit.
  [[nodiscard]] Json json() const;
};

// The most a stream's prefix may hold before the stream is planned: half of --host-memory, so that
// the CPU's sort buffer or the rounds' partition buffer fits beside it.
[[nodiscard]] std::uint64_t stream_prefix_limit(std::uint64_t host_memory);

// A file of `bytes` bytes; Error naming the file when it is not whole keys, or when --host-memory
// cannot hold even one round beside the spill chunks.
[[nodiscard]] SortPlan plan_file(const PlanRequest& request, std::uint64_t bytes);

// A stream whose first `prefix_bytes` (at most stream_prefix_limit()) are read; `complete` when that
// is all of it. Errors as plan_file's.
[[nodiscard]] SortPlan plan_stream(const PlanRequest& request, std::uint64_t prefix_bytes, bool complete);

}  // namespace rmgsort
