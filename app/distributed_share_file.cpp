#include "app/distributed_share_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include "app/distributed_outputs.hpp"
#include "app/npy_output_headers.hpp"
#include "app/gpu_choice.hpp"
#include "core/error.hpp"
#include "gpu/devices.hpp"
#include "host/system_memory.hpp"
#include "io/blocking_io.hpp"
#include "io/input_sequence.hpp"
#include "io/npy_format.hpp"
#include "dist/rank_agreement.hpp"
#include "report/stopwatch.hpp"
#include "report/progress.hpp"
#include "sort/in_memory_sort.hpp"
#include "sort/read_keys.hpp"
#include "sort/rounds_sort.hpp"
#include "sort/spill_files_sort.hpp"

namespace rmgsort {
namespace {

using dist::agreed;

unsigned active_threads() {
  return unsigned(std::min<std::size_t>(std::size_t(tbb::this_task_arena::max_concurrency()),
                                        tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism)));
}

}  // namespace

ShareFile ShareFile::create(const std::string& temp_dir) {
  ShareFile file;
  file.directory_ = TempDir::chosen(temp_dir);
  file.fd_ = UniqueFd(::open(file.directory_.path.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  if (!file.fd_.valid()) throw_errno(file.directory_.name, "cannot create the file of this rank's share");
  return file;
}

dist::ShareSink ShareFile::sink() const {
  const int fd = fd_.get();
  const std::string name = directory_.name + ": this rank's share";
  return [fd, name](std::uint64_t offset, const std::byte* data, std::size_t bytes) {
    pwrite_all(fd, name, data, bytes, offset);
  };
}

SortOutcome ShareFile::sort_into(const SortOptions& options, const RecordLayout& layout, std::uint64_t records,
                                 int output_fd, const std::string& output_name, std::uint64_t offset,
                                 std::optional<SortPlan>& plan, std::vector<int>& gpus) {
  if (records == 0) return SortOutcome{};
  // The file by a name the readers can open (again, with O_DIRECT where they like).
  std::vector<InputPart> parts;
  parts.push_back(open_input_part("/proc/self/fd/" + std::to_string(fd_.get()), "records"));
  InputSequence input(std::move(parts), layout);
  GpuSpec spec = parse_gpu_spec(options.gpus);
  std::vector<int> listed;
  if (spec.kind == GpuSpec::Kind::list) listed = resolve_gpus(spec, cuda_device_count());
  const PlanRequest request{layout, false, "this rank's share", options.host_memory.value_or(default_host_memory_bytes()),
                            choose_gpu_engine(GpuChoice{spec, listed, options.gpu_memory, active_threads()}, gpus),
                            host_memory_name(options.host_memory)};
  plan.emplace(plan_file(request, records * layout.record_size));
  if (lseek(output_fd, off_t(offset), SEEK_SET) < 0) throw_errno(output_name, "cannot seek to this rank's records");
  Progress progress(ProgressMode::never);
  const SortRun run{options.order, false, false, output_fd, output_name, -1, "", &progress, {}};
  if (plan->path == SortPath::spill) return sort_through_spill(*plan, input, HostBuffer(), options.temp_dir, run);
  KeysInMemory keys = read_file_keys(*plan, input, options.order, false, active_threads(), progress);
  if (plan->path == SortPath::rounds) return sort_in_memory_rounds(*plan->engine, keys, run);
  return sort_in_memory(*plan->engine, keys, run);
}

// A share received into a file: sorted from there by today's file path and written at the rank's
// offset, into an output sized first to its end (so that no writer's end of file cuts another's).
int sort_share_file(const dist::Communicator& communicator, const SortOptions& options, const JobInput& job,
                    ShareFile& share, DistributedReport& report, std::optional<StatsOutput>& stats) {
  const int me = communicator.rank();
  const SortInput& input = *job.input;
  const RecordLayout& layout = input.layout;
  report.kept_total = job.total;
  Outputs outputs = open_outputs(communicator, options);
  dist::SharedOutput& output = *outputs.output;
  const NpyOutputFormats formats = npy_output_formats(input.npy, layout, options.output, options.index_output);
  const std::vector<std::byte> header =
      formats.array ? npy_header_for(*formats.array, job.total) : std::vector<std::byte>();
  const std::uint64_t header_bytes = options.output_parts && me != 0 ? 0 : header.size();
  const std::uint64_t offset = header_bytes + (options.output_parts ? 0 : job.first) * layout.record_size;
  agreed(communicator, [&] {
    if (!output.commits()) return;
    const std::uint64_t end = header_bytes + (options.output_parts ? job.count : job.total) * layout.record_size;
    struct stat info {};
    if (fstat(output.fd(), &info) != 0) throw_errno(output.path(), "cannot stat the output");
    if (S_ISREG(info.st_mode) && ftruncate(output.fd(), off_t(end)) != 0)  // (/dev/null: written in place)
      throw_errno(output.path(), "cannot size the output");
    if (me == 0) write_at(output, header.data(), header.size(), 0);
  });
  agreed(communicator, [&] {
    Stopwatch watch;
    report.outcome =
        share.sort_into(options, layout, job.count, output.fd(), output.path(), offset, report.plan, report.gpus);
    report.sort_seconds = report.outcome->times.sort + report.outcome->times.partition;
    report.write_seconds = report.outcome->times.write;
    output.finish_writing();
  });
  return finish(communicator, options, report, stats, outputs);
}

}  // namespace rmgsort
