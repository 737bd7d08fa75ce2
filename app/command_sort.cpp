// rmgsort sort: read the whole input into memory, sort it, optionally verify it, write it to a
// temporary file and rename that over the output. Nothing is committed unless every step succeeded.
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <mutex>
#include <sys/stat.h>

#include "app/commands.hpp"
#include "app/gpu_engine.hpp"
#include "app/size_parse.hpp"
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
#include "io/error.hpp"
#include "io/host_buffer.hpp"
#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "io/uring_reader.hpp"
#include "io/uring_writer.hpp"

namespace rmgsort {
namespace {

struct PhaseTimes {
  double read = 0, allocate = 0, sort = 0, verify = 0, write = 0;
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

// The CPU sort needs the keys and a scratch buffer of the same size; the GPUs need the keys only.
void require_host_memory(const std::string& name, std::uint64_t bytes, std::uint64_t host_memory, bool on_gpus) {
  const std::uint64_t need = on_gpus ? bytes : 2 * bytes;
  if (need > host_memory)
    throw Error(name + ": sorting " + format_bytes(bytes) + " needs " + bytes_exactly(need) +
                " of host memory (" + (on_gpus ? "the keys" : "the keys and a sort buffer") +
                "), more than --host-memory " + bytes_exactly(host_memory) +
                "; raise --host-memory (sorting inputs larger than memory is not available yet)");
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

JsonObject radix_config_json() {
  using namespace radix_config;
  return JsonObject()
      .add("digit_bits", kDigitBits)
      .add("lsd_max_bits", kLsdMaxBits)
      .add("sequential_keys", std::uint64_t(kSequentialKeys))
      .add("insertion_sort_keys", std::uint64_t(kInsertionSortKeys))
      .add("keys_per_task", std::uint64_t(kKeysPerTask));
}

}  // namespace

int run_sort(const SortOptions& options) {
  Stopwatch wall;
  PhaseTimes times;
  Stopwatch phase;
  const std::size_t width = key_width(options.type);

  // Validate everything that can be validated before any data moves.
  const GpuSpec gpu_spec = parse_gpu_spec(options.gpus);
  // --gpus none must not start the CUDA driver: that alone takes a few hundred ms on a GPU machine.
  const std::vector<int> gpus =
      resolve_gpus(gpu_spec, gpu_spec.kind == GpuSpec::Kind::none ? 0 : cuda_device_count());
  const std::uint64_t host_memory = options.host_memory.value_or(default_host_memory_bytes());
  if (options.stats == "-" && options.output == "-")
    throw Error("--stats -: standard output already carries the sorted keys; give --stats a file name");
  if (!options.temp_dir.empty()) require_directory("--temp-dir", options.temp_dir);
  StatsOutput stats(options.stats);

  InputFile input = open_input(options.input);
  const std::string input_name = input.display_name();
  // The GPUs take the input when it fits them (a stream's size is known only once it is read).
  std::unique_ptr<GpuEngine> gpu;
  std::string why_not_gpu = gpus.empty() ? "no GPU selected" : "";
  if (input.regular) {
    gpu = GpuEngine::choose(options.type, gpus, whole_keys(input_name, input.size, options.type),
                            options.gpu_memory, why_not_gpu);
    require_host_memory(input_name, input.size, host_memory, gpu != nullptr);
  }
  OutputFile output = OutputFile::create(options.output);
  Progress progress(options.progress);
  phase.lap();  // the phases start here; validation and device discovery count in wall time only

  // Read, checksumming each block as it lands when --verify asks for it.
  HostBuffer keys;
  std::uint64_t bytes = 0;
  KeyChecksum input_checksum;
  bool read_direct = false;
  if (input.regular) {
    bytes = input.size;
    keys = HostBuffer(bytes);
    if (gpu) gpu->pin(keys.data(), keys.capacity());  // read straight into page-locked memory
    progress.phase("reading " + input_name, bytes);
    std::mutex checksum_mutex;
    ReadOptions read_options;
    read_options.threads = unsigned(active_threads());
    const ReadStats read = read_file(input, keys.data(), bytes, read_options,
                                     [&](std::uint64_t, const std::byte* block, std::size_t length) {
                                       progress.advance(length);
                                       if (!options.verify) return;
                                       const KeyChecksum sum = checksum_keys(block, length, width);
                                       std::lock_guard lock(checksum_mutex);
                                       input_checksum += sum;
                                     });
    read_direct = read.direct;
  } else {
    progress.phase("reading " + input_name, 0);
    try {
      keys = read_stream(input, host_memory / 2, bytes);
    } catch (const Error& e) {
      throw Error(std::string(e.what()) + " (limit: half of --host-memory " + format_bytes(host_memory) + ")");
    }
    (void)whole_keys(input_name, bytes, options.type);
    if (options.verify) input_checksum = checksum_keys(keys.data(), bytes, width);
    gpu = GpuEngine::choose(options.type, gpus, bytes / width, options.gpu_memory, why_not_gpu);
    if (gpu) gpu->pin(keys.data(), keys.capacity());
  }
  times.read = phase.lap();
  const std::uint64_t count = bytes / width;

  if (gpu) {
    progress.phase("allocating GPU memory", 0);
    gpu->allocate();
    times.allocate = phase.lap();
    progress.phase("sorting on " + std::to_string(gpus.size()) + " GPU" + (gpus.size() == 1 ? "" : "s"), 0);
    gpu->sort(keys.data(), count, options.order);
  } else {
    progress.phase("sorting", 0);
    HostBuffer scratch(bytes);
    sort_keys(options.type, keys.data(), scratch.data(), count, options.order);
  }
  times.sort = phase.lap();

  if (options.verify) {
    progress.phase("verifying", 0);
    const auto disorder = disorder_in(options.type, keys.data(), count, options.order);
    const KeyChecksum output_checksum = checksum_keys(keys.data(), bytes, width);
    if (disorder || output_checksum != input_checksum) {
      progress.finish();
      const std::string why = disorder ? "key " + std::to_string(*disorder) + " is out of order"
                                       : std::string("the sorted keys are not a permutation of the input");
      std::fprintf(stderr, "rmgsort: %s: --verify failed: %s; the output was not written\n",
                   output.display_name().c_str(), why.c_str());
      return kExitCheckFailed;
    }
    times.verify = phase.lap();
  }

  progress.phase("writing " + (output.is_stdout() ? std::string("stdout") : output.path()), 0);
  write_file(output.fd(), output.is_stdout() ? "standard output" : output.path(), keys.data(), bytes, WriteOptions{});
  times.write = phase.lap();
  progress.finish();

  // The statistics are written before the output is committed: a run whose statistics cannot be
  // written fails and commits nothing. (The rename that commits takes microseconds, uncounted.)
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
                    .add("verified", options.verify)
                    .add("read_direct_io", read_direct)
                    .add("wall_seconds", seconds)
                    .add("phases_seconds", JsonObject()
                                               .add("read", times.read)
                                               .add("gpu_allocate", times.allocate)
                                               .add("sort", times.sort)
                                               .add("verify", times.verify)
                                               .add("write", times.write))
                    .add("throughput", JsonObject()
                                           .add("keys_per_second", double(count) / seconds)
                                           .add("bytes_per_second", double(bytes) / seconds)
                                           .add("sort_keys_per_second", times.sort > 0 ? double(count) / times.sort : 0.0))
                    .add("cpu_radix_sort", radix_config_json())
                    .add("gpu", gpu ? gpu->stats() : JsonObject()));
  output.commit();
  stats.commit();
  return kExitOk;
}

}  // namespace rmgsort
