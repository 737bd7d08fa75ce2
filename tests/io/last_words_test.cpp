// The words a handled signal leaves (io/last_words.hpp): in a child that arms them and raises the
// signal, they reach a descriptor, or a staged file (anonymous, or the named fallback) that the handler
// names over an existing file or as a new one, with nothing else left in its directory; disarmed, or
// when the signal is ignored, nothing is written.
#include "io/last_words.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iterator>
#include <string>
#include <vector>

#include "io/cleanup.hpp"
#include "io/output_file.hpp"
#include "io_test_support.hpp"

namespace rmgsort {
namespace {

// A line per handled signal that names it.
std::vector<std::string> lines_naming_signals() {
  std::vector<std::string> lines;
  for (const int signal_number : kCleanupSignals) lines.push_back("stopped by " + std::to_string(signal_number) + "\n");
  return lines;
}

std::string text_of(const std::string& path) {
  const std::vector<std::byte> bytes = test::read_plain_file(path);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// In a child: stages PATH (named fallback when NAMED), arms the words into it (disarmed again when
// DISARM), raises SIGNAL; returns the child's wait status.
int staged_file_after_signal(const std::string& path, bool named, int signal_number, bool disarm = false) {
  return test::run_in_child([&] {
    install_cleanup_signal_handlers();
    const std::vector<std::string> lines = lines_naming_signals();
    OutputFile file = named ? OutputFile::create_named(path) : OutputFile::create(path);
    if (!arm_last_words(file, lines)) return 3;
    if (disarm) disarm_last_words();
    raise(signal_number);
    return 0;
  });
}

// Over an existing file (SIGTERM) and as a new one (SIGHUP), anonymous and named.
TEST(LastWords, ASignalNamesTheStagedFileWithItsLine) {
  for (const bool existing : {true, false}) {
    for (const bool named : {false, true}) {
      SCOPED_TRACE(std::string(existing ? "existing" : "new") + (named ? ", named" : ", anonymous"));
      const int signal_number = existing ? SIGTERM : SIGHUP;
      test::TempDir dir(test::disk_directory());
      if (existing) test::write_plain_file(dir.file("stats.json"), test::pattern_bytes(10));
      const int status = staged_file_after_signal(dir.file("stats.json"), named, signal_number);
      EXPECT_TRUE(test::killed_by(status, signal_number));
      EXPECT_EQ(text_of(dir.file("stats.json")), "stopped by " + std::to_string(signal_number) + "\n");
      EXPECT_EQ(test::directory_entries(dir.path()), std::vector<std::string>{"stats.json"});
    }
  }
}

TEST(LastWords, DisarmedTheyLeaveTheExistingFileAndNothingElse) {
  for (const bool named : {false, true}) {
    test::TempDir dir(test::disk_directory());
    test::write_plain_file(dir.file("stats.json"), test::pattern_bytes(10));
    const int status = staged_file_after_signal(dir.file("stats.json"), named, SIGTERM, true);
    EXPECT_TRUE(test::killed_by(status, SIGTERM));
    EXPECT_EQ(test::read_plain_file(dir.file("stats.json")), test::pattern_bytes(10)) << named;
    EXPECT_EQ(test::directory_entries(dir.path()), std::vector<std::string>{"stats.json"}) << named;
  }
}

TEST(LastWords, ADescriptorGetsTheLineOfTheSignal) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("words");
  const int status = test::run_in_child([&] {
    install_cleanup_signal_handlers();
    const std::vector<std::string> lines = lines_naming_signals();
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return 3;
    arm_last_words(fd, lines);
    raise(SIGUSR1);
    return 0;
  });
  EXPECT_TRUE(test::killed_by(status, SIGUSR1));
  EXPECT_EQ(text_of(path), "stopped by " + std::to_string(SIGUSR1) + "\n");
}

}  // namespace
}  // namespace rmgsort
