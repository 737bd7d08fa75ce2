#include "io/file_identity.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/detail/output_target.hpp"
#include "io/standard_descriptors.hpp"
#include "io/unique_fd.hpp"
#include "io_test_support.hpp"

namespace rmgsort {
namespace {

// The message require_separate_files throws, or "" when it accepts FILES.
std::string refusal(const std::vector<WrittenFile>& files, const std::optional<FileIdentity>& input = std::nullopt) {
  try {
    require_separate_files(files, input, "in");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(FileIdentity, EveryNameOfAnExistingFileIsTheSameFile) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("keys");
  test::write_plain_file(path, test::pattern_bytes(64));
  ASSERT_EQ(link(path.c_str(), dir.file("hard").c_str()), 0);
  ASSERT_EQ(symlink(path.c_str(), dir.file("soft").c_str()), 0);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const auto identity = identity_of_existing(path);
  ASSERT_TRUE(identity);
  EXPECT_TRUE(identity->regular);
  for (const std::string& name : {dir.file("hard"), dir.file("soft"), dir.path() + "/../" +
                                                                           dir.path().substr(dir.path().rfind('/') + 1) + "/keys",
                                  "/dev/fd/" + std::to_string(fd), "/proc/self/fd/" + std::to_string(fd)}) {
    EXPECT_EQ(identity_of_existing(name), identity) << name;
    EXPECT_EQ(identity_of_output(name), identity) << name;
  }
  EXPECT_EQ(identity_of_descriptor(fd), identity);
  close(fd);
}

TEST(FileIdentity, AnOutputNotCreatedYetIsItsDirectoryAndName) {
  test::TempDir dir(test::disk_directory());
  ASSERT_EQ(mkdir(dir.file("d").c_str(), 0755), 0);
  const auto identity = identity_of_output(dir.file("d/new"));
  ASSERT_TRUE(identity);
  EXPECT_EQ(identity->name, "new");
  EXPECT_FALSE(identity->regular);
  EXPECT_EQ(identity_of_output(dir.file("d/../d/new")), identity);
  EXPECT_NE(identity_of_output(dir.file("d/other")), identity);
  EXPECT_NE(identity_of_output(dir.file("new")), identity);
  // A dangling link leads to the missing file it names, which OutputFile creates: one file with it.
  ASSERT_EQ(symlink("gone", dir.file("d/link").c_str()), 0);
  EXPECT_EQ(identity_of_output(dir.file("d/link"))->name, "gone");
  EXPECT_EQ(identity_of_output(dir.file("d/link")), identity_of_output(dir.file("d/gone")));
  EXPECT_FALSE(identity_of_output(dir.file("missing/new")));
  EXPECT_FALSE(identity_of_existing(dir.file("d/new")));
}

TEST(FileIdentity, DescriptorsOfOnePipeAreOneFile) {
  int ends[2];
  ASSERT_EQ(pipe(ends), 0);
  EXPECT_EQ(identity_of_descriptor(ends[0]), identity_of_descriptor(ends[1]));
  EXPECT_EQ(identity_of_existing("/proc/self/fd/" + std::to_string(ends[1])), identity_of_descriptor(ends[0]));
  close(ends[0]);
  close(ends[1]);
  EXPECT_FALSE(identity_of_descriptor(ends[0]));
}

TEST(RequireSeparateFiles, TwoOutputsThatAreOneFileAreRefusedNamingBoth) {
  test::TempDir dir(test::disk_directory());
  const std::string message = refusal({{"-o out", identity_of_output(dir.file("out")), true},
                                       {"--stats x/../out", identity_of_output(dir.file("out"))}});
  EXPECT_NE(message.find("--stats x/../out and -o out are the same file"), std::string::npos) << message;
  EXPECT_EQ(refusal({{"-o out", identity_of_output(dir.file("out")), true},
                     {"--stats stats", identity_of_output(dir.file("stats"))}}),
            "");
  EXPECT_EQ(refusal({{"-o out", std::nullopt, true}, {"--stats out", std::nullopt}}), "");  // unknown: not equal
}

TEST(RequireSeparateFiles, OnlyAnOutputReplacedByRenameMayBeTheInput) {
  test::TempDir dir(test::disk_directory());
  const std::string path = dir.file("in");
  test::write_plain_file(path, test::pattern_bytes(64));
  const auto input = identity_of_existing(path);
  EXPECT_EQ(refusal({{"-o in", identity_of_output(path), true}}, input), "");
  const std::string message = refusal({{"-o out", identity_of_output(dir.file("out")), true},
                                       {"--stats in", identity_of_output(path)}},
                                      input);
  EXPECT_NE(message.find("--stats in: is the input file in"), std::string::npos) << message;
  // A non-regular input (/dev/null, a pipe) is not damaged by being written.
  EXPECT_EQ(refusal({{"--stats /dev/null", identity_of_output("/dev/null")}}, identity_of_existing("/dev/null")), "");
}

// require_standard_error_kept: a file replaced by rename that is standard error's regular file is
// refused, by any name; standard error elsewhere, a character device, or a file written in place
// (standard output's "-") is not.
TEST(RequireStandardErrorKept, AReplacedFileThatIsStandardErrorsIsRefusedNamingIt) {
  test::TempDir dir(test::disk_directory());
  const std::string log = dir.file("run.log");
  test::write_plain_file(log, test::pattern_bytes(16));
  ASSERT_EQ(symlink("run.log", dir.file("link").c_str()), 0);
  ASSERT_EQ(mkdir(dir.file("sub").c_str(), 0755), 0);
  const auto log_identity = identity_of_existing(log);
  const auto kept = [&](const std::vector<WrittenFile>& files, const std::optional<FileIdentity>& stderr_identity) {
    try {
      require_standard_error_kept(files, stderr_identity);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  for (const std::string& name : {log, dir.file("link"), dir.file("sub/../run.log")}) {
    const auto written = written_outputs("", name, "", "keys", std::nullopt);
    const std::string why = kept(written, log_identity);
    EXPECT_NE(why.find("--index-output " + name + ": is the file standard error writes to"), std::string::npos)
        << why;
  }
  const auto as_output = written_outputs(log, "", "", "keys", std::nullopt);
  EXPECT_NE(kept(as_output, log_identity).find("-o " + log), std::string::npos);
  EXPECT_EQ(kept(written_outputs(dir.file("other"), "", log, "keys", std::nullopt), identity_of_existing("/dev/null")),
            "")
      << "standard error a character device";
  EXPECT_EQ(kept(written_outputs(dir.file("other"), "", "", "keys", std::nullopt), log_identity), "");
  EXPECT_EQ(kept(written_outputs("-", "", "", "keys", log_identity), log_identity), "")
      << "standard output's file is written in place, not replaced";
  EXPECT_EQ(kept(written_outputs(log, "", "", "keys", std::nullopt), std::nullopt), "") << "standard error closed";
}

// is_standard_error_file, with descriptor 2 really pointed at a file: true by any name of it, so
// that written_outputs() marks --stats there as written in place (through descriptor 2) and
// require_standard_error_kept() lets it pass, while -o there is still refused.
TEST(StandardErrorFile, StatisticsThereAreWrittenInPlaceNotReplaced) {
  test::TempDir dir(test::disk_directory());
  const std::string log = dir.file("run.log");
  test::write_plain_file(log, test::pattern_bytes(16));
  ASSERT_EQ(symlink("run.log", dir.file("link").c_str()), 0);
  const int saved = dup(STDERR_FILENO);
  ASSERT_GE(saved, 0);
  {
    const UniqueFd file(open(log.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
    ASSERT_TRUE(file.valid());
    ASSERT_GE(dup2(file.get(), STDERR_FILENO), 0);
  }
  const std::optional<FileIdentity> stderr_identity = identity_of_descriptor(STDERR_FILENO);
  std::vector<std::string> named;
  for (const std::string& name : {log, dir.file("link"), std::string("/dev/stderr"), std::string("/proc/self/fd/2")})
    if (is_standard_error_file(name)) named.push_back(name);
  const bool other = is_standard_error_file(dir.file("other"));
  const auto stats_there = written_outputs(dir.file("out"), "", "/dev/stderr", "keys", std::nullopt);
  std::string stats_refusal, output_refusal;
  try {
    require_standard_error_kept(stats_there, stderr_identity);
  } catch (const Error& e) {
    stats_refusal = e.what();
  }
  try {
    require_standard_error_kept(written_outputs(log, "", "", "keys", std::nullopt), stderr_identity);
  } catch (const Error& e) {
    output_refusal = e.what();
  }
  dup2(saved, STDERR_FILENO);
  close(saved);
  EXPECT_EQ(named.size(), 4u);
  EXPECT_FALSE(other);
  ASSERT_EQ(stats_there.size(), 2u);
  EXPECT_FALSE(stats_there.back().replaced);
  EXPECT_EQ(stats_refusal, "");
  EXPECT_NE(output_refusal.find("is the file standard error writes to"), std::string::npos) << output_refusal;
  EXPECT_FALSE(is_standard_error_file(log)) << "standard error is no longer the log";
}

TEST(RequireSeparateFiles, OutputsMayShareACharacterDevice) {
  // /dev/null keeps nothing one output could overwrite of another: -o /dev/null --stats /dev/null.
  EXPECT_EQ(refusal({{"-o /dev/null", identity_of_output("/dev/null"), true},
                     {"--stats /dev/null", identity_of_output("/dev/null")}}),
            "");
}

TEST(OutputTarget, AnotherUsersLinkInAStickyWorldWritableDirectoryIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "creating another user's link needs root";
  test::TempDir dir(test::disk_directory());
  ASSERT_EQ(chmod(dir.path().c_str(), 01777), 0);
  test::write_plain_file(dir.file("target"), test::pattern_bytes(8));
  ASSERT_EQ(symlink(dir.file("target").c_str(), dir.file("link").c_str()), 0);
  ASSERT_EQ(lchown(dir.file("link").c_str(), 65534, 65534), 0);
  try {
    (void)resolve_output_target(dir.file("link"));
    ADD_FAILURE() << "the link was followed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fs.protected_symlinks"), std::string::npos) << e.what();
  }
  // The directory's owner's link, or a directory without the sticky bit: followed.
  ASSERT_EQ(lchown(dir.file("link").c_str(), 0, 0), 0);
  EXPECT_EQ(resolve_output_target(dir.file("link")), dir.file("target"));
  ASSERT_EQ(lchown(dir.file("link").c_str(), 65534, 65534), 0);
  ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
  EXPECT_EQ(resolve_output_target(dir.file("link")), dir.file("target"));
}

TEST(StandardDescriptors, AClosedOneIsHeldSoNoFileLandsThere) {
  const int status = test::run_in_child([] {
    close(STDOUT_FILENO);
    const ClosedStandardDescriptors closed = hold_closed_standard_descriptors();
    if (!closed.output || closed.input || closed.error) return 1;
    const int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    if (fd <= STDERR_FILENO) return 2;
    // The place holder can be neither written nor reopened for writing by another name.
    if (write(STDOUT_FILENO, "x", 1) != -1 || errno != EBADF) return 3;
    if (open("/dev/stdout", O_WRONLY | O_CLOEXEC) >= 0) return 4;
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace rmgsort
