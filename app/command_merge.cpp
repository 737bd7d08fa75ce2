// rmgsort merge: inputs that are each sorted already merged into one sorted output, stably and in
// bounded memory (sort/merge_inputs.hpp): validate -> open the inputs -> merge -> report. The output
// is a temporary file renamed over the target only when every input proved sorted and whole (and
// --verify passed); an input out of order ends the run with exit code 1, as check's disorder does.
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "app/commands.hpp"
#include "app/error_message.hpp"
#include "app/merge_input.hpp"
#include "app/merge_report.hpp"
#include "core/error.hpp"
#include "host/system_memory.hpp"
#include "io/file_identity.hpp"
#include "io/output_file.hpp"
#include "io/standard_descriptors.hpp"
#include "report/stopwatch.hpp"
#include "sort/merge_inputs.hpp"

namespace rmgsort {
namespace {

// The threads oneTBB will use: the arena's, bounded by a --threads global_control.
std::size_t active_threads() {
  return std::min<std::size_t>(std::size_t(tbb::this_task_arena::max_concurrency()),
                               tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
}

std::string input_name(const std::string& path) { return path == "-" ? "stdin" : path; }

// No file the run writes may be another one it writes, nor an input unless it is replaced by a
// rename (-o FILE, read whole before the rename): compared by device and inode, before anything is
// read or created.
void require_separate_outputs(const MergeOptions& options) {
  const std::optional<FileIdentity> stdout_identity = identity_of_descriptor(STDOUT_FILENO);
  const std::vector<WrittenFile> written = written_outputs(options.output, options.index_output, options.stats,
                                                          "the merged records on standard output", stdout_identity);
  for (const std::string& path : options.inputs) {
    const std::optional<FileIdentity> input =
        path == "-" ? identity_of_descriptor(STDIN_FILENO) : identity_of_existing(path);
    if ((options.output == "-" || options.index_output == "-") && input && input->regular && stdout_identity == input)
      throw Error("standard output is the input file " + input_name(path) +
                  ": the merged records would overwrite it as it is read; use -o FILE");
    require_separate_files(written, input, input_name(path));
  }
}

// Everything that can be validated before any data moves; returns the host memory limit.
std::uint64_t validate(const MergeOptions& options, const ClosedStandardDescriptors& closed) {
  if (options.inputs.empty())
    throw Error("merge: no inputs: name the sorted files to merge (- for standard input)");
  if (std::count(options.inputs.begin(), options.inputs.end(), "-") > 1)
    throw Error("merge: - (standard input) is named more than once; it can be read only once");
  const bool reads_stdin = std::find(options.inputs.begin(), options.inputs.end(), "-") != options.inputs.end();
  if (closed.input && reads_stdin) throw Error("standard input is closed: give the input file's name");
  if (closed.output && options.output == "-")
    throw Error("standard output is closed: nowhere to write the merged records; use -o FILE");
  if (closed.output && options.stats == "-")
    throw Error("--stats -: standard output is closed; give --stats a file name");
  if (closed.output && options.index_output == "-")
    throw Error("--index-output -: standard output is closed; give --index-output a file name");
  for (const std::string& path : options.inputs) refuse_closed_standard_descriptor(path, path);
  if (!options.output.empty()) refuse_closed_standard_descriptor(options.output, "-o " + options.output);
  if (!options.index_output.empty())
    refuse_closed_standard_descriptor(options.index_output, "--index-output " + options.index_output);
  if (!options.stats.empty()) refuse_closed_standard_descriptor(options.stats, "--stats " + options.stats);
  if (options.stats == "-" && options.output == "-")
    throw Error("--stats -: standard output already carries the merged records; give --stats a file name");
  if (options.index_output == "-" && options.output == "-")
    throw Error("--index-output -: standard output already carries the merged records; give -o or --index-output "
                "a file name");
  if (options.stats == "-" && options.index_output == "-")
    throw Error("--stats -: standard output already carries the positions (--index-output -); give --stats a file "
                "name");
  require_separate_outputs(options);
  if (!options.temp_dir.empty()) {
    struct stat info {};
    if (stat(options.temp_dir.c_str(), &info) != 0) throw_errno(options.temp_dir, "--temp-dir is not usable");
    if (!S_ISDIR(info.st_mode)) throw Error(options.temp_dir + ": --temp-dir is not a directory");
  }
  return options.host_memory.value_or(default_host_memory_bytes());
}

// A failed run's statistics; should they not be written, standard error says so.
void write_failure_stats(StatsOutput& stats, const MergeOptions& options, const MergeReport& report) noexcept {
  try {
    stats.write_failure(merge_stats_json(options, report));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rmgsort: %s (the failed run's statistics were not written)\n", e.what());
  }
}

// Everything after validation: opens, merges, writes the statistics and commits.
int merge_and_commit(const MergeOptions& options, const Stopwatch& wall, StatsOutput& stats, MergeReport& report) {
  MergeInputFiles files = open_merge_inputs(options);
  report.input_format = files.format();
  report.layout = files.layout;
  if (files.npy && files.npy->structured) report.key_field = options.key_field;
  std::optional<OutputFile> output, index;
  if (!options.output.empty()) output = OutputFile::create(options.output);
  if (!options.index_output.empty()) index = OutputFile::create(options.index_output);
  Progress progress(progress_mode_beside_keys(options.progress, options.output == "-" || options.index_output == "-"));
  SortRun run{options.order, options.verify, options.unique, -1, "", -1, "", &progress, {}};
  if (output) {
    run.output_fd = output->fd();
    run.output_name = output->is_stdout() ? "standard output" : output->path();
  }
  if (index) {
    run.index_fd = index->fd();
    run.index_name = index->is_stdout() ? "standard output" : index->path();
  }
  if (options.unique) require_rewritable_merge_headers(files, run);  // before anything is read
  const MergeHeads heads = write_merge_headers(files, run);
  const MergeJob job{files.layout,          std::move(files.inputs), options.temp_dir, report.host_memory_limit, 0,
                     std::size_t(report.threads), run};
  merge_inputs(job, report.outcome);
  report.merged = true;
  progress.finish();
  if (!report.outcome.verify_failure.empty()) {
    const std::string message = (output ? output->display_name() : index->display_name()) + ": --verify failed: " +
                                report.outcome.verify_failure + "; the output was not committed";
    std::fprintf(stderr, "rmgsort: %s\n", message.c_str());
    report.end = RunEnd{kExitCheckFailed, message};
    report.wall_seconds = wall.seconds();
    write_failure_stats(stats, options, report);
    return kExitCheckFailed;
  }
  if (options.unique)
    rewrite_merge_headers(files, run, heads, report.outcome.records - report.outcome.duplicates_dropped);
  // As sort: every output closed and checked, then the statistics, then the renames.
  if (output) output->finish_writing();
  if (index) index->finish_writing();
  report.wall_seconds = wall.seconds();
  stats.prepare(merge_stats_json(options, report));
  stats.commit();
  if (index) index->commit();
  if (output) output->commit();
  return kExitOk;
}

}  // namespace

int run_merge(const MergeOptions& options) {
  Stopwatch wall;
  const ClosedStandardDescriptors closed = hold_closed_standard_descriptors();
  MergeReport report;
  report.start = RunStart::now();
  report.host_memory_limit = validate(options, closed);
  StatsOutput stats(options.stats);
  for (const std::string& path : options.inputs) report.inputs.push_back(input_name(path));
  report.threads = active_threads();
  if (options.type_option) report.layout = options.layout;
  try {
    return merge_and_commit(options, wall, stats, report);
  } catch (const MergeDisorder& e) {
    // Exit code 1, as check's: the inputs are readable, but one is not what merge takes.
    const std::string message = std::string(e.what()) + "; merge takes inputs that are each sorted, and nothing "
                                                        "was committed";
    std::fprintf(stderr, "rmgsort: %s\n", message.c_str());
    report.end = RunEnd{kExitCheckFailed, message};
    report.wall_seconds = wall.seconds();
    write_failure_stats(stats, options, report);
    return kExitCheckFailed;
  } catch (const std::exception& e) {
    report.end = RunEnd{exit_status_of(e), error_message(e, "merge")};
    report.wall_seconds = wall.seconds();
    write_failure_stats(stats, options, report);
    throw;
  }
}

}  // namespace rmgsort
