#include "app/distributed_outputs.hpp"

#include <cstdio>

#include "app/error_message.hpp"
#include "dist/rank_agreement.hpp"
#include "io/blocking_io.hpp"

namespace rmgsort {

using dist::agreed;

Outputs open_outputs(const dist::Communicator& communicator, const SortOptions& options) {
  const auto open = [&](const std::string& path) {
    if (!options.output_parts) return dist::SharedOutput::open(communicator, path);
    std::optional<dist::SharedOutput> part;
    agreed(communicator, [&] { part.emplace(dist::SharedOutput::open_part(communicator, path)); });
    return std::move(*part);
  };
  Outputs outputs;
  if (!options.output.empty()) outputs.output.emplace(open(options.output));
  if (!options.index_output.empty()) outputs.index.emplace(open(options.index_output));
  return outputs;
}

int finish(const dist::Communicator& communicator, const SortOptions& options, DistributedReport& report,
           std::optional<StatsOutput>& stats, Outputs& outputs) {
  const Json distributed = report.gather(communicator);
  agreed(communicator, [&] {
    if (stats) stats->prepare(report.stats_json(options, distributed));
  });
  agreed(communicator, [&] {
    if (stats) stats->commit();
    if (outputs.index) outputs.index->commit();
    if (outputs.output) outputs.output->commit();
    if (stats) stats->settle();
  });
  // The parts an earlier run of more ranks left beside this run's go (rank 0's work: the directory
  // is one; a part it cannot remove is said, and the run stands).
  if (options.output_parts && communicator.rank() == 0)
    for (const std::string* path : {&options.output, &options.index_output})
      if (!path->empty())
        for (const std::string& failure : dist::remove_stale_parts(*path, communicator.size()))
          print_error_line("warning: " + failure);
  return kExitOk;
}

void write_at(const dist::SharedOutput& output, const std::byte* data, std::uint64_t bytes, std::uint64_t offset) {
  if (bytes > 0) pwrite_all(output.fd(), output.path(), data, std::size_t(bytes), offset);
}

void write_failure_stats(const dist::Communicator& communicator, const SortOptions& options,
                         const DistributedReport& report, std::optional<StatsOutput>& stats, const RunEnd& end) noexcept {
  try {
    const Json distributed = report.gather(communicator);
    if (stats) stats->write_failure(report.stats_json(options, distributed, end));
  } catch (const std::exception& e) {
    print_statistics_not_written(e);
  }
}

}  // namespace rmgsort
