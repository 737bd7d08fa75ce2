// rmgsort merge's --stats: one JSON object of schema 1 (report/stats.hpp) of what the run did, or,
// when it failed, of what it did before (README.md, Merge, lists its members).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "core/record_layout.hpp"
#include "report/stats.hpp"
#include "sort/merge_inputs.hpp"

namespace rmgsort {

// What the run knows of itself; filled in as it goes, so that a failed run reports what it reached.
struct MergeReport {
  RunStart start;
  RunEnd end;                               // exit code 0 until the run fails
  std::vector<std::string> inputs;          // as named in messages ("stdin" for "-")
  std::optional<std::string> input_format;  // "raw" or "npy", once the inputs are opened
  std::string key_field;                    // structured .npy inputs' --key; "" otherwise
  std::optional<RecordLayout> layout;       // --type's, or the .npy inputs' once their headers are read
  std::uint64_t host_memory_limit = 0;
  std::uint64_t threads = 0;
  double wall_seconds = 0;
  MergeOutcome outcome;                     // the plan once made, each pass as it ends
  bool merged = false;                      // the last pass ended (its counts are the run's)
  // The method (app/merge_method.hpp), once chosen: "merge" or "sort", and why.
  std::optional<std::string> method;
  std::string method_because;
  // The sort method's: its plan (sort/sort_plan.hpp), engine, GPUs and their statistics.
  std::optional<Json> sort_plan;
  std::string engine = "cpu";
  std::vector<int> gpus_selected;
  std::string cpu_because;
  std::optional<Json> gpu;
  // How a failure speaks of the outputs once they exist (app/error_message.hpp).
  std::string uncommitted = "nothing was committed";
};

[[nodiscard]] Json merge_stats_json(const MergeOptions& options, const MergeReport& report);

}  // namespace rmgsort
