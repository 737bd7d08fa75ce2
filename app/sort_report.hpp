// rmgsort sort's --stats: one JSON object of what the run did, or, when it failed, of what it did
// before (README.md, Use, lists its members).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "core/record_layout.hpp"
#include "report/stats.hpp"
#include "sort/sort_plan.hpp"
#include "sort/sort_run.hpp"

namespace rmgsort {

// The input's read into memory (a stream's prefix, when it spilled; nothing for a spilled file).
struct ReadReport {
  double seconds = 0;
  std::uint64_t bytes = 0;
  bool direct = false;  // some of it with O_DIRECT
  // How long the read waited for the output's pages to be reserved (rounds partitioned into them).
  std::optional<double> output_pages_reserve_waited_seconds;
};

// The output's pages reserved beside the read and the sort (io/output_reservation.hpp).
struct OutputReservationReport {
  std::uint64_t bytes = 0;
  std::optional<double> seconds_to_reserve_all;  // from before the read; nothing when it stopped short
};

// What the run knows of itself; filled in as it goes, so that a failed run reports what it reached.
struct SortReport {
  RunStart start;
  RunEnd end;                               // exit code 0 until the run fails
  std::string input_name;                   // "stdin" for "-"
  std::optional<std::string> input_format;  // "raw" or "npy", once the input is opened
  std::string key_field;                    // a structured .npy input's --key; "" otherwise
  std::optional<RecordLayout> layout;       // --type's, or a .npy input's once its header is read
  std::vector<int> gpus;                    // selected
  std::uint64_t host_memory_limit = 0;      // --host-memory, or its default
  std::uint64_t threads = 0;
  double wall_seconds = 0;
  std::optional<ReadReport> read;      // once the keys the plan holds in memory are read
  std::optional<SortOutcome> outcome;  // once the plan's driver returned
  std::optional<OutputReservationReport> output_reservation;  // once released
};

// `plan` is null when the run failed before it was planned.
[[nodiscard]] Json sort_stats_json(const SortOptions& options, const SortPlan* plan, const SortReport& report);

}  // namespace rmgsort
