#include "sort/in_memory_sort.hpp"

#include <optional>

#include "report/stopwatch.hpp"
#include "host/order_check.hpp"
#include "io/uring_writer.hpp"

namespace rmgsort {
namespace {

std::optional<std::uint64_t> disorder_in(KeyType type, const std::byte* keys, std::uint64_t count, SortOrder order) {
  return visit_key_type(type, [&]<class T>(T) -> std::optional<std::uint64_t> {
    if (auto at = find_disorder(reinterpret_cast<const T*>(keys), count, order)) return *at;
    return std::nullopt;
  });
}

// Why --verify fails, or "" when the keys are in order and a permutation of the input.
std::string describe_failure(std::optional<std::uint64_t> disorder, bool same_checksum) {
  if (disorder) return "key " + std::to_string(*disorder) + " is out of order";
  if (!same_checksum) return "the sorted keys are not a permutation of the input";
  return "";
}

}  // namespace

SortOutcome sort_in_memory(SortEngine& engine, KeysInMemory& keys, const SortRun& run) {
  const RecordLayout& layout = engine.layout();
  const std::uint64_t count = keys.bytes / layout.record_size;
  Progress& progress = *run.progress;
  SortOutcome outcome;
  outcome.bytes = keys.bytes;
  Stopwatch phase;
  allocate_engine(engine, count, phase, outcome.times, &progress);
  const std::string devices = engine.devices();
  progress.phase(devices.empty() ? std::string("sorting") : "sorting on " + devices, 0);
  engine.sort(keys.keys.data(), count, run.order);
  outcome.times.sort = phase.lap();
  if (run.verify) {
    progress.phase("verifying", 0);
    outcome.verify_failure =
        describe_failure(disorder_in(layout.key_type, keys.keys.data(), count, run.order),
                         checksum_keys(keys.keys.data(), keys.bytes, layout.record_size) == keys.checksum);
    outcome.times.verify = phase.lap();
    if (!outcome.verify_failure.empty()) return outcome;
  }
  progress.phase("writing " + run.output_name, 0);
  write_file(run.output_fd, run.output_name, keys.keys.data(), keys.bytes, WriteOptions{});
  outcome.times.write = phase.lap();
  return outcome;
}

}  // namespace rmgsort
