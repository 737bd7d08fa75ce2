// rmgsort sort: validate -> plan -> execute -> report. The plan (sort/sort_plan.hpp) chooses the
// path by size and the engine: keys that one sort of the engine takes are read into memory and
// sorted at once (sort/in_memory_sort.hpp); keys that fit host memory but not the GPUs are
// partitioned on the CPU into rounds that the GPUs sort one after the other (sort/rounds_sort.hpp);
// keys beyond --host-memory go through spill files (sort/spill_files_sort.hpp). The output is a
// temporary file renamed over the target only when every step (and --verify) succeeded.
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <unistd.h>

#include "app/commands.hpp"
#include "app/error_message.hpp"
#include "app/gpu_choice.hpp"
#include "app/npy_output_headers.hpp"
#include "app/output_memory.hpp"
#include "app/separate_outputs.hpp"
#include "app/sort_input.hpp"
#include "app/sort_report.hpp"
#include "report/stats.hpp"
#include "report/stopwatch.hpp"
#include "core/error.hpp"
#include "gpu/devices.hpp"
#include "gpu/gpu_selection.hpp"
#include "host/system_memory.hpp"
#include "io/cleanup.hpp"
#include "io/input_sequence.hpp"
#include "io/output_file.hpp"
#include "io/standard_descriptors.hpp"
#include "io/temp_dir.hpp"
#include "sort/gpu_engine.hpp"
#include "sort/in_memory_sort.hpp"
#include "sort/merge_plan.hpp"
#include "sort/read_keys.hpp"
#include "sort/rounds_sort.hpp"
#include "sort/sort_plan.hpp"
#include "sort/spill_files_sort.hpp"

namespace rmgsort {
namespace {

// The threads oneTBB will use: the arena's, bounded by a --threads global_control.
std::size_t active_threads() {
  return std::min<std::size_t>(std::size_t(tbb::this_task_arena::max_concurrency()),
                               tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
}

// What validation establishes for the plan and the report.
struct Validated {
  std::string input_name;  // the inputs' names joined by ", "; "stdin" for "-"
  GpuSpec gpu_spec;        // --gpus
  std::vector<int> listed;  // a device list, resolved; empty for all and none (app/gpu_choice.hpp)
  std::uint64_t host_memory = 0;
};

// The name of INPUT in messages: "stdin" for "-".
std::string input_display_name(const std::string& input) { return input == "-" ? "stdin" : input; }

// The inputs' names joined by ", ", as messages and statistics give them.
std::string input_names(const SortOptions& options) {
  std::string names;
  for (const std::string& input : options.inputs) names += (names.empty() ? "" : ", ") + input_display_name(input);
  return names;
}

// What must hold before any file is created, the statistics' included: the standard descriptors
// and the files the run writes (none is another one, nor an input it would destroy); `closed` says
// which standard descriptors were closed at the start.
void validate_files(const SortOptions& options, const ClosedStandardDescriptors& closed) {
  const auto stdin_inputs = std::count(options.inputs.begin(), options.inputs.end(), "-");
  if (stdin_inputs > 1)
    throw Error("standard input (-) is given " + std::to_string(stdin_inputs) + " times among the inputs: it can be "
                "read once");
  if (closed.input && stdin_inputs > 0) throw Error("standard input is closed: give the input file's name");
  if (closed.output && options.output == "-")
    throw Error("standard output is closed: nowhere to write the sorted keys; use -o FILE");
  if (closed.output && options.stats == "-")
    throw Error("--stats -: standard output is closed; give --stats a file name");
  if (closed.output && options.index_output == "-")
    throw Error("--index-output -: standard output is closed; give --index-output a file name");
  for (const std::string& input : options.inputs) refuse_closed_standard_descriptor(input, input);
  require_streams_named_once(options.inputs);
  if (!options.output.empty()) refuse_closed_standard_descriptor(options.output, "-o " + options.output);
  if (!options.index_output.empty())
    refuse_closed_standard_descriptor(options.index_output, "--index-output " + options.index_output);
  if (!options.stats.empty()) refuse_closed_standard_descriptor(options.stats, "--stats " + options.stats);
  if (options.stats == "-" && options.output == "-")
    throw Error("--stats -: standard output already carries the sorted keys; give --stats a file name");
  if (options.index_output == "-" && options.output == "-")
    throw Error("--index-output -: standard output already carries the sorted records; give -o or --index-output a file name");
  if (options.stats == "-" && options.index_output == "-")
    throw Error("--stats -: standard output already carries the positions (--index-output -); give --stats a file name");
  require_separate_outputs({options.inputs, options.output, options.index_output, options.stats},
                           {"the sorted keys", /*sorts_in_place=*/true});
}

// The rest that can be validated before any data moves (a failure here is written to --stats):
// the GPUs asked for, the temporary directory, the host memory.
Validated validate_settings(const SortOptions& options) {
  Validated validated;
  validated.input_name = input_names(options);
  validated.host_memory = options.host_memory.value_or(default_host_memory_bytes());
  validated.gpu_spec = parse_gpu_spec(options.gpus);
  // Only a device list starts the CUDA driver here (to check it); --gpus all finds the GPUs when the
  // plan asks for them, which a small input does not.
  if (validated.gpu_spec.kind == GpuSpec::Kind::list)
    validated.listed = resolve_gpus(validated.gpu_spec, cuda_device_count());
  require_temp_dir_option(options.temp_dir);
  return validated;
}

// `gpus_selected` receives the GPUs the plan chose from; it must outlive the request.
PlanRequest plan_request(const SortOptions& options, const Validated& validated, const RecordLayout& layout,
                         std::vector<int>& gpus_selected) {
  const GpuChoice choice{validated.gpu_spec, validated.listed, options.gpu_memory, active_threads()};
  return PlanRequest{layout, !options.index_output.empty(), validated.input_name, validated.host_memory,
                     choose_gpu_engine(choice, gpus_selected), host_memory_name(options.host_memory)};
}

// Reads what the plan keeps in memory (a stream first, and plans it then) and runs the plan's
// driver, recording the read and the driver's outcome in `report` as each ends. `plan` is a file's
// plan, or empty for a stream. What precedes the records in the outputs (a .npy header) is written
// once the input is known to be what it says: read whole, or, through spill files, a file (its size
// checked) or a stream (its length checked before any record is written). Returns where the
// outputs' .npy headers were written.
NpyOutputHeads execute(const SortOptions& options, const PlanRequest& request, SortInput& sort_input,
                       const NpyOutputFormats& formats, const OutputFile* output, std::optional<SortPlan>& plan,
                       SortRun& run, SortReport& report) {
  InputSequence& input = sort_input.input;
  Stopwatch phase;  // the phases start here; validation and device discovery count in wall time only
  KeysInMemory keys;
  OutputMemory output_memory;  // an output on tmpfs: the keys' home, or its pages reserved beside the sort
  const bool reads = !plan || plan->path != SortPath::spill;  // a spilled file is read by its passes
  if (!plan) {
    // (A stream read to its end had each input's length checked against its .npy header by its reader.)
    keys = read_stream_keys(input, request.host_memory, *run.progress);
    plan = plan_stream(request, keys.bytes, keys.complete);
    prepare_stream_keys(*plan, keys, options.verify);
  } else if (plan->path != SortPath::spill) {
    const auto threads = unsigned(active_threads());
    output_memory = output_memory_for(*plan, input, output, formats, run, threads);
    run.output_reserved = output_memory.reservation != nullptr;
    keys = read_file_keys(*plan, input, options.order, options.verify, threads, *run.progress,
                          std::move(output_memory.pages));
  }
  if (reads) report.read = ReadReport{phase.lap(), keys.bytes, keys.direct, keys.reserve_waited_seconds};
  // (A stream's .npy count is every input's together once its length is known; raw input's headers
  // are written for none and again at the end.)
  const auto write_heads = [&sort_input, &formats, &run] {
    return write_npy_output_headers(formats, sort_input.npy ? sort_input.npy->count : 0, run);
  };
  NpyOutputHeads heads;
  if (plan->path == SortPath::spill && !input.regular())
    run.write_heads = [&write_heads, &heads] { heads = write_heads(); };
  else
    heads = write_heads();
  switch (plan->path) {
    case SortPath::in_memory:
      report.outcome = sort_in_memory(*plan->engine, keys, run);
      if (output_memory.reservation) {
        output_memory.reservation->release_unwritten();
        report.output_reservation = OutputReservationReport{output_memory.reservation->reserved(),
                                                            output_memory.reservation->seconds_to_reserve_all()};
      }
      break;
    case SortPath::rounds: report.outcome = sort_in_memory_rounds(*plan->engine, keys, run); break;
    // What a stream's prefix holds leads the streaming pass.
    case SortPath::spill:
      report.outcome = sort_through_spill(*plan, input, std::move(keys.keys), options.temp_dir, run);
      break;
  }
  return heads;
}

// A failed run's statistics (README.md, --stats). Should they not be written, standard error says
// so, and the run still ends with its own error.
void write_failure_stats(StatsOutput& stats, const SortOptions& options, const std::optional<SortPlan>& plan,
                         const SortReport& report) noexcept {
  try {
    stats.write_failure(sort_stats_json(options, plan ? &*plan : nullptr, report));
  } catch (const std::exception& e) {
    print_statistics_not_written(e);
  }
}

// Everything after validation: opens, plans, sorts, writes the statistics and commits. `report`
// and `plan` record what the run reached, for the statistics of a run that throws.
int sort_and_commit(const SortOptions& options, const Validated& validated, const Stopwatch& wall, StatsOutput& stats,
                    std::optional<SortPlan>& plan, SortReport& report) {
  SortInput sort_input = open_sort_input(options);
  const InputSequence& input = sort_input.input;
  report.input_format = sort_input.format();
  report.layout = sort_input.layout;
  if (sort_input.npy && sort_input.npy->structured) report.key_field = options.key_field;
  require_whole_records(sort_input);
  const PlanRequest request = plan_request(options, validated, sort_input.layout, report.gpus);
  // A file is planned from its size (its data's), before anything is created; a stream once its
  // prefix is read.
  if (input.regular()) plan = plan_file(request, input.size());
  const NpyOutputFormats formats =
      npy_output_formats(sort_input.npy, sort_input.layout, options.output, options.index_output);
  require_rewritable_npy_paths(formats, options.unique, options.output, options.index_output);
  // "" when only the positions are written (--index-output without -o).
  std::optional<OutputFile> output, index;
  if (!options.output.empty()) output = OutputFile::create(options.output);
  if (!options.index_output.empty()) index = OutputFile::create(options.index_output);
  Progress progress(progress_mode_beside_keys(options.progress, options.output == "-" || options.index_output == "-"));
  SortRun run{options.order, options.verify, options.unique, -1, "", -1, "", &progress, {}};
  if (output) {
    run.output_fd = output->fd();
    run.output_name = output->writer_name();
  }
  if (index) {
    run.index_fd = index->fd();
    run.index_name = index->writer_name();
  }
  require_rewritable_npy_outputs(formats, options.unique, run);  // before anything is read
  const NpyOutputHeads heads =
      execute(options, request, sort_input, formats, output ? &*output : nullptr, plan, run, report);
  progress.finish();
  if (!report.outcome->verify_failure.empty()) {
    const std::string message = (output ? output->display_name() : index->display_name()) + ": --verify failed: " +
                                report.outcome->verify_failure + "; " +
                                uncommitted_outputs(output, index);
    print_failure(message, kExitCheckFailed);
    report.end = RunEnd{kExitCheckFailed, message};
    report.wall_seconds = wall.seconds();
    write_failure_stats(stats, options, plan, report);
    return kExitCheckFailed;
  }
  if (formats.rewritten(options.unique))
    rewrite_npy_output_headers(formats, run, heads, sort_input.npy ? sort_input.npy->count : 0,
                               report.outcome->bytes / sort_input.layout.record_size -
                                   report.outcome->duplicates_dropped);
  // Every output is closed and checked before the statistics are written (statistics on standard
  // output cannot be taken back); only the renames are left. The statistics' goes first: should it
  // fail, the sorted keys have not replaced anything. Should a later one fail, the caller replaces
  // the statistics by a failed run's; should a signal stop the run before the last rename, its
  // handler does (StatsOutput::settle). (The renames take microseconds, uncounted.)
  if (output) output->finish_writing();
  if (index) index->finish_writing();
  report.wall_seconds = wall.seconds();
  stats.prepare(sort_stats_json(options, &*plan, report));
  stats.commit();
  if (index) index->commit();
  if (output) output->commit();
  stats.settle();
  progress.summary({"sorted", report.outcome->bytes, report.wall_seconds, std::string(plan->engine->name()),
                    plan->engine->devices()});
  return kExitOk;
}

}  // namespace

int run_sort(const SortOptions& options) {
  Stopwatch wall;
  // Before any file is opened: a closed standard descriptor must not become one of ours.
  const ClosedStandardDescriptors closed = hold_closed_standard_descriptors();
  SortReport report;
  report.start = RunStart::now();
  // Errors up to here (the options that do not parse, the files the run writes, the statistics' own
  // file) leave no statistics: there is nowhere safe to write them yet.
  validate_files(options, closed);
  // Every input is opened before any is read (several inputs are one sequence): as merge does, the
  // soft limit on open files is raised to the hard one first.
  (void)raise_open_file_limit();
  StatsOutput stats(options.stats, "sort", RMGSORT_VERSION, report.start);
  report.input_name = input_names(options);
  report.host_memory_limit = options.host_memory.value_or(0);
  report.threads = active_threads();
  if (options.type_option) report.layout = options.layout;
  std::optional<SortPlan> plan;  // outlives the outputs: a failed run's statistics still ask its engine
  try {
    const Validated validated = validate_settings(options);
    report.host_memory_limit = validated.host_memory;
    return sort_and_commit(options, validated, wall, stats, plan, report);
  } catch (const std::exception& e) {
    // An error that a dying run's handler caused (io/cleanup.hpp) says nothing: the signal ends it.
    park_if_dying();
    // What was not committed is gone (the outputs' destructors); the statistics say why.
    report.end = RunEnd{exit_status_of(e), error_message(e, "sort")};
    report.wall_seconds = wall.seconds();
    write_failure_stats(stats, options, plan, report);
    throw;
  }
}

}  // namespace rmgsort
