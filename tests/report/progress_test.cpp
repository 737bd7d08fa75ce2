// --progress lines and json (and the summary every style ends with), driven by a fake clock and
// update() calls in place of the drawing thread: what is written, and when.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "report/json.hpp"
#include "report/progress.hpp"

namespace rmgsort {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using TimePoint = std::chrono::steady_clock::time_point;

// A file to write progress to, read back whole; and a clock that moves only when told.
class ProgressLogTest : public testing::Test {
 protected:
  void SetUp() override { ASSERT_NE(file_, nullptr); }
  void TearDown() override { std::fclose(file_); }

  Progress make(ProgressMode mode) {
    return Progress(mode, file_, [this] { return now_; });
  }
  void at(std::chrono::steady_clock::duration since_start) { now_ = TimePoint{} + since_start; }

  std::string written() {
    std::fflush(file_);
    std::string text;
    std::rewind(file_);
    for (int c; (c = std::fgetc(file_)) != EOF;) text.push_back(char(c));
    return text;
  }
  // The written text as lines, each ended by "\n" (a missing last newline fails).
  std::vector<std::string> lines() {
    const std::string text = written();
    std::vector<std::string> result;
    std::size_t begin = 0;
    for (std::size_t end; (end = text.find('\n', begin)) != std::string::npos; begin = end + 1)
      result.push_back(text.substr(begin, end - begin));
    EXPECT_EQ(begin, text.size()) << "the last line has no newline: " << text;
    return result;
  }

  std::FILE* file_ = std::tmpfile();
  TimePoint now_{};
};

TEST(ProgressThrottleTest, AtMostOneLinePerIntervalCountedFromTheLastLineWritten) {
  const TimePoint start{};
  ProgressThrottle throttle(start, seconds(5));
  EXPECT_FALSE(throttle.take(start));
  EXPECT_FALSE(throttle.take(start + milliseconds(4999)));
  EXPECT_TRUE(throttle.take(start + seconds(5)));
  EXPECT_FALSE(throttle.take(start + seconds(5)));  // taken: the next is due at 10 s
  EXPECT_FALSE(throttle.take(start + milliseconds(9999)));
  throttle.wrote(start + seconds(9));  // a phase's end, out of turn
  EXPECT_FALSE(throttle.take(start + seconds(10)));
  EXPECT_FALSE(throttle.take(start + milliseconds(13999)));
  EXPECT_TRUE(throttle.take(start + seconds(14)));
  EXPECT_TRUE(throttle.take(start + seconds(100)));  // a late update is due at once
}

TEST_F(ProgressLogTest, LinesAreDueEveryIntervalAndAtEachPhaseEndWithoutControlCharacters) {
  {
    Progress progress = make(ProgressMode::lines);
    EXPECT_TRUE(progress.enabled());
    progress.phase("reading keys.u64", 4000);
    progress.advance(1000);
    for (int ms : {200, 1000, 4999}) {  // updates before the interval is over write nothing
      at(milliseconds(ms));
      progress.update();
    }
    EXPECT_EQ(written(), "");
    at(seconds(5));
    progress.update();  // 1000 B in 5 s: 200 B/s, 3000 B left: 15 s
    at(seconds(6));
    progress.advance(1000);
    progress.update();  // not due
    at(seconds(10));
    progress.update();  // 2000 B in 10 s
    at(seconds(12));
    progress.advance(2000);
    progress.phase("sorting", 0);  // ends reading: its last line, at once
    at(seconds(13));
    progress.update();  // 1 s after the last line: not due
    at(seconds(14));
    progress.finish();  // ends sorting
    at(seconds(30));
    progress.update();  // finished: nothing more
    progress.phase("writing", 0);
  }
  EXPECT_EQ(lines(), (std::vector<std::string>{
                         "rmgsort: reading keys.u64 1000 B/3.91 KiB (25%) 200 B/s ETA 15s",
                         "rmgsort: reading keys.u64 1.95 KiB/3.91 KiB (50%) 200 B/s ETA 10s",
                         "rmgsort: reading keys.u64 3.91 KiB/3.91 KiB (100%) 333 B/s, done in 12.00s",
                         "rmgsort: sorting, done in 2.00s",
                     }));
  EXPECT_EQ(written().find_first_of("\r\033"), std::string::npos);
}

TEST_F(ProgressLogTest, LinesShowRoundsAndUnknownTotals) {
  {
    Progress progress = make(ProgressMode::lines);
    progress.phase("spilling stdin to /tmp", 0);
    progress.advance(3 << 20);
    at(seconds(6));
    progress.update();
    progress.phase("sorting rounds", 3 << 20);
    progress.rounds(2, 7);
    progress.advance(1 << 20);
    at(seconds(11));
    progress.update();
  }
  EXPECT_EQ(lines(), (std::vector<std::string>{
                         "rmgsort: spilling stdin to /tmp 3.00 MiB 512.00 KiB/s",
                         "rmgsort: spilling stdin to /tmp 3.00 MiB 512.00 KiB/s, done in 6.00s",
                         "rmgsort: sorting rounds [2/7 rounds] 1.00 MiB/3.00 MiB (33%) 204.80 KiB/s ETA 10s",
                     }));
}

TEST_F(ProgressLogTest, APhaseNameWithControlCharactersStaysOneLine) {
  {
    Progress progress = make(ProgressMode::lines);
    progress.phase("reading a\rb\nc\033[K.u64", 0);
    progress.finish();
  }
  EXPECT_EQ(lines(), std::vector<std::string>{"rmgsort: reading a?b?c?[K.u64, done in 0.00s"});
}

TEST_F(ProgressLogTest, ARunThatThrowsLeavesItsPhaseWithoutAFinalLine) {
  {
    Progress progress = make(ProgressMode::lines);
    progress.phase("reading keys.u64", 100);
    at(seconds(5));
    progress.update();
  }  // destroyed without finish(): the phase did not end
  EXPECT_EQ(lines(), std::vector<std::string>{"rmgsort: reading keys.u64 0 B/100 B (0%)"});
}

TEST_F(ProgressLogTest, SummaryEndsEveryStyleWithOneLine) {
  const ProgressSummary cpu{"sorted", 4 << 20, 2, "cpu", ""};
  for (ProgressMode mode : {ProgressMode::lines, ProgressMode::always}) {
    std::FILE* previous = file_;
    file_ = std::tmpfile();
    {
      Progress progress = make(mode);
      progress.phase("sorting", 0);
      progress.summary(cpu);
      progress.summary(cpu);  // a second summary still writes: the caller's to avoid
    }
    const std::string text = written();
    const std::string line = "rmgsort: sorted 4.00 MiB in 2.00s (2.00 MiB/s) on the CPU\n";
    EXPECT_EQ(text.substr(text.size() - 2 * line.size()), line + line) << text;
    if (mode == ProgressMode::always) {
      EXPECT_EQ(text.substr(0, text.size() - 2 * line.size()), "\r\033[K");
    }
    std::fclose(file_);
    file_ = previous;
  }
}

TEST(ProgressSummaryTest, NamesTheGpusAndLeavesTheRateOutWhenNoTimeWasMeasured) {
  EXPECT_EQ(summary_line({"sorted", 3ull << 30, 1.5, "gpu", "2 GPUs"}),
            "rmgsort: sorted 3.00 GiB in 1.50s (2.00 GiB/s) on 2 GPUs");
  EXPECT_EQ(summary_line({"checked", 0, 0, "cpu", ""}), "rmgsort: checked 0 B in 0.00s on the CPU");
  EXPECT_EQ(summary_line({"sorted", 1 << 20, 185, "cpu", ""}),
            "rmgsort: sorted 1.00 MiB in 3m05s (5.53 KiB/s) on the CPU");
}

// A failed run under --progress json ends with this object (before the error's line): the message
// whole, whatever bytes it holds, on one line.
TEST(ProgressFailureTest, OneObjectWithTheMessageTheExitStatusAndTheTime) {
  EXPECT_EQ(failure_json_line("out: write failed: No space left on device", 2, 1.23456),
            R"({"phase":"failed","description":"out: write failed: No space left on device","exit_status":2,)"
            R"("elapsed_seconds":1.235})");
  // A newline in a name stays escaped; a byte that is no UTF-8 is \udcXX, as --stats writes it.
  EXPECT_EQ(failure_json_line("in\n\"x\"\xff: cannot open", 1, 0),
            R"({"phase":"failed","description":"in\n\"x\"\udcff: cannot open","exit_status":1,"elapsed_seconds":0.0})");
}

// Only an announced JSON progress ends a failure with the object; the time counts from the
// announcement.
TEST(ProgressFailureTest, OnlyWhenAnnounced) {
  announce_json_progress(false);
  EXPECT_EQ(json_progress_failure("in: cannot open", 2), "");
  announce_json_progress(true);
  const Json object = Json::parse(json_progress_failure("in: cannot open", 2));
  EXPECT_EQ(object["phase"], "failed");
  EXPECT_EQ(object["exit_status"], 2);
  EXPECT_GE(object["elapsed_seconds"].get<double>(), 0.0);
  EXPECT_LT(object["elapsed_seconds"].get<double>(), 60.0);
  announce_json_progress(false);
  EXPECT_EQ(json_progress_failure("in: cannot open", 2), "");
}

TEST_F(ProgressLogTest, JsonWritesOneObjectALineEachParsingAndEndsWithDone) {
  {
    Progress progress = make(ProgressMode::json);
    at(milliseconds(500));
    progress.phase("reading keys.u64", 4000);
    progress.advance(1000);
    at(milliseconds(5500));
    progress.update();
    progress.phase("sorting rounds on 2 GPUs", 4000);
    progress.rounds(3, 7);
    progress.advance(4000);
    at(milliseconds(7500));
    progress.summary({"sorted", 4000, 7.5, "gpu", "2 GPUs"});
  }
  const std::vector<std::string> written_lines = lines();
  ASSERT_EQ(written_lines.size(), 4u);
  std::vector<Json> objects;
  for (const std::string& line : written_lines) {
    EXPECT_EQ(line.find_first_of("\r\033"), std::string::npos) << line;
    objects.push_back(Json::parse(line));  // throws on a line that does not parse
  }
  EXPECT_EQ(objects[0].dump(),
            R"({"phase":"reading","description":"reading keys.u64","finished":false,"bytes_done":1000,)"
            R"("bytes_total":4000,"bytes_per_second":200.0,"eta_seconds":15.0,"phase_seconds":5.0,)"
            R"("elapsed_seconds":5.5,"rounds_done":null,"rounds_total":null})");
  EXPECT_EQ(objects[1]["finished"], true);  // reading, ended by the next phase
  EXPECT_EQ(objects[1]["eta_seconds"], nullptr);
  EXPECT_EQ(objects[1]["bytes_done"], 1000);
  EXPECT_EQ(objects[2]["phase"], "sorting");
  EXPECT_EQ(objects[2]["description"], "sorting rounds on 2 GPUs");
  EXPECT_EQ(objects[2]["finished"], true);
  EXPECT_EQ(objects[2]["rounds_done"], 3);
  EXPECT_EQ(objects[2]["rounds_total"], 7);
  EXPECT_EQ(objects[2]["bytes_per_second"], 2000.0);
  EXPECT_EQ(objects[2]["phase_seconds"], 2.0);
  EXPECT_EQ(objects[3].dump(),
            R"({"phase":"done","description":"sorted 3.91 KiB in 7.50s (533 B/s) on 2 GPUs","bytes":4000,)"
            R"("elapsed_seconds":7.5,"bytes_per_second":533.0,"engine":"gpu"})");
}

TEST_F(ProgressLogTest, JsonKeepsTheBytesOfNamesThatAreNotUtf8) {
  {
    Progress progress = make(ProgressMode::json);
    progress.phase("reading in\xff.u64", 0);
    progress.finish();
  }
  const std::vector<std::string> written_lines = lines();
  ASSERT_EQ(written_lines.size(), 1u);
  // Python's json.load reads the lone surrogate (nlohmann's parser refuses it).
  EXPECT_NE(written_lines[0].find(R"("description":"reading in\udcff.u64","finished":true,)"), std::string::npos)
      << written_lines[0];
}

TEST_F(ProgressLogTest, NeverAndAutomaticOffATerminalWriteNothingNotEvenTheSummary) {
  for (ProgressMode mode : {ProgressMode::never, ProgressMode::automatic}) {
    Progress progress = make(mode);  // file_ is no terminal
    EXPECT_FALSE(progress.enabled());
    progress.phase("reading", 100);
    progress.advance(50);
    at(seconds(60));
    progress.update();
    progress.summary({"sorted", 100, 1, "cpu", ""});
  }
  EXPECT_EQ(written(), "");
}

TEST_F(ProgressLogTest, TerminalRedrawsOnEveryUpdate) {
  {
    Progress progress = make(ProgressMode::always);
    progress.phase("sorting", 1000);
    progress.advance(250);
    at(seconds(1));
    progress.update();
    at(milliseconds(1200));
    progress.update();
  }
  EXPECT_EQ(written(),
            "\r\033[Krmgsort: sorting 250 B/1000 B (25%) 250 B/s ETA 3s"
            "\r\033[Krmgsort: sorting 250 B/1000 B (25%) 208 B/s ETA 4s\r\033[K");
}

TEST(FormatSecondsTest, HundredthsBelowAMinuteThenMinutesAndSeconds) {
  EXPECT_EQ(format_seconds(0), "0.00s");
  EXPECT_EQ(format_seconds(0.004), "0.00s");
  EXPECT_EQ(format_seconds(12.345), "12.35s");
  EXPECT_EQ(format_seconds(59.994), "59.99s");
  EXPECT_EQ(format_seconds(59.996), "1m00s");
  EXPECT_EQ(format_seconds(185), "3m05s");
  EXPECT_EQ(format_seconds(-1), "?");
}

}  // namespace
}  // namespace rmgsort
