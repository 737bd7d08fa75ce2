// What --progress writes, as text: the line a terminal redraws, the lines of a log (--progress
// lines), the JSON objects (--progress json), and the summary that ends a run. Pure functions of
// what they are given: report/progress.hpp decides when each is written.
//
//   terminal  rmgsort: sorting rounds on 2 GPUs [3/7 rounds] 1.20 GiB/2.81 GiB (42%) 512.00 MiB/s ETA 3m05s
//   lines     rmgsort: reading keys.u64 1.20 GiB/2.81 GiB (42%) 512.00 MiB/s ETA 3s
//             rmgsort: reading keys.u64 2.81 GiB/2.81 GiB (100%) 512.00 MiB/s, done in 5.62s
//   json      {"phase":"reading","description":"reading keys.u64","finished":false,"bytes_done":...}
//   summary   rmgsort: sorted 2.81 GiB in 9.80s (293.62 MiB/s) on the CPU
//             {"phase":"done","description":"sorted 2.81 GiB ...","bytes":...,"engine":"cpu"}
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rmgsort {

// One phase as it stands.
struct ProgressSnapshot {
  std::string phase;        // what the phase does: a verb, then what it works on ("reading keys.u64")
  std::uint64_t done = 0;   // bytes
  std::uint64_t total = 0;  // bytes; 0: unknown
  std::uint64_t rounds_done = 0;
  std::uint64_t rounds_total = 0;  // 0: not in rounds
  double seconds = 0;              // since the phase began
  double elapsed = 0;              // since the run's progress began (JSON only)
  bool finished = false;           // the phase is over: its last line (lines and JSON only)
};

// How a run ended: the last thing --progress writes.
struct ProgressSummary {
  std::string verb;         // what was done to the bytes: "sorted", "merged", "checked"
  std::uint64_t bytes = 0;  // the run's records (a .npy file's data), in bytes
  double seconds = 0;       // the run's wall time
  std::string engine;       // as --stats names it: "cpu" or "gpu"
  std::string devices;      // what the bytes were sorted on ("2 GPUs"); "": the CPU
};

// The terminal's line for SNAPSHOT, at most COLUMNS bytes wide (the phase name loses its middle
// first; "..." marks the cut): the phase, "[done/total rounds]" in rounds, the bytes done (of the
// total, with the percentage, when it is known), the rate since the phase began and, with a known
// total, the ETA. `finished` is ignored. No control characters: those of a phase name (a file's)
// are written as '?'.
[[nodiscard]] std::string progress_line(const ProgressSnapshot& snapshot, std::size_t columns);

// The line of a log: the terminal's, never cut; when the phase is finished, without an ETA and
// with ", done in TIME" instead. No newline, no control characters.
[[nodiscard]] std::string progress_log_line(const ProgressSnapshot& snapshot);

// One JSON object on one line (json_line: file names keep their bytes), its members in this order:
// "phase" (the description's first word: reading, spilling, partitioning, pinning, sorting,
// verifying, writing, checking, checksumming, generating), "description" (the whole of it, as the
// lines name the phase), "finished" (false while it runs, true on its last object), "bytes_done",
// "bytes_total" (null: unknown), "bytes_per_second" (since the phase began), "eta_seconds" (null
// when unknown or finished), "phase_seconds", "elapsed_seconds" (since the run began), "rounds_done"
// and "rounds_total" (both null when the phase does not run in rounds). Seconds are rounded to
// milliseconds.
[[nodiscard]] std::string progress_json_line(const ProgressSnapshot& snapshot);

// "rmgsort: sorted 2.81 GiB in 9.80s (293.62 MiB/s) on the CPU" ("on 2 GPUs"; no rate when no
// time was measured).
[[nodiscard]] std::string summary_line(const ProgressSummary& summary);

// {"phase":"done","description":..,"bytes":..,"elapsed_seconds":..,"bytes_per_second":..,"engine":..}:
// the description is summary_line's text after "rmgsort: "; the rate is null when no time was
// measured.
[[nodiscard]] std::string summary_json_line(const ProgressSummary& summary);

// {"phase":"failed","description":..,"exit_status":..,"elapsed_seconds":..}: how a run under
// --progress json ended when it failed; the description is MESSAGE, the error's line after
// "rmgsort: ".
[[nodiscard]] std::string failure_json_line(const std::string& message, int exit_status, double seconds);

// "42s", "3m05s", "1h02m".
[[nodiscard]] std::string format_duration(double seconds);

// "0.42s", "59.99s", then as format_duration: "3m05s".
[[nodiscard]] std::string format_seconds(double seconds);

}  // namespace rmgsort
