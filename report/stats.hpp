// The machine-readable --stats output: one JSON object, written to a file or to standard output,
// on success and on failure, and the members every such object begins with.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/output_file.hpp"
#include "report/json.hpp"

namespace rmgsort {

// The version of the members' names, units and meanings (README.md, --stats): a member renamed,
// removed, given another unit or another meaning takes the next one; a member added does not.
inline constexpr int kStatsSchema = 1;

// When and where a run started, and how it was called.
struct RunStart {
  std::string time;  // ISO 8601, UTC, to the millisecond: "2025-03-01T12:34:56.789Z"
  std::string host;  // gethostname()
  // argv as the kernel keeps it (/proc/self/cmdline), every byte; nullopt where that cannot be read.
  std::optional<std::vector<std::string>> command_line;

  [[nodiscard]] static RunStart now();
};

// How a run ended: exit code 0 ("status": "ok"), or another and the message printed on standard
// error after "rmgsort: " ("status": "error").
struct RunEnd {
  int exit_code = 0;
  std::string error;
};

// The members every --stats object begins with: schema, status, exit_code, error (null on
// success), command, version, start_time, host, command_line.
[[nodiscard]] Json stats_header(std::string_view command, std::string_view version, const RunStart& start,
                                const RunEnd& end);

// The most memory this process has held resident so far, in bytes (getrusage's ru_maxrss): every
// touched page counts, page-locked or not; memory mapped but never touched does not.
[[nodiscard]] std::uint64_t peak_host_memory_bytes();

// Where --stats goes: nowhere (""), standard output ("-") or a file. Opened at the start of a run,
// so that a bad path fails before any data moves; a file is written through a temporary file like
// every output, so a run leaves either complete statistics or none, and no output is committed by a
// run whose statistics could not be written. A file that is standard error's regular file
// (`--stats /dev/stderr 2>> run.log`) is written through descriptor 2 instead, after what it holds,
// as a pipe there would be: replacing it would drop the log. The caller checks first that the file
// is neither the input nor another output (io/file_identity.hpp), so standard output ("-") never
// carries the keys.
class StatsOutput {
 public:
  // Armed for signals as it is created (see below), with the handlers' words for COMMAND, VERSION
  // and START: a signal that finds the statistics' temporary file finds them armed.
  StatsOutput(const std::string& path, std::string_view command, std::string_view version, const RunStart& start);
  // Takes back the words armed for the signal handlers.
  ~StatsOutput();
  // The signal handlers hold pointers into it.
  StatsOutput(const StatsOutput&) = delete;
  StatsOutput& operator=(const StatsOutput&) = delete;

  // Should a handled signal end the run (io/cleanup.hpp), its statistics are still written where
  // they go: stats_header(command, version, start) with exit code 128 + the signal, its error
  // "stopped by signal SIGNAME", and "signal": "SIGNAME" (io/last_words.hpp; into a file, through
  // a staged file of its own, committed by the handler). Until the run's own statistics are written
  // (standard output or error, or a device written in place) or committed (a file).

  // Writes `json` (one line) to the temporary file and closes it (a deferred write error surfaces
  // here), or writes it to standard output, which cannot be taken back: call it before committing
  // anything, so that a failed write commits nothing.
  void prepare(const Json& json);
  // Makes the prepared statistics visible: renames the file into place. Until settle(), a handled
  // signal still replaces them by its own: the run's outputs are renamed after them, and a run
  // stopped before its outputs are in place did not succeed.
  void commit();
  // Every output of the run is in place: from now on a signal leaves the statistics as they are.
  void settle();

  // A failed run's statistics, in place of any prepared or committed ones: a file gets them through
  // a new temporary file, renamed into place at once; standard output or error gets them unless
  // prepare() already wrote there (those cannot be taken back: prepare() comes after everything but
  // the outputs' renames). Nothing when the run's own statistics failed to be written or committed
  // (the run's error is that failure: a second attempt would only fail again, and say it twice).
  // Throws Error when they cannot be written. A signal after them leaves them.
  void write_failure(const Json& json);

 private:
  void arm_for_signals(std::string_view command, std::string_view version, const RunStart& start);
  void write_file(const Json& json);

  void disarm_signals() noexcept;

  std::string path_;
  std::optional<OutputFile> file_;
  std::vector<std::string> signal_lines_;   // armed: one per kCleanupSignals entry
  std::optional<OutputFile> signal_file_;   // armed into a file: the handler's own staged file
  bool armed_ = false;
  int descriptor_ = -1;            // written in place: STDOUT_FILENO ("-") or STDERR_FILENO; -1 for a file
  // prepare() or write_failure() began writing to the descriptor, or to the FIFO or device written
  // in place: nothing can be taken back there.
  bool written_in_place_ = false;
  bool failed_ = false;              // writing or committing the statistics threw
};

}  // namespace rmgsort
