#include "app/sort_report.hpp"

#include "app/stats_members.hpp"

#include "host/radix_sort_config.hpp"

namespace rmgsort {
namespace {

Json radix_config_json() {
  using namespace radix_config;
  return {
      {"digit_bits", kDigitBits},
      {"lsd_max_bits", kLsdMaxBits},
      {"lsd_max_digit_bits", kMaxLsdDigitBits},
      {"sequential_keys", std::uint64_t(kSequentialKeys)},
      {"insertion_sort_keys", std::uint64_t(kInsertionSortKeys)},
      {"keys_per_task", std::uint64_t(kKeysPerTask)},
  };
}

// The CPU partition into rounds in memory: where its time went and which passes it made (null when
// the keys were not partitioned in memory).
Json round_partition_json(const SortOutcome& outcome) {
  if (!outcome.rounds) return nullptr;
  const RoundPartitionStats& partition = outcome.rounds->partition;
  return {
      {"histogram_seconds", partition.histogram_ms / 1e3},
      {"plan_seconds", partition.plan_ms / 1e3},
      {"scatter_seconds", partition.scatter_ms / 1e3},
      {"refinement_passes", partition.refinement_passes},
      {"top_digits_counted_while_reading", partition.top_digits_given},
      {"bucket_counting_pass", partition.bucket_counting_pass},
  };
}

// Each phase's seconds: 0 for a phase a finished sort did not need, null for one a failed run did
// not reach or end (the read is timed here; the rest by the sort's driver, which returns them whole).
Json phases_json(const SortReport& report) {
  const std::optional<SortOutcome>& outcome = report.outcome;
  const auto driver_phase = [&](double PhaseTimes::*phase) {
    return outcome ? Json(outcome->times.*phase) : Json(nullptr);
  };
  return {
      {"read", report.read ? Json(report.read->seconds) : outcome ? Json(0.0) : Json(nullptr)},
      {"gpu_allocate", driver_phase(&PhaseTimes::allocate)},
      {"partition", driver_phase(&PhaseTimes::partition)},
      {"sort", driver_phase(&PhaseTimes::sort)},
      {"verify", driver_phase(&PhaseTimes::verify)},
      {"write", driver_phase(&PhaseTimes::write)},
  };
}

// Overall, and each phase's bytes over its time; null where the phase did not run (or was not reached).
Json throughput_json(const SortReport& report, std::uint64_t record_size) {
  const auto per_second = [](double amount, double seconds) {
    return seconds > 0 ? Json(amount / seconds) : Json(nullptr);
  };
  const Json read = report.read ? per_second(double(report.read->bytes), report.read->seconds) : Json(nullptr);
  if (!report.outcome) {
    return {
        {"keys_per_second", nullptr},         {"bytes_per_second", nullptr},
        {"sort_keys_per_second", nullptr},    {"partition_bytes_per_second", nullptr},
        {"read_bytes_per_second", read},      {"write_bytes_per_second", nullptr},
    };
  }
  const PhaseTimes& times = report.outcome->times;
  const double bytes = double(report.outcome->bytes);
  const double count = bytes / double(record_size);
  return {
      {"keys_per_second", per_second(count, report.wall_seconds)},
      {"bytes_per_second", per_second(bytes, report.wall_seconds)},
      {"sort_keys_per_second", per_second(count, times.sort)},
      {"partition_bytes_per_second", per_second(bytes, times.partition)},
      {"read_bytes_per_second", read},
      // Sorted in the output's pages, nothing was written: no rate.
      {"write_bytes_per_second",
       report.outcome->sorted_in_output_file ? Json(nullptr) : per_second(bytes, times.write)},
  };
}

// Where an output went: its path, "stdout" for "-", null when there is none.
// What the sort did, once its driver returned: the records (sorted, and kept: all of them but with
// --unique), the rounds and the spill.
void add_outcome(Json& json, const SortOutcome& outcome, std::uint64_t record_size, bool unique) {
  const std::uint64_t count = outcome.bytes / record_size;
  // One round of all the keys, unless they were sorted in rounds.
  std::vector<std::uint64_t> round_keys{count};
  std::vector<double> round_seconds{outcome.times.sort};
  if (outcome.rounds) {
    round_keys = outcome.rounds->round_keys;
    round_seconds = outcome.rounds->round_sort_seconds;
  } else if (outcome.spill) {
    round_keys = outcome.spill->round_keys;
    round_seconds = outcome.spill->round_sort_seconds;
  }
  json["keys"] = count;
  json["records"] = count;
  json["bytes"] = outcome.bytes;
  json["records_kept"] = count - outcome.duplicates_dropped;
  json["duplicates_dropped"] = unique ? Json(outcome.duplicates_dropped) : Json(nullptr);
  json["rounds"] = std::uint64_t(round_keys.size());
  json["round_keys"] = round_keys;
  json["round_sort_seconds"] = round_seconds;
  json["written_while_sorting_bytes"] = outcome.written_while_sorting;
  json["sorted_in_output_file"] = outcome.sorted_in_output_file;
  json["spilled"] = outcome.spill.has_value();
  json["spilled_bytes"] = outcome.spill ? outcome.spill->spilled_bytes : std::uint64_t{0};
  json["spill_levels"] = outcome.spill ? outcome.spill->levels : 0;
  json["round_partition"] = round_partition_json(outcome);
}

}  // namespace

// Empty values, one way: null where a member does not apply (or was not reached by a failed run),
// [] for an empty list, never "".
Json sort_stats_json(const SortOptions& options, const SortPlan* plan, const SortReport& report) {
  const SortEngine* engine = plan ? plan->engine.get() : nullptr;
  const std::uint64_t record_size = report.layout ? report.layout->record_size : 1;
  Json json = stats_header("sort", RMGSORT_VERSION, report.start, report.end);
  json["input"] = report.input_name;
  add_record_members(json, report.input_format, report.key_field, options.output, options.index_output, report.layout,
                     options.order);
  json["unique"] = options.unique;
  // Filled by add_outcome once the sort is done: in this place, so that a failed run's object reads
  // in the same order.
  for (const char* member : {"keys", "records", "bytes", "records_kept", "duplicates_dropped"}) json[member] = nullptr;
  json["threads"] = report.threads;
  json["engine"] = engine ? Json(engine->name()) : Json(nullptr);
  json["gpus_selected"] = report.gpus;
  json["cpu_because"] = plan ? string_or_null(plan->cpu_because) : Json(nullptr);
  json["host_memory_limit_bytes"] = report.host_memory_limit;
  json["plan"] = plan ? plan->json() : Json(nullptr);
  json["peak_host_memory_bytes"] = peak_host_memory_bytes();
  json["peak_device_memory_bytes"] = engine ? engine->device_bytes_allocated() : std::vector<std::uint64_t>{};
  json["verified"] = options.verify && report.outcome && report.end.exit_code == 0;
  json["read_direct_io"] = report.read ? Json(report.read->direct) : report.outcome ? Json(false) : Json(nullptr);
  const std::optional<double> reserve_waited = report.read ? report.read->output_pages_reserve_waited_seconds
                                                           : std::nullopt;
  json["output_pages_reserve_waited_seconds"] = reserve_waited ? Json(*reserve_waited) : Json(nullptr);
  const auto& reservation = report.output_reservation;
  json["output_reserved_bytes"] = reservation ? Json(reservation->bytes) : Json(nullptr);
  json["output_reserved_seconds"] =
      reservation && reservation->seconds_to_reserve_all ? Json(*reservation->seconds_to_reserve_all) : Json(nullptr);
  json["wall_seconds"] = report.wall_seconds;
  json["phases_seconds"] = phases_json(report);
  json["throughput"] = throughput_json(report, record_size);
  for (const char* member : {"rounds", "round_keys", "round_sort_seconds", "written_while_sorting_bytes",
                             "sorted_in_output_file", "spilled", "spilled_bytes", "spill_levels", "round_partition"})
    json[member] = nullptr;
  if (report.outcome) add_outcome(json, *report.outcome, record_size, options.unique);
  json["cpu_radix_sort"] = radix_config_json();
  json["gpu"] = engine ? engine->stats() : Json(nullptr);
  return json;
}

}  // namespace rmgsort
