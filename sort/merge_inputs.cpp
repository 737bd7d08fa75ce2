#include "sort/merge_inputs.hpp"

#include <algorithm>
#include <future>
#include <iterator>
#include <memory>
#include <optional>
#include <span>

#include "core/error.hpp"
#include "host/checksum.hpp"
#include "io/spill_file.hpp"
#include "io/temp_dir.hpp"
#include "report/size_parse.hpp"
#include "report/stopwatch.hpp"
#include "sort/merge_pass.hpp"
#include "sort/sorted_sink.hpp"

namespace rmgsort {
namespace {

// A run's file takes a row of 12 bytes per append (one per output buffer); a page of 64 KiB holds
// 5461 of them, over a GiB of records each.
constexpr std::size_t kRunTableBytes = std::size_t{64} << 10;
constexpr std::size_t kNoInput = SIZE_MAX;
constexpr std::size_t kPassedOn = SIZE_MAX;
// Descriptors open besides the streams when /proc/self/fd cannot be listed (standard ones, the
// outputs and their rings, the statistics).
constexpr std::size_t kDescriptorsGuessed = 16;

// Records in a nameless temporary file: a pass's run, or a raw stream copied.
struct TempRun {
  std::unique_ptr<SpillFile> file;
  std::uint64_t records = 0;
};

// What a pass merges: an input read from its file, or a temporary file (a run of a pass before, or
// an input copied, which is read and checked as that input).
struct Source {
  std::size_t input = kNoInput;
  std::shared_ptr<TempRun> run;
  std::uint64_t first_position = 0;  // an input's: its first record's place in the concatenation
  bool carries_positions = false;    // a run's records carry theirs
  // A run this pass made: the merges as they come it went through (sort/merge_plan.hpp:
  // runs_counter_arity); kPassedOn for what a pass hands on untouched.
  std::size_t level = kPassedOn;
};

// A pass's run written to its temporary file, one append in flight while the next batch is merged.
class RunSink final : public MergeSink {
 public:
  RunSink(SpillFile& file, Progress& progress, std::size_t record_size, std::size_t stride)
      : file_(file), progress_(progress), record_size_(record_size), stride_(stride) {}

  void append(std::span<const std::byte> records, std::span<const std::uint64_t> /*positions*/) override {
    wait();
    writing_ = std::async(std::launch::async, [this, records] {
      const std::uint64_t ends[1] = {records.size()};
      file_.append(records, ends);
    });
    bytes_ += records.size();
    progress_.advance(records.size() / stride_ * record_size_);
  }
  void finish() {
    wait();
    file_.finish_appending();
  }
  [[nodiscard]] std::uint64_t bytes() const { return bytes_; }

 private:
  void wait() {
    if (writing_.valid()) writing_.get();  // rethrows the append's Error
  }

  SpillFile& file_;
  Progress& progress_;
  std::size_t record_size_, stride_;
  std::uint64_t bytes_ = 0;
  std::future<void> writing_;  // declared last: waited for before the rest goes
};

// The last pass's records to the outputs: checked for --verify and filtered by --unique there
// (sort/sorted_sink.hpp). Only the last pass filters: a run of equal keys may span the groups of an
// earlier pass, whose runs keep every record. The batches lie in the pass's own output buffers,
// which nothing reads again but the writers, so the filter may move the records it keeps (as
// SortRun::unique asks).
class OutputSink final : public MergeSink {
 public:
  explicit OutputSink(SortedSink& sink) : sink_(sink) {}
  void append(std::span<const std::byte> records, std::span<const std::uint64_t> positions) override {
    sink_(SortedRound{records, positions});
  }

 private:
  SortedSink& sink_;
};

// A source's chunk: the pass's SHARE, but no more than the BYTES it holds (rounded up to pages, 64 KiB
// at least: merge_plan's smallest read). Many small inputs would otherwise each map four chunks of
// the share, untouched but for their first pages, which the buffers' huge pages fill 2 MiB at a
// time: 512 inputs of 250 KB took 2.6 s of page faults (27 920 of them) for 128 MB of records.
std::size_t source_chunk(std::size_t share, std::optional<std::uint64_t> bytes) {
  if (!bytes) return share;
  const std::uint64_t pages = std::max<std::uint64_t>((*bytes + 4095) / 4096 * 4096, std::uint64_t{64} << 10);
  return std::size_t(std::min<std::uint64_t>(share, pages));
}

class MergeDriver {
 public:
  MergeDriver(const MergeJob& job, MergeOutcome& outcome)
      : job_(job), layout_(job.layout), positions_(job.run.index_fd >= 0),
        wide_(layout_.record_size + (positions_ ? 8 : 0)), temp_dir_(TempDir::chosen(job.temp_dir)),
        progress_(*job.run.progress), outcome_(outcome) {}

  void run() {
    std::size_t streams = 0;
    for (const MergeInput& input : job_.inputs) streams += input.stream ? 1 : 0;
    if (const std::uint64_t least = merge_host_memory_least(wide_); job_.host_memory < least)
      throw Error(job_.host_memory_name + " " + format_bytes_exactly(job_.host_memory) +
                  " is too small to merge: give it at least " + format_bytes_exactly(least) +
                  ": two output buffers and two inputs' read chunks of 64 KiB or a record");
    const std::size_t open_files = raise_open_file_limit();
    outcome_.plan = plan_merge(job_.host_memory, wide_, open_files > streams ? open_files - streams : 0,
                               job_.fan_in_limit);
    outcome_.plan.runs_held = job_.runs_held_limit > 0
                                  ? job_.runs_held_limit
                                  : runs_held_at_most(outcome_.plan, open_descriptors(streams + kDescriptorsGuessed));
    std::vector<Source> sources = input_sources();
    while (sources.size() > outcome_.plan.fan_in) sources = merge_into_runs(std::move(sources));
    merge_into_output(sources);
  }

 private:
  // The inputs, positions counted; with --index-output, a raw stream before the last input is copied
  // first, as the positions after it depend on its length.
  std::vector<Source> input_sources() {
    std::vector<Source> sources;
    std::uint64_t position = 0;
    for (std::size_t i = 0; i < job_.inputs.size(); ++i) {
      Source source{i, nullptr, position, false};
      const MergeInput& input = job_.inputs[i];
      if (positions_ && !input.records && i + 1 < job_.inputs.size()) {
        source.run = copy_stream(input);
        position += source.run->records;
      } else {
        position += input.records.value_or(0);
      }
      sources.push_back(std::move(source));
    }
    return sources;
  }

  std::shared_ptr<TempRun> copy_stream(const MergeInput& input) {
    progress_.phase("copying " + input.check.name + " to " + temp_dir_.path, 0);
    auto run = std::make_shared<TempRun>();
    run->file = std::make_unique<SpillFile>(temp_dir_, 1, kRunTableBytes);
    const std::unique_ptr<MergeSource> source =
        input_source(input.open(), merge_chunk_bytes(outcome_.plan, 1, layout_.record_size));
    std::uint64_t bytes = 0;
    for (std::span<const std::byte> chunk = source->next(); !chunk.empty(); chunk = source->next()) {
      const std::uint64_t ends[1] = {chunk.size()};
      run->file->append(chunk, ends);
      bytes += chunk.size();
      progress_.advance(chunk.size());
    }
    run->file->finish_appending();
    run->records = bytes / layout_.record_size;  // a cut last record is refused when the copy is read
    outcome_.temporary_bytes += bytes;
    ++outcome_.inputs_copied;
    return run;
  }

  // One pass that merges groups of the sources into runs (sort/merge_plan.hpp says which). A source
  // merged lets its run go at once: its descriptor is free for the runs this pass makes.
  std::vector<Source> merge_into_runs(std::vector<Source> sources) {
    Stopwatch pass;
    MergePassReport report{sources.size(), 0, 0, 0};
    const std::size_t number = outcome_.passes.size() + 1;
    std::vector<Source> next;
    std::size_t at = 0;
    const std::vector<std::size_t> groups = merge_pass_groups(sources.size(), outcome_.plan.fan_in);
    std::size_t arity = 0;  // merging the runs as they come only when they would be too many
    if (runs_held_unmerged(sources, groups) > outcome_.plan.runs_held) {
      const auto made = std::size_t(std::count_if(groups.begin(), groups.end(), [](std::size_t g) { return g > 1; }));
      const std::size_t held_before = runs_in(sources);
      const std::size_t room = outcome_.plan.runs_held > held_before ? outcome_.plan.runs_held - held_before : 0;
      arity = std::max<std::size_t>(2, runs_counter_arity(made, room, outcome_.plan.fan_in));
    }
    for (std::size_t size : groups) {
      const std::span<Source> group(sources.data() + at, size);
      at += size;
      if (size == 1) {
        next.push_back(std::move(group[0]));
        next.back().level = kPassedOn;
        continue;
      }
      next.push_back(merge_into_run(group, number, report));
      next.back().level = 0;
      for (Source& source : group) source.run.reset();
      hold_runs_within_plan(next, arity, runs_in(std::span<const Source>(sources).subspan(at)), number, report);
    }
    report.seconds = pass.seconds();
    outcome_.passes.push_back(report);
    return next;
  }

  // Each run holds a descriptor until a pass merges it (a nameless file cannot be opened again). With
  // ARITY (not 0), the newest ARITY runs of this pass, when of one level, are merged into one of the
  // next (runs_counter_arity). And while this pass's runs and the HELD_ELSEWHERE ones of the pass
  // before are still more than the plan allows (runs_held_at_most), the newest sources are merged
  // into one run. Either way the merged sources are consecutive, so that the merge stays stable.
  // Without it, 300 inputs under `ulimit -n 64` (fan-in 2) held 150 runs.
  void hold_runs_within_plan(std::vector<Source>& next, std::size_t arity, std::size_t held_elsewhere,
                             std::size_t number, MergePassReport& report) {
    for (;;) {
      std::size_t size = 0;
      if (arity >= 2 && newest_of_one_level(next, arity)) {
        size = arity;
      } else if (next.size() >= 2 && runs_in(next) + held_elsewhere > outcome_.plan.runs_held) {
        size = std::min(next.size(), outcome_.plan.fan_in);
      } else {
        return;
      }
      std::vector<Source> newest(std::make_move_iterator(next.end() - std::ptrdiff_t(size)),
                                 std::make_move_iterator(next.end()));
      next.resize(next.size() - size);
      std::size_t level = 0;
      for (const Source& source : newest) level = std::max(level, source.level == kPassedOn ? 0 : source.level + 1);
      next.push_back(merge_into_run(newest, number, report));
      next.back().level = level;
    }
  }

  // The most runs a pass over SOURCES in GROUPS holds at once when none is merged early: those it
  // made or passed on, and those of SOURCES not merged yet. (A pass over runs alone never holds more
  // than it started with: each group of them becomes one.)
  static std::size_t runs_held_unmerged(std::span<const Source> sources, std::span<const std::size_t> groups) {
    std::size_t remaining = runs_in(sources), held = 0, peak = remaining, at = 0;
    for (const std::size_t size : groups) {
      const std::size_t group_runs = runs_in(sources.subspan(at, size));
      at += size;
      remaining -= group_runs;
      held += size == 1 ? group_runs : 1;
      peak = std::max(peak, held + remaining);
    }
    return peak;
  }

  // Whether the newest COUNT of SOURCES are runs this pass made, all of one level.
  static bool newest_of_one_level(std::span<const Source> sources, std::size_t count) {
    if (sources.size() < count) return false;
    const std::span<const Source> newest = sources.last(count);
    return std::all_of(newest.begin(), newest.end(), [&](const Source& source) {
      return source.run != nullptr && source.level != kPassedOn && source.level == newest.front().level;
    });
  }

  // GROUP merged into a new run, counted in REPORT.
  Source merge_into_run(std::span<const Source> group, std::size_t number, MergePassReport& report) {
    progress_.phase("pass " + std::to_string(number) + ": merging " + describe(group) + " into a temporary file in " +
                        temp_dir_.path,
                    known_bytes(group));
    auto run = std::make_shared<TempRun>();
    run->file = std::make_unique<SpillFile>(temp_dir_, 1, kRunTableBytes);
    const MergePassSpec spec = pass_spec(wide_, false);
    MergeOutputBuffers buffers(spec);
    RunSink sink(*run->file, progress_, layout_.record_size, wide_);
    run->records = merge(group, spec, buffers, sink);
    sink.finish();
    outcome_.temporary_bytes += sink.bytes();
    report.runs += 1;
    report.records += run->records;
    return Source{kNoInput, std::move(run), 0, positions_};
  }

  static std::size_t runs_in(std::span<const Source> sources) {
    return std::size_t(std::count_if(sources.begin(), sources.end(), [](const Source& s) { return s.run != nullptr; }));
  }

  void merge_into_output(const std::vector<Source>& sources) {
    Stopwatch pass;
    const std::uint64_t bytes = known_bytes(sources);
    progress_.phase("merging " + describe(sources), bytes);
    const MergePassSpec spec = pass_spec(layout_.record_size, positions_);
    MergeOutputBuffers buffers(spec);
    SortedSink sorted(job_.run, layout_, bytes / layout_.record_size);
    OutputSink sink(sorted);
    const std::uint64_t records = merge(sources, spec, buffers, sink);
    outcome_.verify_failure = sorted.finish(input_checksum_);
    outcome_.duplicates_dropped = sorted.duplicates_dropped();
    outcome_.passes.push_back({sources.size(), 1, records, pass.seconds()});
    outcome_.records = records;
    outcome_.bytes = records * layout_.record_size;
  }

  // A pass's output: records OUT_STRIDE apart, positions apart when POSITIONS.
  [[nodiscard]] MergePassSpec pass_spec(std::size_t out_stride, bool positions) const {
    return {layout_, job_.run.order, out_stride, positions, outcome_.plan.output_buffer_bytes, job_.threads};
  }

  // Merges GROUP into SINK as SPEC says, through BUFFERS.
  std::uint64_t merge(std::span<const Source> group, const MergePassSpec& spec, MergeOutputBuffers& buffers,
                      MergeSink& sink) {
    std::size_t in_stride = layout_.record_size;
    for (const Source& source : group)
      if (source.carries_positions) in_stride = wide_;
    const std::size_t share = merge_chunk_bytes(outcome_.plan, group.size(), in_stride);
    std::vector<std::unique_ptr<MergeWindow>> windows;
    for (const Source& source : group) {
      const std::size_t chunk = source_chunk(share, source_bytes(source));
      WindowInput check = source.input == kNoInput ? WindowInput{} : job_.inputs[source.input].check;
      check.checksum = check.checked && job_.run.verify;
      std::unique_ptr<MergeSource> bytes = source.run ? run_source(*source.run->file, chunk)
                                                      : input_source(job_.inputs[source.input].open(), chunk);
      windows.push_back(std::make_unique<MergeWindow>(std::move(bytes), layout_, job_.run.order,
                                                      source.carries_positions ? wide_ : layout_.record_size, chunk,
                                                      source.carries_positions, source.first_position, check));
    }
    const std::uint64_t records = run_merge_pass(spec, windows, buffers, sink);
    for (const auto& window : windows) input_checksum_ += window->checksum();
    return records;
  }

  // The bytes SOURCE holds (with the positions a run carries), or nullopt for a stream not copied.
  std::optional<std::uint64_t> source_bytes(const Source& source) const {
    if (source.run) return source.run->records * (source.carries_positions ? wide_ : layout_.record_size);
    if (const auto& known = job_.inputs[source.input].records) return *known * layout_.record_size;
    return std::nullopt;
  }

  // "8 inputs", or after passes "2 runs and 5 inputs" (a copied stream counts as its input).
  static std::string describe(std::span<const Source> sources) {
    std::size_t runs = 0;
    for (const Source& source : sources) runs += source.input == kNoInput ? 1 : 0;
    const std::size_t inputs = sources.size() - runs;
    const auto count = [](std::size_t n, const char* noun) {
      return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
    };
    if (runs == 0) return count(inputs, "input");
    if (inputs == 0) return count(runs, "run");
    return count(runs, "run") + " and " + count(inputs, "input");
  }

  // The bytes of records in SOURCES, or 0 when one's length is not known yet (a stream).
  std::uint64_t known_bytes(std::span<const Source> sources) const {
    std::uint64_t records = 0;
    for (const Source& source : sources) {
      if (source.run) {
        records += source.run->records;
      } else if (const auto& known = job_.inputs[source.input].records) {
        records += *known;
      } else {
        return 0;
      }
    }
    return records * layout_.record_size;
  }

  const MergeJob& job_;
  const RecordLayout& layout_;
  bool positions_;
  std::size_t wide_;  // a run's records: with their positions when --index-output wants them
  TempDir temp_dir_;
  Progress& progress_;
  MergeOutcome& outcome_;
  KeyChecksum input_checksum_;  // of every input, as its pass read it
};

}  // namespace

void check_merge_inputs(const MergeJob& job) {
  RMGSORT_EXPECTS(job.run.progress != nullptr, "check_merge_inputs: a progress");
  const std::size_t record_size = job.layout.record_size;
  const MergePlan plan = plan_merge(job.host_memory, record_size, raise_open_file_limit());
  const std::size_t share = merge_chunk_bytes(plan, 1, record_size);
  for (const MergeInput& input : job.inputs) {
    job.run.progress->phase("checking the order of " + input.check.name,
                            input.records.value_or(0) * record_size);
    const std::optional<std::uint64_t> bytes =
        input.records ? std::optional<std::uint64_t>(*input.records * record_size) : std::nullopt;
    const std::size_t chunk = source_chunk(share, bytes);
    MergeWindow window(input_source(input.open(), chunk), job.layout, job.run.order, record_size, chunk, false, 0,
                       input.check);
    do {
      window.refill();
      const std::uint64_t loaded = window.run().count;
      window.consume(loaded);
      job.run.progress->advance(loaded * record_size);
    } while (!window.ended());
  }
}

void merge_inputs(const MergeJob& job, MergeOutcome& outcome) {
  RMGSORT_EXPECTS(job.run.progress != nullptr && job.threads > 0, "merge_inputs: a progress and threads");
  MergeDriver(job, outcome).run();
}

}  // namespace rmgsort
