// How rmgsort merge spends --host-memory and open files: how many inputs one pass merges (the
// fan-in), how the inputs are grouped into passes when there are more, and each pass's buffers.
//
// A pass over k sources holds, per source, a window of two chunks and a record and the reader's two
// chunks (the one copied from and the one read ahead: sort/merge_source.hpp), and two output buffers
// (one merged into while the other is written). With H the memory limit:
//   output buffers  2 * clamp(H / 8, 64 KiB, 256 MiB), positions included
//   per source      4 chunks of C = (H - outputs) / 4k, a multiple of 4096 of at least 64 KiB (and a record)
// so the fan-in is at most (H - outputs) / (4 * 64 KiB), and by open files (a regular input takes up to
// three descriptors: the file, its O_DIRECT twin, its io_uring) (limit - 64) / 3. More inputs than that
// are merged in passes: consecutive groups merged into runs in nameless temporary files
// (io/spill_file.hpp), which keeps the merge stable; only as many groups as bring the count down to
// the fan-in, so that a little over the fan-in costs a little over one pass. A run holds its
// descriptor until merged, so a pass whose runs would outnumber what the open files leave
// (runs_held_at_most) merges them as it goes, as a counter (runs_counter_arity,
// sort/merge_inputs.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "report/json.hpp"

namespace rmgsort {

struct MergePlan {
  std::uint64_t host_memory = 0;      // --host-memory
  std::uint64_t output_buffer_bytes = 0;  // each of the two
  std::size_t fan_in = 0;             // the most sources one pass merges, at least 2
  std::size_t fan_in_by_memory = 0;
  std::size_t fan_in_by_open_files = 0;
  std::size_t open_file_limit = 0;    // RLIMIT_NOFILE as the merge found it (raised to the hard limit)
  // The runs a pass may hold open at once (runs_held_at_most()); 0 until the merge sets it.
  std::size_t runs_held = 0;

  [[nodiscard]] Json json() const;
};

// The plan for records of STRIDE bytes (as a pass reads them: with their positions when they carry
// them), under HOST_MEMORY and OPEN_FILES descriptors; FAN_IN_LIMIT, when not 0, bounds the fan-in too.
[[nodiscard]] MergePlan plan_merge(std::uint64_t host_memory, std::size_t stride, std::size_t open_files,
                                   std::size_t fan_in_limit = 0);

// The least --host-memory a merge of records of STRIDE bytes works within: its two output buffers
// (an eighth of the limit each, at least 64 KiB) and two sources of four smallest chunks. Below it
// plan_merge() would still merge, with more memory than it was given: the merge refuses it instead.
[[nodiscard]] std::uint64_t merge_host_memory_least(std::size_t stride);

// Each source's chunk (its reads; its window holds two) in a pass of SOURCES sources of STRIDE bytes.
[[nodiscard]] std::size_t merge_chunk_bytes(const MergePlan& plan, std::size_t sources, std::size_t stride);

// The sizes of the consecutive groups one pass merges SOURCES sources in (a group of one passes
// through untouched): every group of FAN_IN while even the groups' runs would be more than FAN_IN,
// else only as many as leave FAN_IN sources for the last pass. One group of all when they are at
// most FAN_IN (that is the last pass).
[[nodiscard]] std::vector<std::size_t> merge_pass_groups(std::size_t sources, std::size_t fan_in);

// How many runs the passes may hold open at once: each run is a nameless temporary file, whose
// descriptor stays open until a later pass has merged it. What the open-file limit leaves beside the
// IN_USE descriptors, the sources of a pass (three each) and a margin for the rest (the run being
// written, the outputs and their rings); at least 2.
[[nodiscard]] std::size_t runs_held_at_most(const MergePlan& plan, std::size_t in_use);

// A pass that makes RUNS runs, of which it may hold ROOM at once, and would hold more, merges them
// as they come, as a K-ary counter: the K newest runs, when of one level, become one run of the
// next level, so that at most K - 1 of each level are held. The K returned is the one of fewest
// levels (each level a merge of what it holds again) that keeps within ROOM and FAN_IN, else 2 (a
// binary counter, which the newest runs merged into one keep within ROOM after all); 0 when the
// RUNS fit in ROOM (none is merged before the next pass). Merging only the
// newest runs whenever they were more than ROOM merged the one growing newest run again with each
// new one: 3000 inputs under `ulimit -n 100` merged their records 11.4 times over.
[[nodiscard]] std::size_t runs_counter_arity(std::size_t runs, std::size_t room, std::size_t fan_in);

// The descriptors this process has open now (/proc/self/fd), or `fallback` where that cannot be read.
[[nodiscard]] std::size_t open_descriptors(std::size_t fallback);

// RLIMIT_NOFILE's soft limit, raised to the hard limit first (as `ulimit -n $(ulimit -Hn)` would):
// a merge of thousands of inputs in one pass needs thousands of descriptors.
[[nodiscard]] std::size_t raise_open_file_limit();

}  // namespace rmgsort
