#include "app/merge_report.hpp"

#include "app/merge_method.hpp"
#include "app/stats_members.hpp"

namespace rmgsort {
namespace {

// Each pass: how many sources it merged into how many runs.
Json passes_json(const std::vector<MergePassReport>& passes) {
  Json list = Json::array();
  for (const MergePassReport& pass : passes) {
    list.push_back({
        {"sources", pass.sources},
        {"runs", pass.runs},
        {"records", pass.records},
        {"seconds", pass.seconds},
    });
  }
  return list;
}

Json throughput_json(const MergeReport& report, std::uint64_t record_size) {
  if (!report.merged || report.wall_seconds <= 0) return {{"keys_per_second", nullptr}, {"bytes_per_second", nullptr}};
  const double bytes = double(report.outcome.bytes);
  return {
      {"keys_per_second", bytes / double(record_size) / report.wall_seconds},
      {"bytes_per_second", bytes / report.wall_seconds},
  };
}

}  // namespace

// Empty values one way, as sort's: null where a member does not apply or was not reached, [] for an
// empty list, never "".
Json merge_stats_json(const MergeOptions& options, const MergeReport& report) {
  const MergeOutcome& outcome = report.outcome;
  const std::uint64_t record_size = report.layout ? report.layout->record_size : 1;
  Json json = stats_header("merge", RMGSORT_VERSION, report.start, report.end);
  json["inputs"] = report.inputs;
  add_record_members(json, report.input_format, report.key_field, options.output, options.index_output, report.layout,
                     options.order);
  json["unique"] = options.unique;
  // As sort's: keys, records and bytes merged; records_kept written; duplicates_dropped by --unique.
  for (const char* member : {"keys", "records"}) json[member] = report.merged ? Json(outcome.records) : Json(nullptr);
  json["bytes"] = report.merged ? Json(outcome.bytes) : Json(nullptr);
  json["records_kept"] = report.merged ? Json(outcome.records - outcome.duplicates_dropped) : Json(nullptr);
  json["duplicates_dropped"] = report.merged && options.unique ? Json(outcome.duplicates_dropped) : Json(nullptr);
  json["threads"] = report.threads;
  json["method_asked"] = merge_method_name(options.method);
  json["method"] = report.method ? Json(*report.method) : Json(nullptr);
  json["method_because"] = string_or_null(report.method_because);
  json["engine"] = report.engine;
  json["gpus_selected"] = report.gpus_selected;
  json["cpu_because"] = string_or_null(report.cpu_because);
  json["host_memory_limit_bytes"] = report.host_memory_limit;
  // The merge's plan (fan-in, buffers), or the sort method's (sort's --stats plan).
  json["plan"] = report.sort_plan ? *report.sort_plan : outcome.plan.fan_in > 0 ? outcome.plan.json() : Json(nullptr);
  json["passes"] = passes_json(outcome.passes);
  json["temporary_bytes"] = outcome.temporary_bytes;
  json["inputs_copied"] = outcome.inputs_copied;
  json["peak_host_memory_bytes"] = peak_host_memory_bytes();
  json["verified"] = options.verify && report.merged && report.end.exit_code == 0;
  json["wall_seconds"] = report.wall_seconds;
  json["throughput"] = throughput_json(report, record_size);
  json["gpu"] = report.gpu ? *report.gpu : Json(nullptr);
  return json;
}

}  // namespace rmgsort
