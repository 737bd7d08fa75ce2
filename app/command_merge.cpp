// rmgsort merge: inputs that are each sorted already merged into one sorted output, stably:
// validate -> choose the method (app/merge_method.hpp) -> open the inputs -> merge them in bounded
// memory (sort/merge_inputs.hpp), or sort their concatenation (app/merge_by_sort.hpp) -> report.
// The output is a temporary file renamed over the target only when every input proved sorted and whole (and
// --verify passed); an input out of order ends the run with exit code 1, as check's disorder does.
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

#include "app/commands.hpp"
#include "app/error_message.hpp"
#include "app/merge_by_sort.hpp"
#include "app/merge_input.hpp"
#include "app/merge_method.hpp"
#include "app/npy_output_headers.hpp"
#include "app/merge_report.hpp"
#include "app/separate_outputs.hpp"
#include "core/error.hpp"
#include "gpu/gpu_selection.hpp"
#include "host/system_memory.hpp"
#include "io/cleanup.hpp"
#include "io/output_file.hpp"
#include "io/standard_descriptors.hpp"
#include "io/temp_dir.hpp"
#include "report/stopwatch.hpp"
#include "sort/merge_inputs.hpp"
#include "sort/merge_plan.hpp"

namespace rmgsort {
namespace {

// The threads oneTBB will use: the arena's, bounded by a --threads global_control.
std::size_t active_threads() {
  return std::min<std::size_t>(std::size_t(tbb::this_task_arena::max_concurrency()),
                               tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
}

std::string input_name(const std::string& path) { return path == "-" ? "stdin" : path; }

// What must hold before any file is created, the statistics' included: the inputs named, the
// standard descriptors, and the files the run writes (none is another one, nor an input).
void validate_files(const MergeOptions& options, const ClosedStandardDescriptors& closed) {
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
  require_streams_named_once(options.inputs);
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
  require_separate_outputs({options.inputs, options.output, options.index_output, options.stats},
                           {"the merged records", /*sorts_in_place=*/false});
}

// The rest that can be validated before any data moves (a failure here is written to --stats);
// returns the host memory limit.
std::uint64_t validate_settings(const MergeOptions& options) {
  (void)parse_gpu_spec(options.gpus);  // (its words, whichever method runs; its devices when sort plans)
  require_temp_dir_option(options.temp_dir);
  return options.host_memory.value_or(default_host_memory_bytes());
}

// A failed run's statistics; should they not be written, standard error says so.
void write_failure_stats(StatsOutput& stats, const MergeOptions& options, const MergeReport& report) noexcept {
  try {
    stats.write_failure(merge_stats_json(options, report));
  } catch (const std::exception& e) {
    print_statistics_not_written(e);
  }
}

// The first input that is a stream (standard input, a pipe, a device: not a regular file), as
// messages name it; "" when every input is a regular file.
std::string first_stream_input(const MergeOptions& options) {
  for (const std::string& path : options.inputs) {
    struct stat info {};
    if (path == "-" || (stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode))) return input_name(path);
  }
  return "";
}

// The sort method's plan when the method is (or may be) sort, with the method chosen in REPORT:
// null when the inputs are merged.
std::unique_ptr<MergeBySort> choose_method(const MergeOptions& options, MergeReport& report) {
  std::unique_ptr<MergeBySort> sorting;
  MethodChoice choice{MergeMethod::merge, "--method merge"};
  if (options.method == MergeMethod::sort) {
    sorting = plan_merge_by_sort(options, report.host_memory_limit, std::size_t(report.threads));
    choice = {MergeMethod::sort, "--method sort"};
  } else if (options.method == MergeMethod::automatic) {
    const std::string stream = first_stream_input(options);
    std::string refused;  // why sort's machinery cannot take the inputs (its plan's error)
    if (stream.empty()) {
      try {
        sorting = plan_merge_by_sort(options, report.host_memory_limit, std::size_t(report.threads));
      } catch (const Error& e) {
        // GPUs the user listed by number are theirs to have: a missing one is an error, as for sort.
        if (parse_gpu_spec(options.gpus).kind == GpuSpec::Kind::list) throw;
        refused = e.what();  // the merge opens the inputs again, and names what is wrong with them itself
      }
    }
    choice = choose_merge_method(options.inputs.size(), stream, sorting ? &sorting->plan : nullptr);
    if (!refused.empty()) choice.because = "sort cannot take the inputs: " + refused;
    if (choice.method == MergeMethod::merge) sorting.reset();  // its files closed, its GPUs' memory let go
  }
  report.method = merge_method_name(choice.method);
  report.method_because = choice.because;
  if (sorting) {
    report.sort_plan = sorting->plan.json();
    report.engine = std::string(sorting->plan.engine->name());
    report.gpus_selected = sorting->gpus_selected;
    report.cpu_because = sorting->plan.cpu_because;
  }
  return sorting;
}

// The outputs, created, and the run that writes them; `report` learns how a failure speaks of them.
struct Outputs {
  std::optional<OutputFile> output, index;
  SortRun run;
};

// Creates the outputs, their .npy formats FORMATS checked first by path and then by descriptor (a
// header written again at the end needs a file it can write at its start), before anything is read.
void open_outputs(const MergeOptions& options, const NpyOutputFormats& formats, Progress& progress, Outputs& outputs,
                  MergeReport& report) {
  require_rewritable_npy_paths(formats, options.unique, options.output, options.index_output);
  if (!options.output.empty()) outputs.output = OutputFile::create(options.output);
  if (!options.index_output.empty()) outputs.index = OutputFile::create(options.index_output);
  report.uncommitted = uncommitted_outputs(outputs.output, outputs.index);
  outputs.run = SortRun{options.order, options.verify, options.unique, -1, "", -1, "", &progress, {}};
  if (outputs.output) {
    outputs.run.output_fd = outputs.output->fd();
    outputs.run.output_name = outputs.output->writer_name();
  }
  if (outputs.index) {
    outputs.run.index_fd = outputs.index->fd();
    outputs.run.index_name = outputs.index->writer_name();
  }
  require_rewritable_npy_outputs(formats, options.unique, outputs.run);
}

// The merge method: the inputs opened as merge opens them and merged (sort/merge_inputs.hpp).
void merge_method(const MergeOptions& options, Outputs& outputs, MergeReport& report) {
  MergeInputFiles files = open_merge_inputs(options);
  report.input_format = files.format();
  report.layout = files.layout;
  if (files.npy && files.npy->structured) report.key_field = options.key_field;
  const NpyOutputFormats formats = npy_output_formats(files.npy, files.layout, options.output, options.index_output);
  open_outputs(options, formats, *outputs.run.progress, outputs, report);
  const SortRun& run = outputs.run;
  const std::uint64_t records = files.records.value_or(0);  // every .npy input's length is in its header
  const NpyOutputHeads heads = write_npy_output_headers(formats, records, run);
  const MergeJob job{files.layout,          std::move(files.inputs), options.temp_dir, report.host_memory_limit, 0,
                     std::size_t(report.threads), run, 0, host_memory_name(options.host_memory)};
  merge_inputs(job, report.outcome);
  report.merged = true;
  if (formats.rewritten(options.unique) && report.outcome.verify_failure.empty())
    rewrite_npy_output_headers(formats, run, heads, records, report.outcome.records - report.outcome.duplicates_dropped);
}

// The sort method (app/merge_by_sort.hpp): its outcome in merge's terms.
void sort_method(const MergeOptions& options, MergeBySort& sorting, Outputs& outputs, MergeReport& report) {
  report.input_format = sorting.input.format();
  report.layout = sorting.input.layout;
  if (sorting.input.npy && sorting.input.npy->structured) report.key_field = options.key_field;
  const NpyOutputFormats formats =
      npy_output_formats(sorting.input.npy, sorting.input.layout, options.output, options.index_output);
  open_outputs(options, formats, *outputs.run.progress, outputs, report);
  const SortOutcome sorted = merge_by_sorting(sorting, formats, options, outputs.run, report.host_memory_limit,
                                              std::size_t(report.threads));
  report.outcome.records = sorted.bytes / sorting.input.layout.record_size;
  report.outcome.bytes = sorted.bytes;
  report.outcome.duplicates_dropped = sorted.duplicates_dropped;
  report.outcome.verify_failure = sorted.verify_failure;
  report.gpu = sorting.plan.engine->stats();
  report.merged = true;
}

// Everything after validation: chooses the method, opens, merges (or sorts), writes the statistics
// and commits.
int merge_and_commit(const MergeOptions& options, const Stopwatch& wall, StatsOutput& stats, MergeReport& report) {
  const std::unique_ptr<MergeBySort> sorting = choose_method(options, report);
  Progress progress(progress_mode_beside_keys(options.progress, options.output == "-" || options.index_output == "-"));
  Outputs outputs;
  outputs.run.progress = &progress;
  if (sorting) {
    sort_method(options, *sorting, outputs, report);
  } else {
    merge_method(options, outputs, report);
  }
  progress.finish();
  std::optional<OutputFile>& output = outputs.output;
  std::optional<OutputFile>& index = outputs.index;
  if (!report.outcome.verify_failure.empty()) {
    const std::string message = (output ? output->display_name() : index->display_name()) + ": --verify failed: " +
                                report.outcome.verify_failure + "; " +
                                uncommitted_outputs(output, index);
    print_failure(message, kExitCheckFailed);
    report.end = RunEnd{kExitCheckFailed, message};
    report.wall_seconds = wall.seconds();
    write_failure_stats(stats, options, report);
    return kExitCheckFailed;
  }
  // As sort: every output closed and checked, then the statistics, then the renames.
  if (output) output->finish_writing();
  if (index) index->finish_writing();
  report.wall_seconds = wall.seconds();
  stats.prepare(merge_stats_json(options, report));
  stats.commit();
  if (index) index->commit();
  if (output) output->commit();
  stats.settle();
  progress.summary({"merged", report.outcome.bytes, report.wall_seconds, report.engine,
                    sorting ? sorting->plan.engine->devices() : std::string()});
  return kExitOk;
}

}  // namespace

int run_merge(const MergeOptions& options) {
  Stopwatch wall;
  const ClosedStandardDescriptors closed = hold_closed_standard_descriptors();
  MergeReport report;
  report.start = RunStart::now();
  validate_files(options, closed);
  // Before any input is opened: the streams (and empty files, read as streams) stay open throughout,
  // and the sort method opens every input at once; 100 empty inputs failed under a soft limit of 64
  // that the merge would have raised only later.
  (void)raise_open_file_limit();
  StatsOutput stats(options.stats, "merge", RMGSORT_VERSION, report.start);
  for (const std::string& path : options.inputs) report.inputs.push_back(input_name(path));
  report.threads = active_threads();
  if (options.type_option) report.layout = options.layout;
  try {
    report.host_memory_limit = validate_settings(options);
    return merge_and_commit(options, wall, stats, report);
  } catch (const MergeDisorder& e) {
    park_if_dying();
    // Exit code 1, as check's: the inputs are readable, but one is not what merge takes.
    const std::string message =
        std::string(e.what()) + "; merge takes inputs that are each sorted, and " + report.uncommitted;
    print_failure(message, kExitCheckFailed);
    report.end = RunEnd{kExitCheckFailed, message};
    report.wall_seconds = wall.seconds();
    write_failure_stats(stats, options, report);
    return kExitCheckFailed;
  } catch (const std::exception& e) {
    park_if_dying();  // an error that a dying run's handler caused says nothing (io/cleanup.hpp)
    report.end = RunEnd{exit_status_of(e), error_message(e, "merge")};
    report.wall_seconds = wall.seconds();
    write_failure_stats(stats, options, report);
    throw;
  }
}

}  // namespace rmgsort
