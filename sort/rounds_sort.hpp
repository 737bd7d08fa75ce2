// The rounds path: keys that are larger than one sort of the engine (the GPUs' combined memory) but
// fit host memory. The CPU partitions them into value-ordered rounds (host/round_partition.hpp), the
// engine sorts each round in place, and the sorted rounds are handed on (to the writer, or to be
// checked where they lie in the output's own pages) in order.
// The sorts run on threads of their own, one per sorter of the engine, round r on sorter r % S:
// sorting runs ahead of the hand-off (writing round r overlaps sorting the next ones), and with two
// sorters on the GPUs one round's copy back overlaps the next one's copy in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "core/key_order.hpp"
#include "core/key_type.hpp"
#include "host/top_digit_histogram.hpp"
#include "sort/read_keys.hpp"
#include "sort/sort_engine.hpp"
#include "sort/sort_run.hpp"

namespace rmgsort {

// What sort_in_rounds() calls. sort_round(keys, n, sorter) sorts a round in place, on sorter
// `sorter` < sorters, from that sorter's thread (calls on different sorters overlap); sorted(round
// bytes) takes it, on the caller's thread. The rest may be empty and run on the caller's thread.
struct RoundHooks {
  unsigned sorters = 1;
  std::function<void(std::byte* keys, std::uint64_t count, unsigned sorter)> sort_round;
  std::function<void(std::span<const std::byte> round)> sorted;
  // Runs the partition (its argument) and returns when it is done: what the driver does meanwhile
  // (page-locking the partition's memory for every round at once) runs beside it.
  std::function<void(const std::function<void()>& partition)> around_partition;
  // The input is partitioned: its memory is not touched again, and may be freed here (before the
  // output's pages are written, or the next step of the run).
  std::function<void()> on_partitioned;
  // The rounds finished (handed on) out of all of them: (0, total) after the partition, then after
  // each round.
  std::function<void(std::uint64_t done, std::uint64_t total)> on_rounds;
};

// Partitions input[0, count) (keys of `type`) into `partitioned` (count keys, not overlapping the
// input) in rounds of at most round_capacity keys, then sorts the rounds and hands them on in order
// (`hooks`). top_digits, when given, is the input's top-digit histogram counted while it was read:
// the partition then skips its own counting pass (host/top_digit_histogram.hpp). What a sort or a
// hand-off throws stops the sorts (each sorter finishes the round it is in) and is thrown here;
// nothing after the failed round is handed on. The report's round_sort_seconds[r] is how long the
// hand-off of round r waited for its sort (the sorts' part of the critical path).
RoundsReport sort_in_rounds(KeyType type, const std::byte* input, std::byte* partitioned, std::uint64_t count,
                            SortOrder order, std::uint64_t round_capacity, const RoundHooks& hooks,
                            const TopDigitHistogram* top_digits = nullptr);

// The driver: keys.keys[0, keys.bytes) partitioned into a buffer of the same size (placed for the
// engine, page-locked for every round while the partition runs), sorted round by round with
// `engine` (allocated here) and written to run.output_fd as each round is sorted, checked on the way
// when --verify asks. The input's memory goes back once it is partitioned. With keys.output_pages
// (reserved while the keys were read), the partition stores into them instead: each round is sorted
// in the output file, and nothing is written.
[[nodiscard]] SortOutcome sort_in_memory_rounds(SortEngine& engine, KeysInMemory& keys, const SortRun& run);

}  // namespace rmgsort
