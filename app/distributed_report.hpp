// sort --distributed's --stats: rank 0 writes one JSON object, the schema of a single process's
// (app/sort_report.hpp: its plan, engine and phases are rank 0's own; its counts the job's), plus a
// "distributed" member with every rank's figures, gathered from the ranks (MPI_Allgather).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "core/record_layout.hpp"
#include "dist/communicator.hpp"
#include "dist/global_splitters.hpp"
#include "dist/share_exchange.hpp"
#include "report/stats.hpp"
#include "report/stopwatch.hpp"
#include "sort/sort_plan.hpp"
#include "sort/sort_run.hpp"

namespace rmgsort {

class DistributedReport {
 public:
  explicit DistributedReport(const dist::Communicator& communicator);

  // Collective: every rank's figures, for rank 0's statistics ("distributed").
  [[nodiscard]] Json gather(const dist::Communicator& communicator) const;
  // The whole object (rank 0), with DISTRIBUTED from gather(), of a run that ends as END says.
  [[nodiscard]] Json stats_json(const SortOptions& options, const Json& distributed, const RunEnd& end = {}) const;

  RunStart start = RunStart::now();
  Stopwatch wall;
  std::optional<RecordLayout> layout;
  std::string input_format;
  std::vector<int> gpus;
  std::optional<SortPlan> plan;
  double read_seconds = 0, sort_seconds = 0, write_seconds = 0;
  double classify_seconds = 0;  // the destinations' pass (dist::count_shares)
  // Before the read: the share's plan (engine, GPU memory, its host memory placed and page-locked).
  double setup_seconds = 0;
  // Making the exchange (for NCCL: the communicator over the ranks' GPUs).
  double exchange_setup_seconds = 0;
  dist::SplitterReport splitters;
  dist::ExchangeReport exchange;
  std::string exchange_name = "mpi";  // the Exchange that moved the records
  std::uint64_t received = 0;            // records of this rank's share
  std::uint64_t duplicates_dropped = 0;  // this rank's (--unique)
  std::uint64_t kept_total = 0;          // every rank's records written
  // A share sorted from a file (app/distributed_share_file.hpp): the file path's outcome.
  std::optional<SortOutcome> outcome;
  std::string verify_failure;

 private:
  int ranks_ = 1;
};

}  // namespace rmgsort
