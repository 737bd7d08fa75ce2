// What --stats and --progress print: the members every statistics object begins with, its file
// (on success and on failure), the peak memory, the progress line.
#include "report/stats.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <regex>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "io/cleanup.hpp"
#include "report/progress.hpp"

namespace rmgsort {
namespace {

TEST(StatsHeaderTest, ASuccessfulRunIsOkWithANullError) {
  RunStart start{"2025-03-01T12:34:56.789Z", "node7", std::vector<std::string>{"rmgsort", "sort", "a\xff"}};
  EXPECT_EQ(json_line(stats_header("sort", "0.1.0", start, RunEnd{})),
            "{\"schema\":1,\"status\":\"ok\",\"exit_code\":0,\"error\":null,\"command\":\"sort\","
            "\"version\":\"0.1.0\",\"start_time\":\"2025-03-01T12:34:56.789Z\",\"host\":\"node7\","
            "\"command_line\":[\"rmgsort\",\"sort\",\"a\\udcff\"]}");
}

TEST(StatsHeaderTest, AFailedRunIsAnErrorWithItsExitCodeAndMessage) {
  const Json header = stats_header("sort", "0.1.0", RunStart{"t", "", std::nullopt}, RunEnd{2, "in: cannot open"});
  EXPECT_EQ(header["status"], "error");
  EXPECT_EQ(header["exit_code"], 2);
  EXPECT_EQ(header["error"], "in: cannot open");
  EXPECT_TRUE(header["host"].is_null()) << "an unknown host is null, not \"\"";
  EXPECT_TRUE(header["command_line"].is_null());
  EXPECT_EQ(stats_header("sort", "0.1.0", RunStart{}, RunEnd{1, "--verify failed"})["status"], "error");
}

TEST(RunStartTest, NowIsAnIso8601UtcTimeOfThisHostAndThisProcesssArguments) {
  const RunStart start = RunStart::now();
  EXPECT_TRUE(std::regex_match(start.time, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"))) << start.time;
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  EXPECT_EQ(start.host, host);
  ASSERT_TRUE(start.command_line.has_value());
  ASSERT_FALSE(start.command_line->empty());
  EXPECT_NE(start.command_line->front().find("report_test"), std::string::npos) << start.command_line->front();
}

// The text of a file.
std::string contents(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

class StatsOutputTest : public testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/rmgsort-stats-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    path_ = dir_ + "/stats.json";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The files in the directory.
  [[nodiscard]] std::ptrdiff_t entries() const {
    return std::distance(std::filesystem::directory_iterator(dir_), std::filesystem::directory_iterator{});
  }

  std::string dir_, path_;
};

TEST_F(StatsOutputTest, PreparedStatisticsAppearOnlyWhenCommitted) {
  StatsOutput stats(path_, "sort", "0.0", RunStart{});
  stats.prepare(Json{{"status", "ok"}});
  EXPECT_FALSE(std::filesystem::exists(path_));
  stats.commit();
  EXPECT_EQ(contents(path_), "{\"status\":\"ok\"}\n");
}

TEST_F(StatsOutputTest, AFailureBeforeAnythingWasPreparedIsWrittenAndCommitted) {
  StatsOutput stats(path_, "sort", "0.0", RunStart{});
  stats.write_failure(Json{{"status", "error"}});
  EXPECT_EQ(contents(path_), "{\"status\":\"error\"}\n");
  EXPECT_EQ(entries(), 1) << "a temporary file is left";
}

TEST_F(StatsOutputTest, AFailureReplacesPreparedStatistics) {
  StatsOutput stats(path_, "sort", "0.0", RunStart{});
  stats.prepare(Json{{"status", "ok"}});
  stats.write_failure(Json{{"status", "error"}});
  EXPECT_EQ(contents(path_), "{\"status\":\"error\"}\n");
  EXPECT_EQ(entries(), 1) << "a temporary file is left";
}

TEST_F(StatsOutputTest, AFailureAfterTheCommitReplacesCommittedStatistics) {
  StatsOutput stats(path_, "sort", "0.0", RunStart{});
  stats.prepare(Json{{"status", "ok"}});
  stats.commit();
  stats.write_failure(Json{{"status", "error"}});
  EXPECT_EQ(contents(path_), "{\"status\":\"error\"}\n");
}

// Statistics that cannot be written fail the run with an error naming --stats, and the failed run's
// statistics are not tried again: they would fail the same way and say so a second time.
TEST(StatsOutputFullDeviceTest, StatisticsThatCannotBeWrittenAreNotTriedAgain) {
  StatsOutput stats("/dev/full", "sort", "0.0", RunStart{});
  try {
    stats.prepare(Json{{"status", "ok"}});
    ADD_FAILURE() << "writing to /dev/full succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "--stats: /dev/full: write failed: No space left on device");
    EXPECT_EQ(e.error_number(), ENOSPC);
  }
  EXPECT_NO_THROW(stats.write_failure(Json{{"status", "error"}}));
}

// Runs RUN in a child process with the cleanup handlers installed (SIGNAL's default action restored
// first: a handled signal inherited ignored stays ignored), and returns the signal that ended the
// child: -1 when it exited, -2 when it could not be run.
int signal_ending_child(int signal_number, const std::function<void()>& run) {
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) return -2;
  if (child == 0) {
    signal(signal_number, SIG_DFL);
    install_cleanup_signal_handlers();
    run();
    _exit(0);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child) return -2;
  return WIFSIGNALED(status) ? WTERMSIG(status) : -1;
}

// A signal after the statistics' rename but before the outputs' (the run has not succeeded): the
// handler's statistics replace the committed ones. After settle() (the outputs in place), they stay.
TEST_F(StatsOutputTest, ASignalBeforeSettleReplacesCommittedStatistics) {
  for (const bool settled : {false, true}) {
    SCOPED_TRACE(settled ? "settled" : "committed only");
    EXPECT_EQ(signal_ending_child(SIGTERM,
                                  [&] {
                                    StatsOutput stats(path_, "sort", "0.0", RunStart{});
                                    stats.prepare(Json{{"status", "ok"}});
                                    stats.commit();
                                    if (settled) stats.settle();
                                    raise(SIGTERM);
                                  }),
              SIGTERM);
    const std::string written = contents(path_);
    if (settled) {
      EXPECT_EQ(written, "{\"status\":\"ok\"}\n");
    } else {
      EXPECT_NE(written.find("\"status\":\"error\""), std::string::npos) << written;
      EXPECT_NE(written.find("\"signal\":\"SIGTERM\""), std::string::npos) << written;
      EXPECT_NE(written.find("\"exit_code\":143"), std::string::npos) << written;
    }
    EXPECT_EQ(entries(), 1) << "a temporary file is left";
    std::filesystem::remove(path_);
  }
}

// Armed as it is created: a signal that finds the statistics' temporary file (what a caller waiting
// for the run to start sees first) replaces the old statistics by its own, in every place they go.
TEST_F(StatsOutputTest, ASignalRightAfterCreationFindsTheStatisticsArmed) {
  for (const bool old_file : {false, true}) {
    SCOPED_TRACE(old_file ? "over an old file" : "no file before");
    if (old_file) std::ofstream(path_) << "OLD";
    EXPECT_EQ(signal_ending_child(SIGHUP,
                                  [&] {
                                    StatsOutput stats(path_, "merge", "0.0", RunStart{});
                                    raise(SIGHUP);
                                  }),
              SIGHUP);
    const std::string written = contents(path_);
    EXPECT_NE(written.find("\"signal\":\"SIGHUP\""), std::string::npos) << written;
    EXPECT_NE(written.find("\"command\":\"merge\""), std::string::npos) << written;
    EXPECT_NE(written.find("\"exit_code\":129"), std::string::npos) << written;
    EXPECT_EQ(entries(), 1) << "a temporary file is left";
    std::filesystem::remove(path_);
  }
}

// A FIFO is written in place: its open waits for a reader, and a signal meanwhile still ends the
// run (the handled signals are blocked only while a staged file is created and armed).
TEST_F(StatsOutputTest, ASignalEndsARunWaitingToOpenAFifoWithNoReader) {
  const std::string fifo = dir_ + "/stats.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::fflush(nullptr);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    signal(SIGTERM, SIG_DFL);
    install_cleanup_signal_handlers();
    StatsOutput stats(fifo, "sort", "0.0", RunStart{});  // waits here: no reader
    _exit(0);
  }
  usleep(100 * 1000);  // (the child blocks in open whether or not it got there yet)
  ASSERT_EQ(kill(child, SIGTERM), 0);
  int status = 0;
  pid_t ended = 0;
  for (int i = 0; i < 1000 && ended == 0; ++i) {  // up to 10 s
    ended = waitpid(child, &status, WNOHANG);
    if (ended == 0) usleep(10 * 1000);
  }
  if (ended == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    FAIL() << "SIGTERM did not end a run waiting for the FIFO's reader";
  }
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
}

// A failed run's statistics go to a FIFO through the descriptor that opened it: closed, its reader
// would take the close for the end, and an open again would wait for a reader that never comes. The
// FIFO is watched (inotify): no second open.
TEST_F(StatsOutputTest, AFailedRunsStatisticsGoToAFifoWithoutAnotherOpen) {
  const std::string fifo = dir_ + "/stats.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  std::optional<StatsOutput> stats(std::in_place, fifo, "sort", "0.0", RunStart{});
  const int watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(watch, 0);
  ASSERT_GE(inotify_add_watch(watch, fifo.c_str(), IN_OPEN), 0);
  stats->write_failure(Json{{"status", "error"}});
  stats.reset();
  alignas(inotify_event) char events[4096];
  const ssize_t got = read(watch, events, sizeof events);
  EXPECT_TRUE(got < 0 && errno == EAGAIN) << "the FIFO was opened again";
  char text[256] = {};
  EXPECT_EQ(read(reader, text, sizeof text - 1), ssize_t(std::strlen("{\"status\":\"error\"}\n")));
  EXPECT_STREQ(text, "{\"status\":\"error\"}\n");
  close(watch);
  close(reader);
}

// A failed run's statistics stay: a signal after them (a rank waiting for the others) does not
// replace them by its own.
TEST_F(StatsOutputTest, ASignalAfterTheFailureStatisticsLeavesThem) {
  EXPECT_EQ(signal_ending_child(SIGTERM,
                                [&] {
                                  StatsOutput stats(path_, "sort", "0.0", RunStart{});
                                  stats.write_failure(Json{{"status", "error"}, {"error", "the run's own"}});
                                  raise(SIGTERM);
                                }),
            SIGTERM);
  EXPECT_EQ(contents(path_), "{\"status\":\"error\",\"error\":\"the run's own\"}\n");
  EXPECT_EQ(entries(), 1) << "a temporary file is left";
}

TEST_F(StatsOutputTest, NoPathWritesNothing) {
  StatsOutput stats("", "sort", "0.0", RunStart{});
  stats.prepare(Json{{"status", "ok"}});
  stats.commit();
  stats.write_failure(Json{{"status", "error"}});
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

TEST(StatsOutputStdoutTest, AFailureAfterStatisticsWentToStandardOutputWritesNoSecondObject) {
  testing::internal::CaptureStdout();
  {
    StatsOutput stats("-", "sort", "0.0", RunStart{});
    stats.prepare(Json{{"status", "ok"}});
    stats.commit();
    stats.write_failure(Json{{"status", "error"}});
  }
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "{\"status\":\"ok\"}\n");
  testing::internal::CaptureStdout();
  StatsOutput("-", "sort", "0.0", RunStart{}).write_failure(Json{{"status", "error"}});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "{\"status\":\"error\"}\n");
}

// --stats naming standard error's regular file (`--stats /dev/stderr 2>> run.log`): written through
// descriptor 2 after the log's lines, never replaced; one object only, as for standard output.
TEST_F(StatsOutputTest, StandardErrorsFileGetsTheStatisticsAppended) {
  const std::string log = dir_ + "/run.log";
  std::ofstream(log) << "an earlier line\n";
  const int saved = dup(STDERR_FILENO);
  ASSERT_GE(saved, 0);
  const int file = open(log.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  ASSERT_GE(file, 0);
  ASSERT_GE(dup2(file, STDERR_FILENO), 0);
  close(file);
  {
    StatsOutput stats(log, "sort", "0.0", RunStart{});
    stats.prepare(Json{{"status", "ok"}});
    stats.commit();
    stats.write_failure(Json{{"status", "error"}});
  }
  StatsOutput("/dev/stderr", "sort", "0.0", RunStart{}).write_failure(Json{{"status", "error"}});
  dup2(saved, STDERR_FILENO);
  close(saved);
  EXPECT_EQ(contents(log), "an earlier line\n{\"status\":\"ok\"}\n{\"status\":\"error\"}\n");
  EXPECT_EQ(entries(), 1) << "a temporary file is left";
}

TEST(PeakHostMemoryTest, CountsMemoryWhileItIsResident) {
  const std::uint64_t before = peak_host_memory_bytes();
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  std::vector<char> touched(kBytes);
  std::memset(touched.data(), 1, touched.size());  // every page resident
  const std::uint64_t during = peak_host_memory_bytes();
  EXPECT_GE(during, before);
  EXPECT_GE(during, kBytes);
  EXPECT_EQ(touched[kBytes - 1], 1);
}

TEST(ProgressLineTest, KnownTotalShowsBytesPercentRateAndEta) {
  ProgressSnapshot s;
  s.phase = "reading keys.u64";
  s.total = 4 << 20;
  s.done = 1 << 20;
  s.seconds = 1;  // 1 MiB/s: 3 MiB left, 3 s
  EXPECT_EQ(progress_line(s, 100), "rmgsort: reading keys.u64 1.00 MiB/4.00 MiB (25%) 1.00 MiB/s ETA 3s");
}

TEST(ProgressLineTest, RoundsStandBesideThePhase) {
  ProgressSnapshot s;
  s.phase = "sorting rounds";
  s.rounds_done = 3;
  s.rounds_total = 7;
  EXPECT_EQ(progress_line(s, 100), "rmgsort: sorting rounds [3/7 rounds]");
  s.rounds_done = 9;  // a redraw racing rounds(): never more done than planned
  EXPECT_EQ(progress_line(s, 100), "rmgsort: sorting rounds [7/7 rounds]");
}

TEST(ProgressLineTest, UnknownTotalShowsBytesAndRateWithoutEta) {
  ProgressSnapshot s;
  s.phase = "spilling stdin to /tmp";
  s.done = 3 << 20;
  s.seconds = 2;
  EXPECT_EQ(progress_line(s, 100), "rmgsort: spilling stdin to /tmp 3.00 MiB 1.50 MiB/s");
}

TEST(ProgressLineTest, DonePhaseShowsNoEta) {
  ProgressSnapshot s;
  s.phase = "writing out";
  s.total = s.done = 2048;
  s.seconds = 1;
  EXPECT_EQ(progress_line(s, 100), "rmgsort: writing out 2.00 KiB/2.00 KiB (100%) 2.00 KiB/s");
}

TEST(ProgressLineTest, LongPhaseNamesLoseTheirMiddleToFitTheWidth) {
  ProgressSnapshot s;
  s.phase = "spilling /a/very/long/directory/name/that/goes/on/and/on/keys.u64 to /some/temporary/directory";
  s.rounds_done = 1;
  s.rounds_total = 64;
  for (std::size_t columns : {100, 60, 40}) {
    const std::string line = progress_line(s, columns);
    EXPECT_LE(line.size(), columns) << line;
    EXPECT_NE(line.find("..."), std::string::npos) << line;
    // The name keeps its head and its tail; the numbers survive whole.
    EXPECT_EQ(line.rfind("rmgsort: spill", 0), 0u) << line;
    EXPECT_EQ(line.substr(line.size() - 17), "ory [1/64 rounds]") << line;
  }
}

TEST(ProgressLineTest, ElisionKeepsUtf8SequencesWhole) {
  ProgressSnapshot s;
  s.phase = std::string(40, 'a') + "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9" + std::string(40, 'b');
  for (std::size_t columns = 40; columns < 60; ++columns) {
    const std::string line = progress_line(s, columns);
    const std::size_t cut = line.find("...");
    ASSERT_NE(cut, std::string::npos);
    // Neither side of the cut starts or ends inside a two-byte sequence.
    EXPECT_NE(static_cast<unsigned char>(line[cut - 1]), 0xc3u) << columns;
    EXPECT_NE(static_cast<unsigned char>(line[cut + 3]) & 0xc0u, 0x80u) << columns;
  }
}

TEST(FormatDurationTest, SecondsMinutesHours) {
  EXPECT_EQ(format_duration(0.4), "0s");
  EXPECT_EQ(format_duration(42), "42s");
  EXPECT_EQ(format_duration(185), "3m05s");
  EXPECT_EQ(format_duration(3720), "1h02m");
  EXPECT_EQ(format_duration(-1), "?");
  EXPECT_EQ(format_duration(1.0 / 0.0), "?");
}

TEST(ProgressTest, DisabledProgressWritesNothing) {
  testing::internal::CaptureStderr();
  {
    Progress progress(ProgressMode::never);
    EXPECT_FALSE(progress.enabled());
    progress.phase("reading", 100);
    progress.advance(50);
    progress.rounds(1, 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // longer than a redraw period
    progress.finish();
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(ProgressTest, EnabledProgressDrawsThePhaseWithItsRoundsAndErasesTheLine) {
  testing::internal::CaptureStderr();
  {
    Progress progress(ProgressMode::always);
    EXPECT_TRUE(progress.enabled());
    progress.phase("sorting the rounds of keys", 1000);
    progress.rounds(2, 5);
    progress.advance(400);
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // five redraws, one at least under load
  }
  const std::string drawn = testing::internal::GetCapturedStderr();
  EXPECT_NE(drawn.find("rmgsort: sorting the rounds of keys [2/5 rounds] 400 B/1000 B (40%)"), std::string::npos)
      << drawn;
  EXPECT_EQ(drawn.substr(drawn.size() - 4), "\r\033[K");  // erased on destruction
  EXPECT_EQ(drawn.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace rmgsort
