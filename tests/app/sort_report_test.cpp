// sort's --stats object: a finished run, a --verify failure and a run that failed before its plan,
// with empty values one way (null where a member does not apply or was not reached, [] for an empty
// list, never "") and seconds as the one unit of time.
#include "app/sort_report.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rmgsort {
namespace {

const RecordLayout kU64 = RecordLayout::bare_key(KeyType::u64);

// The CPU's plan for `keys` u64 keys in memory.
SortPlan cpu_plan(std::uint64_t keys) {
  const PlanRequest request{kU64, false, "in.u64", std::uint64_t{1} << 30,
                            [](const RecordLayout&, PositionSource, std::uint64_t, RoundSorting, std::string& why_not) {
                              why_not = "no GPU selected";
                              return std::unique_ptr<SortEngine>();
                            }};
  return plan_file(request, keys * 8);
}

SortOptions options_to_file() {
  SortOptions options;
  options.inputs = {"in.u64"};
  options.output = "out.u64";
  options.layout = kU64;
  options.stats = "stats.json";
  return options;
}

// A report of 1000 keys sorted in memory, as run_sort fills it.
SortReport finished_report() {
  SortReport report;
  report.start = RunStart{"2025-03-01T12:34:56.789Z", "node7", std::vector<std::string>{"rmgsort", "sort"}};
  report.input_name = "in.u64";
  report.input_format = "raw";
  report.layout = kU64;
  report.host_memory_limit = std::uint64_t{1} << 30;
  report.threads = 4;
  report.wall_seconds = 0.5;
  report.read = ReadReport{0.125, 8000, false, std::nullopt};
  SortOutcome outcome;
  outcome.bytes = 8000;
  outcome.times.sort = 0.25;
  outcome.times.write = 0.0625;
  report.outcome = outcome;
  return report;
}

TEST(SortStatsTest, AFinishedRunIsOkAndNamesEveryMember) {
  const SortPlan plan = cpu_plan(1000);
  const Json json = sort_stats_json(options_to_file(), &plan, finished_report());
  EXPECT_EQ(json["schema"], 1);
  EXPECT_EQ(json["status"], "ok");
  EXPECT_EQ(json["exit_code"], 0);
  EXPECT_TRUE(json["error"].is_null());
  EXPECT_EQ(json["command"], "sort");
  EXPECT_EQ(json["start_time"], "2025-03-01T12:34:56.789Z");
  EXPECT_EQ(json["host"], "node7");
  EXPECT_EQ(json["command_line"], Json({"rmgsort", "sort"}));
  EXPECT_EQ(json["output"], "out.u64");
  EXPECT_TRUE(json["index_output"].is_null());
  EXPECT_TRUE(json["key_field"].is_null());
  EXPECT_EQ(json["keys"], 1000);
  EXPECT_EQ(json["engine"], "cpu");
  EXPECT_EQ(json["cpu_because"], "no GPU selected");
  EXPECT_EQ(json["host_memory_limit_bytes"], std::uint64_t{1} << 30);
  EXPECT_FALSE(json.contains("host_memory_bytes")) << "renamed host_memory_limit_bytes in schema 1";
  EXPECT_EQ(json["gpus_selected"], Json::array());
  EXPECT_EQ(json["peak_device_memory_bytes"], Json::array());
  EXPECT_EQ(json["phases_seconds"]["read"], 0.125);
  EXPECT_EQ(json["phases_seconds"]["gpu_allocate"], 0.0) << "a finished sort's phase it did not need took 0 s";
  EXPECT_EQ(json["throughput"]["read_bytes_per_second"], 64000.0);
  EXPECT_TRUE(json["throughput"]["partition_bytes_per_second"].is_null()) << "no partition: no rate";
  EXPECT_EQ(json["rounds"], 1);
  EXPECT_EQ(json["round_keys"], Json({1000}));
  EXPECT_EQ(json["spilled"], false);
  EXPECT_EQ(json["written_while_sorting_bytes"], 0) << "nothing was written while sorting";
  EXPECT_EQ(json["sorted_in_output_file"], false);
  EXPECT_TRUE(json["output_pages_reserve_waited_seconds"].is_null()) << "no rounds into the output's pages";
  EXPECT_TRUE(json["output_reserved_bytes"].is_null()) << "no reservation";
  EXPECT_TRUE(json["output_reserved_seconds"].is_null());
  EXPECT_TRUE(json["round_partition"].is_null());
  EXPECT_TRUE(json["gpu"].is_null()) << "the CPU engine has no figures of its own for bare keys";
}

TEST(SortStatsTest, NoMemberIsAnEmptyStringAndNoneIsInMilliseconds) {
  const SortPlan plan = cpu_plan(1000);
  SortOptions options = options_to_file();
  options.output.clear();  // only the positions
  options.index_output = "-";
  const std::string line = json_line(sort_stats_json(options, &plan, finished_report()));
  EXPECT_EQ(line.find("\"\""), std::string::npos) << line;
  EXPECT_EQ(line.find("_ms\""), std::string::npos) << line;
  const Json json = Json::parse(line);
  EXPECT_TRUE(json["output"].is_null());
  EXPECT_EQ(json["index_output"], "stdout");
}

TEST(SortStatsTest, AVerifyFailureIsAnErrorOfExitCode1WithWhatTheSortDid) {
  const SortPlan plan = cpu_plan(1000);
  SortOptions options = options_to_file();
  options.verify = true;
  SortReport report = finished_report();
  report.outcome->verify_failure = "the output is not a permutation of the input";
  report.end = RunEnd{1, "out.u64: --verify failed: the output is not a permutation of the input; "
                         "the output was not committed"};
  const Json json = sort_stats_json(options, &plan, report);
  EXPECT_EQ(json["status"], "error");
  EXPECT_EQ(json["exit_code"], 1);
  EXPECT_EQ(json["error"], report.end.error);
  EXPECT_EQ(json["verified"], false);
  EXPECT_EQ(json["keys"], 1000);
  EXPECT_EQ(json["phases_seconds"]["sort"], 0.25);
}

TEST(SortStatsTest, UniqueCountsTheRecordsKeptAndTheDuplicatesDropped) {
  const SortPlan plan = cpu_plan(1000);
  SortOptions options = options_to_file();
  options.unique = true;
  SortReport report = finished_report();
  report.outcome->duplicates_dropped = 10;
  const Json json = sort_stats_json(options, &plan, report);
  EXPECT_EQ(json["unique"], true);
  EXPECT_EQ(json["records"], 1000) << "the records sorted";
  EXPECT_EQ(json["records_kept"], 990);
  EXPECT_EQ(json["duplicates_dropped"], 10);
}

TEST(SortStatsTest, WithoutUniqueEveryRecordIsKeptAndNoneDroppedIsNull) {
  const SortPlan plan = cpu_plan(1000);
  const Json json = sort_stats_json(options_to_file(), &plan, finished_report());
  EXPECT_EQ(json["unique"], false);
  EXPECT_EQ(json["records_kept"], 1000);
  EXPECT_TRUE(json["duplicates_dropped"].is_null()) << "does not apply without --unique";
}

TEST(SortStatsTest, SortedInTheOutputsPagesItSaysSoAndHasNoWriteRate) {
  const SortPlan plan = cpu_plan(1000);
  const Json written = sort_stats_json(options_to_file(), &plan, finished_report());
  EXPECT_EQ(written["throughput"]["write_bytes_per_second"], 8000 / 0.0625);
  SortReport report = finished_report();
  report.outcome->sorted_in_output_file = true;
  report.outcome->times.write = 1e-6;  // the unmapping
  const Json json = sort_stats_json(options_to_file(), &plan, report);
  EXPECT_EQ(json["sorted_in_output_file"], true);
  EXPECT_TRUE(json["throughput"]["write_bytes_per_second"].is_null()) << "nothing was written";
  EXPECT_EQ(json["phases_seconds"]["write"], 1e-6) << "the phases still add up";
  report.read->output_pages_reserve_waited_seconds = 0.5;  // rounds partitioned into them
  EXPECT_EQ(sort_stats_json(options_to_file(), &plan, report)["output_pages_reserve_waited_seconds"], 0.5);
}

// The output's pages reserved beside the sort: how much, and how long it took when it reserved all.
TEST(SortStatsTest, AReservationOfTheOutputsPagesSaysHowMuchAndHowLong) {
  const SortPlan plan = cpu_plan(1000);
  SortReport report = finished_report();
  report.output_reservation = OutputReservationReport{8000, 0.25};
  Json json = sort_stats_json(options_to_file(), &plan, report);
  EXPECT_EQ(json["output_reserved_bytes"], 8000);
  EXPECT_EQ(json["output_reserved_seconds"], 0.25);
  report.output_reservation = OutputReservationReport{4096, std::nullopt};  // stopped short: a full tmpfs
  json = sort_stats_json(options_to_file(), &plan, report);
  EXPECT_EQ(json["output_reserved_bytes"], 4096);
  EXPECT_TRUE(json["output_reserved_seconds"].is_null());
}

TEST(SortStatsTest, ARunThatFailedBeforeItsPlanHasNullsWhereItDidNotReach) {
  SortReport report;
  report.input_name = "stdin";
  report.end = RunEnd{2, "stdin: 1001 bytes are not a whole number of u64 keys (8 bytes each)"};
  const Json json = sort_stats_json(options_to_file(), nullptr, report);
  EXPECT_EQ(json["status"], "error");
  EXPECT_EQ(json["exit_code"], 2);
  EXPECT_EQ(json["error"], report.end.error);
  EXPECT_EQ(json["input"], "stdin");
  for (const char* member :
       {"input_format", "key_type", "record_size", "key_offset", "keys", "records", "bytes", "records_kept",
        "duplicates_dropped", "engine", "cpu_because",
        "plan", "read_direct_io", "output_pages_reserve_waited_seconds", "output_reserved_bytes",
        "output_reserved_seconds", "rounds", "round_keys", "round_sort_seconds", "written_while_sorting_bytes",
        "sorted_in_output_file", "spilled", "spilled_bytes", "spill_levels", "round_partition", "gpu"})
    EXPECT_TRUE(json[member].is_null()) << member << ": " << json[member];
  for (const auto& [phase, seconds] : json["phases_seconds"].items()) EXPECT_TRUE(seconds.is_null()) << phase;
  for (const auto& [rate, value] : json["throughput"].items()) EXPECT_TRUE(value.is_null()) << rate;
  EXPECT_EQ(json["peak_device_memory_bytes"], Json::array());
  EXPECT_EQ(json["verified"], false);
}

TEST(SortStatsTest, AFailedRunThatReadItsInputReportsTheRead) {
  SortReport report = finished_report();
  report.outcome.reset();
  report.end = RunEnd{2, "out.u64: write failed: No space left on device"};
  const SortPlan plan = cpu_plan(1000);
  const Json json = sort_stats_json(options_to_file(), &plan, report);
  EXPECT_EQ(json["phases_seconds"]["read"], 0.125);
  EXPECT_TRUE(json["phases_seconds"]["sort"].is_null());
  EXPECT_EQ(json["throughput"]["read_bytes_per_second"], 64000.0);
  EXPECT_EQ(json["engine"], "cpu");
  EXPECT_TRUE(json["keys"].is_null());
}

}  // namespace
}  // namespace rmgsort
