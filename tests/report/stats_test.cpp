// What --stats and --progress print: the JSON object's members, the peak memory, the progress line.
#include "report/stats.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "report/progress.hpp"

namespace rmgsort {
namespace {

TEST(JsonObjectTest, MembersKeepTheirOrderAndStringsAreEscaped) {
  const std::string json = JsonObject()
                               .add("name", "a \"quoted\"\\path\n")
                               .add("keys", std::uint64_t(18446744073709551615ull))
                               .add("ok", true)
                               .add("seconds", 0.25)
                               .add("gpus", std::vector<int>{0, 2})
                               .add("nested", JsonObject().add("x", -3))
                               .dump();
  EXPECT_EQ(json,
            "{\"name\":\"a \\\"quoted\\\"\\\\path\\n\",\"keys\":18446744073709551615,\"ok\":true,"
            "\"seconds\":0.25,\"gpus\":[0,2],\"nested\":{\"x\":-3}}");
}

TEST(JsonObjectTest, NonFiniteNumbersBecomeNull) {
  EXPECT_EQ(JsonObject().add("rate", 1.0 / 0.0).dump(), "{\"rate\":null}");
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
