// sort --distributed's outputs: one file every rank writes into at its offset, or a part per rank
// (dist/shared_output.hpp), and the end of a run: rank 0's statistics, then the commits, each after
// every rank agreed.
#pragma once

#include <cstdint>
#include <optional>

#include "app/commands.hpp"
#include "app/distributed_report.hpp"
#include "dist/communicator.hpp"
#include "dist/shared_output.hpp"
#include "report/stats.hpp"

namespace rmgsort {

struct Outputs {
  std::optional<dist::SharedOutput> output, index;
};

// Collective: -o and --index-output, as one file each or a part per rank (--output-parts).
[[nodiscard]] Outputs open_outputs(const dist::Communicator& communicator, const SortOptions& options);

// Writes BYTES at OFFSET of OUTPUT (nothing for none).
void write_at(const dist::SharedOutput& output, const std::byte* data, std::uint64_t bytes, std::uint64_t offset);

// Collective: rank 0's statistics (with every rank's figures) prepared, then every commit, each once
// every rank agreed. Returns kExitOk.
int finish(const dist::Communicator& communicator, const SortOptions& options, DistributedReport& report,
           std::optional<StatsOutput>& stats, Outputs& outputs);

// Collective, after a failure every rank agreed on (or --verify's): rank 0 writes the statistics of a
// failed run, ending as END says (README.md, --stats); should that fail, standard error says so.
void write_failure_stats(const dist::Communicator& communicator, const SortOptions& options,
                         const DistributedReport& report, std::optional<StatsOutput>& stats, const RunEnd& end) noexcept;

}  // namespace rmgsort
