#include "app/distributed_report.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>

#include "app/sort_report.hpp"
#include "host/system_memory.hpp"

namespace rmgsort {

DistributedReport::DistributedReport(const dist::Communicator& communicator) : ranks_(communicator.size()) {}

Json DistributedReport::gather(const dist::Communicator& communicator) const {
  // Integers travel as they are; seconds as microseconds.
  const auto micros = [](double seconds) { return std::uint64_t(seconds * 1e6); };
  const std::uint64_t mine[] = {received,
                                exchange.sent_bytes,
                                exchange.received_bytes,
                                exchange.rounds,
                                micros(exchange.seconds),
                                micros(splitters.seconds),
                                micros(read_seconds),
                                micros(sort_seconds),
                                micros(write_seconds),
                                duplicates_dropped,
                                outcome ? std::uint64_t{1} : 0,
                                micros(classify_seconds),
                                micros(setup_seconds),
                                micros(exchange_setup_seconds)};
  constexpr std::size_t kFields = std::size(mine);
  const std::vector<std::uint64_t> all = communicator.all_gather(mine);
  const auto column = [&](std::size_t field) {
    std::vector<std::uint64_t> values;
    for (int r = 0; r < ranks_; ++r) values.push_back(all[std::size_t(r) * kFields + field]);
    return Json(values);
  };
  const auto seconds = [&](std::size_t field) {
    std::vector<double> values;
    for (int r = 0; r < ranks_; ++r) values.push_back(double(all[std::size_t(r) * kFields + field]) / 1e6);
    return Json(values);
  };
  Json json;
  json["ranks"] = ranks_;
  json["exchange"] = exchange_name;
  json["splitter_levels"] = splitters.levels;
  json["splitter_counters"] = splitters.counters;
  json["splitter_slice_passes"] = splitters.slice_passes;
  json["records_received"] = column(0);
  json["exchange_bytes_sent"] = column(1);
  json["exchange_bytes_received"] = column(2);
  json["exchange_rounds"] = column(3);
  json["exchange_seconds"] = seconds(4);
  json["splitter_seconds"] = seconds(5);
  json["classify_seconds"] = seconds(11);
  json["setup_seconds"] = seconds(12);
  json["exchange_setup_seconds"] = seconds(13);
  json["read_seconds"] = seconds(6);
  json["sort_seconds"] = seconds(7);
  json["write_seconds"] = seconds(8);
  json["duplicates_dropped"] = column(9);
  std::vector<bool> through_file;
  for (int r = 0; r < ranks_; ++r) through_file.push_back(all[std::size_t(r) * kFields + 10] != 0);
  json["share_through_file"] = through_file;
  return json;
}

Json DistributedReport::stats_json(const SortOptions& options, const Json& distributed, const RunEnd& end) const {
  SortReport report;
  report.start = start;
  report.end = end;
  report.input_name.clear();
  for (const std::string& input : options.inputs) report.input_name += (report.input_name.empty() ? "" : ", ") + input;
  report.input_format = input_format;
  report.layout = layout;
  report.gpus = gpus;
  report.host_memory_limit = plan ? plan->memory.limit : 0;
  report.threads = std::min<std::size_t>(std::size_t(tbb::this_task_arena::max_concurrency()),
                                         tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
  report.wall_seconds = wall.seconds();
  const std::uint64_t record_size = layout ? layout->record_size : 1;
  report.read = ReadReport{read_seconds, received * record_size, false, std::nullopt};
  SortOutcome outcome = this->outcome.value_or(SortOutcome{});
  std::uint64_t dropped = 0;
  for (const Json& d : distributed["duplicates_dropped"]) dropped += d.get<std::uint64_t>();
  // As one process counts them: every record sorted (--unique's dropped ones too), then those dropped.
  outcome.bytes = (kept_total + dropped) * record_size;
  outcome.duplicates_dropped = dropped;
  outcome.times.sort = sort_seconds;
  outcome.times.write = write_seconds;
  if (end.exit_code == 0) report.outcome = outcome;  // (a failed run's counts are not the job's)
  Json json = sort_stats_json(options, plan ? &*plan : nullptr, report);
  json["distributed"] = distributed;
  return json;
}

}  // namespace rmgsort
