// rmgsort sort, three ways, by size: keys that fit the sort engine are read into memory and sorted at
// once; keys that fit host memory but not the GPUs are partitioned on the CPU into rounds that the
// GPUs sort one after the other (app/sort_rounds.hpp); keys beyond --host-memory go through spill
// files (app/spill_sort.hpp). The output is a temporary file renamed over the target only when
// every step (and --verify) succeeded.
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

#include "app/commands.hpp"
#include "sort/gpu_engine.hpp"
#include "app/size_parse.hpp"
#include "sort/rounds_sort.hpp"
#include "sort/sorted_sink.hpp"
#include "app/spill_sort.hpp"
#include "app/stats.hpp"
#include "app/stopwatch.hpp"
#include "app/whole_keys.hpp"
#include "gpu/devices.hpp"
#include "gpu/gpu_selection.hpp"
#include "host/checksum.hpp"
#include "host/order_check.hpp"
#include "host/radix_sort.hpp"
#include "host/radix_sort_config.hpp"
#include "host/system_memory.hpp"
#include "core/error.hpp"
#include "io/file_identity.hpp"
#include "io/host_buffer.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "io/standard_descriptors.hpp"
#include "io/uring_reader.hpp"
#include "io/uring_writer.hpp"

namespace rmgsort {
namespace {

struct PhaseTimes {
  double allocate = 0, partition = 0, sort = 0, verify = 0, write = 0;  // reading is timed in run_sort
};

// The threads oneTBB will use: the arena's, bounded by a --threads global_control.
std::size_t active_threads() {
  return std::min<std::size_t>(std::size_t(tbb::this_task_arena::max_concurrency()),
                               tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
}

void require_directory(const std::string& option, const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) throw_errno(path, option + " is not usable");
  if (!S_ISDIR(info.st_mode)) throw Error(path + ": " + option + " is not a directory");
}

// "7.81 KiB (8000 bytes)": exact where rounding would hide the difference that matters.
std::string bytes_exactly(std::uint64_t bytes) {
  return format_bytes(bytes) + " (" + std::to_string(bytes) + " bytes)";
}

// In memory, the CPU sort needs the keys and a scratch buffer of the same size; the GPUs need the
// keys only, unless they sort in rounds: then the keys and the buffer they are partitioned into.
enum class HostMemoryUse { cpu_sort, gpu_sort, gpu_rounds };

std::uint64_t host_memory_needed(std::uint64_t bytes, HostMemoryUse use) {
  return use == HostMemoryUse::gpu_sort ? bytes : 2 * bytes;
}

HostMemoryUse memory_use(const GpuEngine* gpu, std::uint64_t keys) {
  if (gpu == nullptr) return HostMemoryUse::cpu_sort;
  return keys > gpu->round_keys() ? HostMemoryUse::gpu_rounds : HostMemoryUse::gpu_sort;
}

void sort_keys(KeyType type, std::byte* keys, std::byte* scratch, std::uint64_t count, SortOrder order) {
  visit_key_type(type, [&]<class T>(T) {
    radix_sort(reinterpret_cast<T*>(keys), count, order, reinterpret_cast<T*>(scratch));
  });
}

std::optional<std::uint64_t> disorder_in(KeyType type, const std::byte* keys, std::uint64_t count, SortOrder order) {
  return visit_key_type(type, [&]<class T>(T) -> std::optional<std::uint64_t> {
    if (auto at = find_disorder(reinterpret_cast<const T*>(keys), count, order)) return *at;
    return std::nullopt;
  });
}

// The output as the writers name it in their errors.
std::string writer_name(const OutputFile& output) {
  return output.is_stdout() ? "standard output" : output.path();
}

// Why --verify fails, or "" when the keys are in order and a permutation of the input.
std::string describe_failure(std::optional<std::uint64_t> disorder, bool same_checksum) {
  if (disorder) return "key " + std::to_string(*disorder) + " is out of order";
  if (!same_checksum) return "the sorted keys are not a permutation of the input";
  return "";
}

JsonObject radix_config_json() {
  using namespace radix_config;
  return JsonObject()
      .add("digit_bits", kDigitBits)
      .add("lsd_max_bits", kLsdMaxBits)
      .add("sequential_keys", std::uint64_t(kSequentialKeys))
      .add("insertion_sort_keys", std::uint64_t(kInsertionSortKeys))
      .add("keys_per_task", std::uint64_t(kKeysPerTask));
}

// The spill path's largest chunk (its chunks are a sixteenth of --host-memory, at least 4 KiB).
constexpr std::size_t kMaxSpillChunkBytes = std::size_t{64} << 20;

struct Outcome {
  std::uint64_t bytes = 0;
  std::string verify_failure;
  PhaseTimes times;
  std::optional<RoundsReport> rounds;
  std::optional<SpillReport> spill;
};

// The CPU partition into rounds in memory: where its time went and which passes it made (an empty
// object when the keys were not partitioned in memory).
JsonObject round_partition_json(const Outcome& outcome) {
  if (!outcome.rounds) return JsonObject();
  const RoundPartitionStats& partition = outcome.rounds->partition;
  return JsonObject()
      .add("histogram_ms", partition.histogram_ms)
      .add("plan_ms", partition.plan_ms)
      .add("scatter_ms", partition.scatter_ms)
      .add("refinement_passes", partition.refinement_passes)
      .add("top_digits_counted_while_reading", partition.top_digits_given)
      .add("bucket_counting_pass", partition.bucket_counting_pass);
}

// The spill path's memory, --host-memory H accounted once over the whole run: chunks of C = H / 16
// (4 KiB to 64 MiB); spill_sort takes at most 5 C at any time, at every depth (app/spill_sort.hpp
// lists them: chunks being classified and appended, the pass's reader or sample, the spill tables);
// the rest, H - 5 C, holds two round buffers (the writer writes one while the next round sorts)
// and, on the CPU, a sort scratch buffer, each of round_keys keys. A stream's prefix (at most H / 2,
// read before it was known to spill) lives only during the first pass, before the round buffers
// exist, beside 4.5 C of spill_sort's. Beyond H: the program itself and bookkeeping of a few bytes
// per round and per pass.
Outcome sort_through_spill(const SortOptions& options, const InputFile& input, HostBuffer prefix, GpuEngine* gpu,
                           std::uint64_t host_memory, OutputFile& output, Progress& progress) {
  const std::size_t width = key_width(options.type);
  const std::size_t chunk_bytes =
      std::clamp<std::size_t>(std::size_t(host_memory / 16) / 4096 * 4096, 4096, kMaxSpillChunkBytes);
  const std::uint64_t buffers = gpu ? 2 : 3;
  const std::uint64_t left = host_memory > 5 * chunk_bytes ? host_memory - 5 * chunk_bytes : 0;
  std::uint64_t round_keys = left / (buffers * width);
  if (gpu) round_keys = std::min(round_keys, gpu->round_keys());
  if (round_keys == 0)
    throw Error(input.display_name() + ": --host-memory " + bytes_exactly(host_memory) +
                " is too small to sort through spill files; give it at least " +
                bytes_exactly(5 * 4096 + buffers * width));
  std::string temp_dir = options.temp_dir;
  if (temp_dir.empty()) {
    const char* tmpdir = std::getenv("TMPDIR");
    temp_dir = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  }

  Outcome outcome;
  Stopwatch phase;
  const std::string output_name = writer_name(output);
  SortedSink sink(output.fd(), output_name, input.regular ? input.size : 0, options.type, options.order,
                  options.verify, progress);
  KeyChecksum input_checksum;
  HostBuffer round_memory;
  HostBuffer scratch;
  SpillJob job;
  job.type = options.type;
  job.order = options.order;
  job.temp_dir = temp_dir;
  job.round_keys = round_keys;
  job.chunk_bytes = chunk_bytes;
  // Progress: the streaming pass reads the input ("spilling"), then the rounds are sorted and
  // written; the first rounds report comes when the input's pass is over, so its size is known.
  std::uint64_t bytes_in = 0;
  bool sorting_rounds = false;
  job.on_input = [&](std::span<const std::byte> chunk) {
    bytes_in += chunk.size();
    progress.advance(chunk.size());
    if (options.verify) input_checksum += checksum_keys(chunk.data(), chunk.size(), width);
  };
  job.on_rounds = [&](std::uint64_t done, std::uint64_t total) {
    if (!sorting_rounds) progress.phase("sorting rounds", bytes_in);
    sorting_rounds = true;
    progress.rounds(done, total);
  };
  job.round_buffers = [&]() -> std::array<std::byte*, 2> {
    prefix = HostBuffer();  // the streaming pass is over
    const std::size_t round_bytes = (round_keys * width + 4095) / 4096 * 4096;
    round_memory = HostBuffer(2 * round_bytes);
    if (gpu) {
      gpu->place(round_memory.data(), round_memory.capacity());
      gpu->pin(round_memory.data(), round_memory.capacity());
      Stopwatch allocating;
      gpu->allocate();
      outcome.times.allocate = allocating.lap();
    } else {
      scratch = HostBuffer(round_keys * width);
    }
    return {round_memory.data(), round_memory.data() + round_bytes};
  };
  job.sort_round = [&](std::byte* keys, std::uint64_t count) {
    if (gpu) {
      gpu->sort(keys, count, options.order);
    } else {
      sort_keys(options.type, keys, scratch.data(), count, options.order);
    }
  };
  job.sorted = [&](std::span<const std::byte> round) { sink(round); };
  progress.phase("spilling " + input.display_name() + " to " + temp_dir, input.regular ? input.size : 0);
  SpillSource source{&input, prefix.bytes()};
  outcome.spill = spill_sort(job, source);
  outcome.verify_failure = sink.finish(input_checksum);
  outcome.bytes = outcome.spill->keys * width;
  const double total = phase.lap();
  outcome.times.partition = outcome.spill->spill_seconds;
  for (double s : outcome.spill->round_sort_seconds) outcome.times.sort += s;
  outcome.times.write = std::max(0.0, total - outcome.times.partition - outcome.times.sort - outcome.times.allocate);
  return outcome;
}

// Keys in memory (`keys`, `bytes` of them): sorted at once, or in rounds on the GPUs.
Outcome sort_in_memory(const SortOptions& options, HostBuffer& keys, std::uint64_t bytes, GpuEngine* gpu,
                       const KeyChecksum& input_checksum, OutputFile& output, Progress& progress,
                       const std::vector<int>& gpus, const TopDigitHistogram* top_digits) {
  const std::size_t width = key_width(options.type);
  const std::uint64_t count = bytes / width;
  const std::string output_name = writer_name(output);
  const std::string on_gpus = std::to_string(gpus.size()) + " GPU" + (gpus.size() == 1 ? "" : "s");
  Outcome outcome;
  outcome.bytes = bytes;
  Stopwatch phase;
  if (memory_use(gpu, count) == HostMemoryUse::gpu_rounds) {
    // Partitioned into rounds; each is verified and written as soon as it is sorted. The partition
    // buffer is not pinned as a whole: the sorter page-locks each round for its sort, which runs while
    // the previous round is written. Pinning all of it first was on the critical path: 18-23 s for
    // 64 GB on the lent x4 machine (bench_results/2026-11-22-out-of-core-h200x4-*.md).
    HostBuffer partitioned(bytes);
    gpu->place(partitioned.data(), partitioned.capacity());
    progress.phase("allocating GPU memory", 0);
    gpu->allocate();
    outcome.times.allocate = phase.lap();
    progress.phase("partitioning into rounds", 0);
    SortedSink sink(output.fd(), output_name, bytes, options.type, options.order, options.verify, progress);
    outcome.rounds = sort_in_rounds(
        options.type, keys.data(), partitioned.data(), count, options.order, gpu->round_keys(),
        [&](std::byte* round, std::uint64_t n) { gpu->sort(round, n, options.order); },
        [&](std::span<const std::byte> round) { sink(round); },
        // The input is partitioned: its memory goes back before the output's pages are written (a
        // machine whose memory grows as it is touched spent ~3 s per 8 GB on fresh pages).
        [&] { keys = HostBuffer(); },
        [&](std::uint64_t done, std::uint64_t total) {
          if (done == 0) progress.phase("sorting rounds on " + on_gpus, bytes);  // partitioned
          progress.rounds(done, total);
        },
        top_digits);
    outcome.verify_failure = sink.finish(input_checksum);
    outcome.times.partition = outcome.rounds->partition_seconds;
    for (double s : outcome.rounds->round_sort_seconds) outcome.times.sort += s;
    outcome.times.write = phase.lap() - outcome.times.partition - outcome.times.sort;  // what the sorts did not hide
    return outcome;
  }
  if (gpu) {
    progress.phase("allocating GPU memory", 0);
    gpu->allocate();
    outcome.times.allocate = phase.lap();
    progress.phase("sorting on " + on_gpus, 0);
    gpu->sort(keys.data(), count, options.order);
  } else {
    progress.phase("sorting", 0);
    HostBuffer scratch(bytes);
    sort_keys(options.type, keys.data(), scratch.data(), count, options.order);
  }
  outcome.times.sort = phase.lap();
  if (options.verify) {
    progress.phase("verifying", 0);
    outcome.verify_failure = describe_failure(disorder_in(options.type, keys.data(), count, options.order),
                                              checksum_keys(keys.data(), bytes, width) == input_checksum);
    outcome.times.verify = phase.lap();
    if (!outcome.verify_failure.empty()) return outcome;
  }
  progress.phase("writing " + output_name, 0);
  write_file(output.fd(), output_name, keys.data(), bytes, WriteOptions{});
  outcome.times.write = phase.lap();
  return outcome;
}

}  // namespace

int run_sort(const SortOptions& options) {
  Stopwatch wall;
  Stopwatch phase;
  const std::size_t width = key_width(options.type);

  // Before any file is opened: a closed standard descriptor must not become one of ours.
  const ClosedStandardDescriptors closed = hold_closed_standard_descriptors();
  if (closed.input && options.input == "-") throw Error("standard input is closed: give the input file's name");
  if (closed.output && options.output == "-")
    throw Error("standard output is closed: nowhere to write the sorted keys; use -o FILE");
  if (closed.output && options.stats == "-")
    throw Error("--stats -: standard output is closed; give --stats a file name");

  // Validate everything that can be validated before any data moves.
  const GpuSpec gpu_spec = parse_gpu_spec(options.gpus);
  // --gpus none must not start the CUDA driver: that alone takes a few hundred ms on a GPU machine.
  const std::vector<int> gpus =
      resolve_gpus(gpu_spec, gpu_spec.kind == GpuSpec::Kind::none ? 0 : cuda_device_count());
  const std::uint64_t host_memory = options.host_memory.value_or(default_host_memory_bytes());
  if (options.stats == "-" && options.output == "-")
    throw Error("--stats -: standard output already carries the sorted keys; give --stats a file name");
  // No file the run writes may be another one it writes, nor the input unless it is replaced by a
  // rename (-o FILE): compared by device and inode, before anything is read or created.
  const std::string input_name = options.input == "-" ? "stdin" : options.input;
  const std::optional<FileIdentity> input_identity =
      options.input == "-" ? identity_of_descriptor(STDIN_FILENO) : identity_of_existing(options.input);
  const std::optional<FileIdentity> stdout_identity = identity_of_descriptor(STDOUT_FILENO);
  if (options.output == "-" && input_identity && input_identity->regular && stdout_identity == input_identity)
    throw Error("standard output is the input file " + input_name + ": the sorted keys would overwrite it as it is read; "
                "use -o " + (options.input == "-" ? std::string("FILE") : options.input) + " to sort in place");
  std::vector<WrittenFile> written;
  if (options.output == "-") {
    written.push_back({"the sorted keys on standard output", stdout_identity});
  } else {
    written.push_back({"-o " + options.output, identity_of_output(options.output), /*replaces_by_rename=*/true});
  }
  if (options.stats == "-") {
    written.push_back({"--stats - (standard output)", stdout_identity});
  } else if (!options.stats.empty()) {
    written.push_back({"--stats " + options.stats, identity_of_output(options.stats)});
  }
  require_separate_files(written, input_identity, input_name);
  if (!options.temp_dir.empty()) require_directory("--temp-dir", options.temp_dir);
  StatsOutput stats(options.stats);

  InputFile input = open_input(options.input);
  // The GPUs take the input when there are any (a stream's size is known only once it is read); it
  // is sorted through spill files when it does not fit --host-memory.
  std::unique_ptr<GpuEngine> gpu;
  std::string why_not_gpu = gpus.empty() ? "no GPU selected" : "";
  bool spill = false;
  if (input.regular) {
    const std::uint64_t input_keys = whole_keys(input_name, input.size, options.type);
    gpu = GpuEngine::choose(options.type, gpus, input_keys, options.gpu_memory, why_not_gpu);
    spill = host_memory_needed(input.size, memory_use(gpu.get(), input_keys)) > host_memory;
  }
  OutputFile output = OutputFile::create(options.output);
  Progress progress(options.progress);
  phase.lap();  // the phases start here; validation and device discovery count in wall time only

  Outcome outcome;
  double read_seconds = 0;
  std::uint64_t read_bytes = 0;  // in read_seconds: the input, or a stream's prefix before it spilled
  bool read_direct = false;
  if (spill) {
    outcome = sort_through_spill(options, input, HostBuffer(), gpu.get(), host_memory, output, progress);
  } else {
    // Read, checksumming each block as it lands when --verify asks for it.
    HostBuffer keys;
    std::uint64_t bytes = 0;
    std::unique_ptr<TopDigitHistogram> top_digits;
    KeyChecksum input_checksum;
    bool complete = true;
    if (input.regular) {
      bytes = input.size;
      keys = HostBuffer(bytes);
      if (gpu) gpu->place(keys.data(), keys.capacity());
      // Read straight into page-locked memory where the GPUs sort the keys where they lie. Keys that
      // will be partitioned into rounds get their top digits counted as they land (the partition's
      // first pass, done by the reading threads).
      const HostMemoryUse use = memory_use(gpu.get(), bytes / width);
      if (use == HostMemoryUse::gpu_sort) gpu->pin(keys.data(), keys.capacity());
      if (use == HostMemoryUse::gpu_rounds)
        top_digits = std::make_unique<TopDigitHistogram>(options.type, options.order, bytes / width);
      progress.phase("reading " + input_name, bytes);
      std::mutex checksum_mutex;
      ReadOptions read_options;
      read_options.threads = unsigned(active_threads());
      const ReadStats read = read_file(input, keys.data(), bytes, read_options,
                                       [&](std::uint64_t offset, const std::byte* block, std::size_t length) {
                                         progress.advance(length);
                                         if (top_digits) top_digits->add_bytes(offset, block, length);
                                         if (!options.verify) return;
                                         const KeyChecksum sum = checksum_keys(block, length, width);
                                         std::lock_guard lock(checksum_mutex);
                                         input_checksum += sum;
                                       });
      read_direct = read.direct;
      if (top_digits) top_digits->finish();
    } else {
      progress.phase("reading " + input_name, 0);
      keys = read_stream_prefix(input, host_memory / 2, bytes, complete);
      if (complete) {
        (void)whole_keys(input_name, bytes, options.type);
        if (options.verify) input_checksum = checksum_keys(keys.data(), bytes, width);
      }
      // A stream longer than half of --host-memory is sorted through spill files, in rounds of the
      // most keys the GPUs take.
      gpu = GpuEngine::choose(options.type, gpus, complete ? bytes / width : std::numeric_limits<std::uint64_t>::max(),
                              options.gpu_memory, why_not_gpu);
      // At most half of --host-memory was read: the partition buffer of the rounds fits beside it.
      if (complete && memory_use(gpu.get(), bytes / width) == HostMemoryUse::gpu_sort)
        gpu->pin(keys.data(), keys.capacity());
    }
    read_seconds = phase.lap();
    read_bytes = bytes;
    if (complete) {
      outcome = sort_in_memory(options, keys, bytes, gpu.get(), input_checksum, output, progress, gpus,
                               top_digits.get());
    } else {
      // What was read leads the streaming pass of the spill path.
      outcome = sort_through_spill(options, input, std::move(keys), gpu.get(), host_memory, output, progress);
    }
  }
  progress.finish();
  if (!outcome.verify_failure.empty()) {
    std::fprintf(stderr, "rmgsort: %s: --verify failed: %s; the output was not committed\n",
                 output.display_name().c_str(), outcome.verify_failure.c_str());
    return kExitCheckFailed;
  }

  // The statistics are written before the output is committed: a run whose statistics cannot be
  // written fails and commits nothing. (The rename that commits takes microseconds, uncounted.)
  const PhaseTimes& times = outcome.times;
  const std::uint64_t bytes = outcome.bytes;
  const std::uint64_t count = bytes / width;
  std::vector<std::uint64_t> round_keys{count};
  std::vector<double> round_seconds{times.sort};
  if (outcome.rounds) {
    round_keys = outcome.rounds->round_keys;
    round_seconds = outcome.rounds->round_sort_seconds;
  } else if (outcome.spill) {
    round_keys = outcome.spill->round_keys;
    round_seconds = outcome.spill->round_sort_seconds;
  }
  const double seconds = wall.seconds();
  stats.prepare(JsonObject()
                    .add("version", RMGSORT_VERSION)
                    .add("command", "sort")
                    .add("input", input_name)
                    .add("output", options.output == "-" ? std::string("stdout") : options.output)
                    .add("key_type", key_type_name(options.type))
                    .add("order", options.order == SortOrder::ascending ? "ascending" : "descending")
                    .add("keys", count)
                    .add("bytes", bytes)
                    .add("threads", std::uint64_t(active_threads()))
                    .add("engine", gpu ? "gpu" : "cpu")
                    .add("gpus_selected", gpus)
                    .add("cpu_because", gpu ? std::string() : why_not_gpu)
                    .add("host_memory_bytes", host_memory)
                    .add("peak_host_memory_bytes", peak_host_memory_bytes())
                    .add("peak_device_memory_bytes",
                         gpu ? gpu->device_bytes_allocated() : std::vector<std::uint64_t>{})
                    .add("verified", options.verify)
                    .add("read_direct_io", read_direct)
                    .add("wall_seconds", seconds)
                    .add("phases_seconds", JsonObject()
                                               .add("read", read_seconds)
                                               .add("gpu_allocate", times.allocate)
                                               .add("partition", times.partition)
                                               .add("sort", times.sort)
                                               .add("verify", times.verify)
                                               .add("write", times.write))
                    .add("throughput", JsonObject()
                                           .add("keys_per_second", double(count) / seconds)
                                           .add("bytes_per_second", double(bytes) / seconds)
                                           .add("sort_keys_per_second", times.sort > 0 ? double(count) / times.sort : 0.0)
                                           .add("partition_bytes_per_second",
                                                times.partition > 0 ? double(bytes) / times.partition : 0.0)
                                           .add("read_bytes_per_second",
                                                read_seconds > 0 ? double(read_bytes) / read_seconds : 0.0)
                                           .add("write_bytes_per_second",
                                                times.write > 0 ? double(bytes) / times.write : 0.0))
                    .add("rounds", std::uint64_t(round_keys.size()))
                    .add("round_keys", round_keys)
                    .add("round_sort_seconds", round_seconds)
                    .add("spilled", outcome.spill.has_value())
                    .add("spilled_bytes", outcome.spill ? outcome.spill->spilled_bytes : std::uint64_t{0})
                    .add("spill_levels", outcome.spill ? outcome.spill->levels : 0)
                    .add("round_partition", round_partition_json(outcome))
                    .add("cpu_radix_sort", radix_config_json())
                    .add("gpu", gpu ? gpu->stats() : JsonObject()));
  // Every output is now written and checked (statistics on standard output are already out: those
  // cannot be taken back); only the renames are left.
  output.commit();
  stats.commit();
  return kExitOk;
}

}  // namespace rmgsort
