// merge's --stats object: a finished run of passes, and a run that failed with an input out of order
// before any pass ended, with empty values one way (null where a member does not apply or was not
// reached, [] for an empty list, never "") and seconds as the one unit of time.
#include "app/merge_report.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rmgsort {
namespace {

MergeOptions options_to_file() {
  MergeOptions options;
  options.inputs = {"a.u64", "-"};
  options.output = "out.u64";
  options.layout = RecordLayout::bare_key(KeyType::u64);
  options.stats = "stats.json";
  options.verify = true;
  return options;
}

MergeReport started_report() {
  MergeReport report;
  report.start = RunStart{"2025-03-01T12:34:56.789Z", "node7", std::vector<std::string>{"rmgsort", "merge"}};
  report.inputs = {"a.u64", "stdin"};
  report.host_memory_limit = std::uint64_t{1} << 30;
  report.threads = 4;
  return report;
}

TEST(MergeStatsTest, AFinishedRunIsOkAndNamesItsPasses) {
  MergeReport report = started_report();
  report.input_format = "raw";
  report.layout = RecordLayout::bare_key(KeyType::u64);
  report.outcome.plan = plan_merge(report.host_memory_limit, 8, 1024);
  report.outcome.passes = {{40, 3, 600, 0.25}, {3, 1, 1000, 0.5}};
  report.outcome.records = 1000;
  report.outcome.bytes = 8000;
  report.outcome.temporary_bytes = 4800;
  report.merged = true;
  report.wall_seconds = 1.0;
  const Json json = merge_stats_json(options_to_file(), report);
  EXPECT_EQ(json["schema"], 1);
  EXPECT_EQ(json["status"], "ok");
  EXPECT_EQ(json["command"], "merge");
  EXPECT_EQ(json["inputs"], Json({"a.u64", "stdin"}));
  EXPECT_EQ(json["input_format"], "raw");
  EXPECT_TRUE(json["key_field"].is_null());
  EXPECT_EQ(json["output"], "out.u64");
  EXPECT_TRUE(json["index_output"].is_null());
  EXPECT_EQ(json["key_type"], "u64");
  EXPECT_EQ(json["records"], 1000);
  EXPECT_EQ(json["bytes"], 8000);
  EXPECT_EQ(json["unique"], false);
  EXPECT_EQ(json["records_kept"], 1000);
  EXPECT_TRUE(json["duplicates_dropped"].is_null()) << "does not apply without --unique";
  EXPECT_EQ(json["plan"]["fan_in"], report.outcome.plan.fan_in);
  ASSERT_EQ(json["passes"].size(), 2u);
  EXPECT_EQ(json["passes"][0]["runs"], 3);
  EXPECT_EQ(json["passes"][1]["seconds"], 0.5);
  EXPECT_EQ(json["temporary_bytes"], 4800);
  EXPECT_EQ(json["verified"], true);
  EXPECT_EQ(json["throughput"]["bytes_per_second"], 8000.0);
  EXPECT_EQ(json_line(json).find("\"\""), std::string::npos) << "no empty strings";
}

// As sort's: records and bytes count every record merged, records_kept those written.
TEST(MergeStatsTest, UniqueCountsTheRecordsKeptAndTheDuplicatesDropped) {
  MergeOptions options = options_to_file();
  options.unique = true;
  MergeReport report = started_report();
  report.outcome.records = 1000;
  report.outcome.bytes = 8000;
  report.outcome.duplicates_dropped = 640;
  report.merged = true;
  const Json json = merge_stats_json(options, report);
  EXPECT_EQ(json["unique"], true);
  EXPECT_EQ(json["records"], 1000);
  EXPECT_EQ(json["records_kept"], 360);
  EXPECT_EQ(json["duplicates_dropped"], 640);
}

// The method asked and chosen, and why; the sort method's plan and engine are sort's.
TEST(MergeStatsTest, TheMethodChosenAndWhy) {
  MergeOptions options = options_to_file();
  MergeReport report = started_report();
  Json json = merge_stats_json(options, report);
  EXPECT_EQ(json["method_asked"], "auto");
  EXPECT_TRUE(json["method"].is_null()) << "not chosen yet";
  EXPECT_TRUE(json["method_because"].is_null());
  EXPECT_EQ(json["engine"], "cpu");
  EXPECT_EQ(json["gpus_selected"], Json::array());
  EXPECT_TRUE(json["gpu"].is_null());

  options.method = MergeMethod::sort;
  report.method = "sort";
  report.method_because = "--method sort";
  report.sort_plan = Json{{"path", "in_memory"}};
  report.engine = "gpu";
  report.gpus_selected = {0, 1};
  report.gpu = Json{{"devices", 2}};
  json = merge_stats_json(options, report);
  EXPECT_EQ(json["method_asked"], "sort");
  EXPECT_EQ(json["method"], "sort");
  EXPECT_EQ(json["method_because"], "--method sort");
  EXPECT_EQ(json["plan"]["path"], "in_memory") << "sort's plan, not the merge's";
  EXPECT_EQ(json["engine"], "gpu");
  EXPECT_EQ(json["gpus_selected"], Json({0, 1}));
  EXPECT_EQ(json["gpu"]["devices"], 2);
  EXPECT_EQ(json["passes"], Json::array());
}

TEST(MergeStatsTest, AFailedRunSaysWhyAndNullsWhatItDidNotReach) {
  MergeReport report = started_report();
  report.end = RunEnd{1, "a.u64: not in ascending order: key 4 is out of order (4 after 5, at byte offset 32)"};
  const Json json = merge_stats_json(options_to_file(), report);
  EXPECT_EQ(json["status"], "error");
  EXPECT_EQ(json["exit_code"], 1);
  EXPECT_EQ(json["error"], report.end.error);
  EXPECT_TRUE(json["input_format"].is_null());
  EXPECT_TRUE(json["key_type"].is_null());
  for (const char* member : {"keys", "records", "bytes", "records_kept", "duplicates_dropped", "plan"})
    EXPECT_TRUE(json[member].is_null()) << member;
  EXPECT_EQ(json["passes"], Json::array());
  EXPECT_EQ(json["verified"], false);
  EXPECT_TRUE(json["throughput"]["bytes_per_second"].is_null());
}

}  // namespace
}  // namespace rmgsort
