#include "app/distributed_sort_steps.hpp"

#include <sys/stat.h>

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>

#include "app/gpu_choice.hpp"
#include "core/error.hpp"
#include "gpu/devices.hpp"
#include "host/system_memory.hpp"
#include "report/size_parse.hpp"
#include "report/stopwatch.hpp"
#include "sort/cpu_engine.hpp"

namespace rmgsort {
namespace {

constexpr std::uint64_t kReadPieceBytes = std::uint64_t{64} << 20;

std::size_t active_threads() {
  return std::min<std::size_t>(std::size_t(tbb::this_task_arena::max_concurrency()),
                               tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
}

}  // namespace

RankSlice read_slice(const SortInput& input, std::uint64_t first, std::uint64_t count, bool verify) {
  Stopwatch watch;
  const std::size_t size = input.layout.record_size;
  const std::uint64_t bytes = count * size;
  RankSlice slice{HostBuffer(std::size_t(bytes)), first, count, 0, {}};
  // Pieces read on every thread: each faults in its own fresh pages, which one thread did at
  // 2.3 GB/s (1.6 GB slice, 16-thread host: 0.69 s read alone against 0.13 s for one process's
  // read of the whole file). A read error throws out of the loop (the first one wins).
  const std::uint64_t pieces = (bytes + kReadPieceBytes - 1) / kReadPieceBytes;
  tbb::parallel_for(std::uint64_t{0}, pieces, [&](std::uint64_t p) {
    const std::uint64_t end = std::min(bytes, (p + 1) * kReadPieceBytes);
    for (std::uint64_t done = p * kReadPieceBytes; done < end;) {
      const std::size_t got =
          input.input.read_at(slice.records.data() + done, std::size_t(end - done), first * size + done);
      if (got == 0)
        throw Error(input.input.display_name() + ": ended at byte " + std::to_string(first * size + done) +
                    " while " + std::to_string((first + count) * size) + " were expected (did it shrink?)");
      done += got;
    }
  }, tbb::simple_partitioner{});
  if (verify) slice.checksum = checksum_records(slice.records.data(), bytes, size);
  slice.seconds = watch.seconds();
  return slice;
}

std::optional<SortPlan> plan_share(const SortOptions& options, const RecordLayout& layout, std::uint64_t received,
                                   const ExchangeMemory& exchange, std::vector<int>& gpus_selected,
                                   std::string& too_large) {
  const bool positions = !options.index_output.empty();
  const RecordLayout wire = positions ? layout.with_position() : layout;
  const PositionSource source = positions ? PositionSource::appended : PositionSource::none;
  const std::uint64_t host_memory = options.host_memory.value_or(default_host_memory_bytes());
  SortPlan plan;
  GpuSpec spec = parse_gpu_spec(options.gpus);
  std::vector<int> listed;
  if (spec.kind == GpuSpec::Kind::list) listed = resolve_gpus(spec, cuda_device_count());
  const GpuEngineChooser chooser =
      choose_gpu_engine(GpuChoice{spec, listed, options.gpu_memory, active_threads()}, gpus_selected);
  plan.engine = chooser(wire, source, received, RoundSorting::one_at_a_time, plan.cpu_because);
  if (plan.engine) {
    plan.cpu_because.clear();
  } else {
    plan.engine = std::make_unique<CpuEngine>(wire, source);
  }
  const SortEngine& engine = *plan.engine;
  plan.path = SortPath::in_memory;
  plan.positions = source;
  plan.round_keys = received;
  plan.memory.limit = host_memory;
  plan.memory.input = received * wire.record_size;
  plan.memory.sort_scratch = engine.host_bytes_beside(received);
  plan.memory.outputs = engine.output_bytes(received);
  if (received > engine.round_keys()) {
    too_large = "its share of " + std::to_string(received) + " records is more than one sort on " +
                (engine.devices().empty() ? std::string("the CPU") : engine.devices()) + " takes (" +
                std::to_string(engine.round_keys()) + " records)";
    return std::nullopt;
  }
  const std::uint64_t exchanging = exchange.slice + exchange.destinations + exchange.staging + plan.memory.input;
  const std::uint64_t sorting = plan.memory.peak();
  if (std::max(exchanging, sorting) > host_memory) {
    too_large = "its share of " + std::to_string(received) + " records needs " +
                format_bytes_exactly(std::max(exchanging, sorting)) + " of host memory in memory (while exchanging: its " +
                "slice " + format_bytes_exactly(exchange.slice) + ", its destinations " + format_bytes_exactly(exchange.destinations) +
                ", the share " + format_bytes_exactly(plan.memory.input) +
                " and the staging " + format_bytes_exactly(exchange.staging) + "; while sorting: " + format_bytes_exactly(sorting) +
                "), more than " + host_memory_name(options.host_memory) + " " + format_bytes_exactly(host_memory);
    return std::nullopt;
  }
  return plan;
}

std::vector<std::optional<timespec>> input_write_times(const SortInput& input) {
  std::vector<std::optional<timespec>> times;
  for (const InputPart& part : input.input.parts()) {
    struct stat st {};
    // An input closed until read (more than the open-file limit holds): its name's file, while it is
    // still the one it was (another file by its name counts as written).
    const bool same_file = part.closed ? ::stat(part.file.path.c_str(), &st) == 0 && part.closed->identity &&
                                             part.closed->identity->device == st.st_dev &&
                                             part.closed->identity->inode == st.st_ino
                                       : ::fstat(part.file.fd, &st) == 0;
    if (part.file.regular && same_file) {
      times.push_back(st.st_mtim);
    } else {
      times.push_back(std::nullopt);
    }
  }
  return times;
}

void require_input_unchanged(const JobInput& job) {
  const std::vector<std::optional<timespec>> now = input_write_times(*job.input);
  for (std::size_t i = 0; i < now.size(); ++i) {
    const std::optional<timespec>& then = job.written[i];
    if (!then) continue;
    if (!now[i] || now[i]->tv_sec != then->tv_sec || now[i]->tv_nsec != then->tv_nsec)
      throw Error(job.input->input.parts()[i].file.display_name() +
                  ": written while the ranks read it: its records no longer match the splitters found in them; "
                  "nothing was committed");
  }
}

}  // namespace rmgsort
