#include "app/merge_by_sort.hpp"

#include <tbb/parallel_for.h>

#include <utility>

#include "app/gpu_choice.hpp"
#include "app/npy_output_headers.hpp"
#include "app/merge_input.hpp"
#include "core/error.hpp"
#include "gpu/devices.hpp"
#include "gpu/gpu_selection.hpp"
#include "host/merge_prefix.hpp"
#include "host/system_memory.hpp"
#include "sort/in_memory_sort.hpp"
#include "sort/merge_inputs.hpp"
#include "sort/read_keys.hpp"
#include "sort/rounds_sort.hpp"
#include "sort/spill_files_sort.hpp"

namespace rmgsort {
namespace {

// Sort's options for the same inputs, outputs and records.
SortOptions sort_options_of(const MergeOptions& options) {
  SortOptions sort;
  sort.inputs = options.inputs;
  sort.output = options.output;
  sort.layout = options.layout;
  sort.type = options.layout.key_type;
  sort.type_option = options.type_option;
  sort.record_options = options.record_options;
  sort.key_field = options.key_field;
  sort.index_output = options.index_output;
  sort.order = options.order;
  sort.gpus = options.gpus;
  sort.host_memory = options.host_memory;
  sort.gpu_memory = options.gpu_memory;
  sort.temp_dir = options.temp_dir;
  sort.threads = options.threads;
  sort.progress = options.progress;
  sort.verify = options.verify;
  sort.unique = options.unique;
  return sort;
}

// Each input's records, read into KEYS (the concatenation), checked on their own, in parallel over
// the inputs; throws the disorder of the earliest input out of order.
void check_each_input(const SortInput& input, const std::byte* keys, SortOrder order) {
  const RecordLayout& layout = input.layout;
  const std::vector<InputPart>& parts = input.input.parts();
  std::vector<std::uint64_t> starts(parts.size() + 1, 0);  // each input's first byte in KEYS
  for (std::size_t i = 0; i < parts.size(); ++i)
    starts[i + 1] = starts[i] + (parts[i].file.regular ? parts[i].file.size : 0);  // (else known to be empty)
  std::vector<std::optional<std::uint64_t>> descents(parts.size());
  // (first_descent itself runs in parallel over a large input.)
  tbb::parallel_for(std::size_t{0}, parts.size(), [&](std::size_t i) {
    const std::uint64_t count = (starts[i + 1] - starts[i]) / layout.record_size;
    descents[i] = first_descent(layout, order, keys + starts[i], count, layout.record_size, nullptr);
  });
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (!descents[i]) continue;
    const std::byte* key = keys + starts[i] + *descents[i] * layout.record_size + layout.key_offset;
    throw_merge_disorder(parts[i].file.display_name(), layout, order, parts[i].file.data_offset, *descents[i],
                         key - layout.record_size, key);
  }
}

// Through spill files the concatenation is read by the spill passes: each input is checked by a
// pass of its own first, through a merge window (sort/merge_inputs.hpp).
void check_inputs_first(const MergeOptions& options, const SortRun& run, std::uint64_t host_memory) {
  MergeInputFiles files = open_merge_inputs(options);
  const MergeJob job{files.layout, std::move(files.inputs), options.temp_dir, host_memory, 0, 1, run, 0,
                     host_memory_name(options.host_memory)};
  check_merge_inputs(job);
}

}  // namespace

std::unique_ptr<MergeBySort> plan_merge_by_sort(const MergeOptions& options, std::uint64_t host_memory,
                                                std::size_t threads) {
  const SortOptions sort = sort_options_of(options);
  auto sorting = std::make_unique<MergeBySort>();
  sorting->input = open_sort_input(sort);
  for (const InputPart& part : sorting->input.input.parts()) {
    // A regular sequence (io/input_sequence.hpp: regular files, and streams known to be empty) says
    // where each input lies in the concatenation.
    if (!sorting->input.input.regular() && !part.file.regular)
      throw Error(part.file.display_name() + ": --method sort reads regular files only (this input is a stream, "
                  "whose end among the others' records is not known once they are read as one, so its order "
                  "cannot be checked); use --method merge");
  }
  require_whole_records(sorting->input);
  const GpuSpec spec = parse_gpu_spec(options.gpus);
  std::vector<int> listed;
  if (spec.kind == GpuSpec::Kind::list) listed = resolve_gpus(spec, cuda_device_count());
  const GpuChoice choice{spec, listed, options.gpu_memory, threads};
  const PlanRequest request{sorting->input.layout, !options.index_output.empty(), sorting->input.input.display_name(),
                            host_memory, choose_gpu_engine(choice, sorting->gpus_selected),
                            host_memory_name(options.host_memory)};
  sorting->plan = plan_file(request, sorting->input.input.size());
  return sorting;
}

SortOutcome merge_by_sorting(MergeBySort& sorting, const NpyOutputFormats& formats, const MergeOptions& options,
                             SortRun& run, std::uint64_t host_memory, std::size_t threads) {
  SortPlan& plan = sorting.plan;
  SortInput& input = sorting.input;
  const std::uint64_t records = input.npy ? input.npy->count : 0;  // raw input: written for none, then again
  const auto with_final_count = [&](SortOutcome outcome, const NpyOutputHeads& heads) {
    if (formats.rewritten(options.unique) && outcome.verify_failure.empty())
      rewrite_npy_output_headers(formats, run, heads, records,
                                 outcome.bytes / input.layout.record_size - outcome.duplicates_dropped);
    return outcome;
  };
  if (plan.path == SortPath::spill) {
    check_inputs_first(options, run, host_memory);
    const NpyOutputHeads heads = write_npy_output_headers(formats, records, run);
    return with_final_count(sort_through_spill(plan, input.input, HostBuffer(), options.temp_dir, run), heads);
  }
  KeysInMemory keys =
      read_file_keys(plan, input.input, options.order, options.verify, unsigned(threads), *run.progress);
  run.progress->phase("checking the order of each input", 0);
  check_each_input(input, keys.keys.data(), options.order);
  const NpyOutputHeads heads = write_npy_output_headers(formats, records, run);
  return with_final_count(plan.path == SortPath::rounds ? sort_in_memory_rounds(*plan.engine, keys, run)
                                                         : sort_in_memory(*plan.engine, keys, run),
                           heads);
}

}  // namespace rmgsort
