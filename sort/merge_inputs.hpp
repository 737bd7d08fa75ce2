// rmgsort merge's driver: inputs that are each sorted merged into one sorted output, stably (equal
// keys: all of the first input's, in its order, then the second's, ...), in bounded memory, however
// many inputs there are. At most the plan's fan-in (sort/merge_plan.hpp) are merged at once; beyond
// that, passes merge consecutive groups into runs in nameless temporary files in the temporary
// directory, until the last pass merges what is left into the output. Every input is read once,
// whichever pass reads it, and checked as it is read (sort/merge_window.hpp). With --index-output the
// positions are those in the concatenation of the inputs: a run in a temporary file carries them
// after each record, and a raw stream whose length is needed for a later input's positions is first
// copied to a temporary file (read and checked from there). With --unique (SortRun::unique) the last
// pass writes only the first record of each run of equal keys: the first in input order, as the
// merge is stable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/record_layout.hpp"
#include "sort/merge_plan.hpp"
#include "sort/merge_source.hpp"
#include "sort/merge_window.hpp"
#include "sort/sort_run.hpp"

namespace rmgsort {

struct MergeInput {
  WindowInput check;                       // its name, and what it promised (checked true)
  std::optional<std::uint64_t> records;    // known before it is read: a regular file's, a .npy header's
  bool stream = false;                     // a pipe or the like: opened once, its descriptor held throughout
  std::function<OpenedInput()> open;       // opens it at its first data byte (a regular file again)
};

struct MergeJob {
  RecordLayout layout;
  std::vector<MergeInput> inputs;
  std::string temp_dir;                    // "": $TMPDIR, else /tmp
  std::uint64_t host_memory = 0;
  std::size_t fan_in_limit = 0;            // 0: as memory and open files allow
  std::size_t threads = 1;
  // The order, --verify, the outputs (a .npy header already written to each) and the progress.
  SortRun run;
  std::size_t runs_held_limit = 0;  // 0: as open files allow (sort/merge_plan.hpp: runs_held_at_most)
  std::string host_memory_name = "--host-memory";  // as errors name it (host/system_memory.hpp)
};

struct MergePassReport {
  std::uint64_t sources = 0;  // inputs and runs merged
  std::uint64_t runs = 0;     // runs written (1 for the last pass: the output)
  std::uint64_t records = 0;
  double seconds = 0;
};

struct MergeOutcome {
  MergePlan plan;
  std::uint64_t records = 0;             // merged (--unique's dropped included)
  std::uint64_t bytes = 0;
  std::uint64_t duplicates_dropped = 0;  // records --unique left out (the last pass's filter)
  std::vector<MergePassReport> passes;  // the last one wrote the output
  std::uint64_t temporary_bytes = 0;    // written to temporary files (runs, and streams copied)
  std::uint64_t inputs_copied = 0;      // raw streams copied to a temporary file first
  std::string verify_failure;           // "" when --verify passed or was not asked for
};

// Fills OUTCOME as it goes (the plan first, each pass as it ends), so that a run that fails
// reports what it reached. Throws MergeDisorder when an input is not sorted, rmgsort::Error for
// everything else; nothing of the temporary files outlives it.
void merge_inputs(const MergeJob& job, MergeOutcome& outcome);

// Reads every input of JOB once, each through a window of JOB's memory, and checks what it promised
// (sorted in JOB's order, whole records, a .npy stream's length) as a merge does, writing nothing:
// the check of inputs that are sorted by another way. Throws what merge_inputs throws for them.
void check_merge_inputs(const MergeJob& job);

}  // namespace rmgsort
