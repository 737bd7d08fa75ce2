// The rounds path: keys that are larger than one sort of the engine (the GPUs' combined memory) but
// fit host memory. The CPU partitions them into value-ordered rounds (host/round_partition.hpp), the
// engine sorts each round in place, and each sorted round is handed on (to the writer) before the
// next one is sorted, so that writing round r - 1 overlaps sorting round r.
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

// What sort_in_rounds() calls. sort_round(keys, n) sorts a round in place; sorted(round bytes)
// takes it. The rest may be empty.
struct RoundHooks {
  std::function<void(std::byte* keys, std::uint64_t count)> sort_round;
  std::function<void(std::span<const std::byte> round)> sorted;
  // Runs the partition (its argument) and returns when it is done: what the driver does meanwhile
  // (page-locking the partition's memory for every round at once) runs beside it.
  std::function<void(const std::function<void()>& partition)> around_partition;
  // The input is partitioned: its memory is not touched again, and may be freed here, so that the
  // output's pages can reuse it.
  std::function<void()> on_partitioned;
  // The rounds finished (handed on) out of all of them: (0, total) after the partition, then after
  // each round.
  std::function<void(std::uint64_t done, std::uint64_t total)> on_rounds;
};

// Partitions input[0, count) (keys of `type`) into `partitioned` (count keys, not overlapping the
// input) in rounds of at most round_capacity keys, then, round by round in order, sorts each round
// and hands it on (`hooks`). top_digits, when given, is the input's top-digit histogram counted
// while it was read: the partition then skips its own counting pass (host/top_digit_histogram.hpp).
RoundsReport sort_in_rounds(KeyType type, const std::byte* input, std::byte* partitioned, std::uint64_t count,
                            SortOrder order, std::uint64_t round_capacity, const RoundHooks& hooks,
                            const TopDigitHistogram* top_digits = nullptr);

// The driver: keys.keys[0, keys.bytes) partitioned into a buffer of the same size (placed for the
// engine, page-locked for every round while the partition runs), sorted round by round with
// `engine` (allocated here) and written to run.output_fd as each round is sorted, checked on the way
// when --verify asks. The input's memory goes back once it is partitioned.
[[nodiscard]] SortOutcome sort_in_memory_rounds(SortEngine& engine, KeysInMemory& keys, const SortRun& run);

}  // namespace rmgsort
