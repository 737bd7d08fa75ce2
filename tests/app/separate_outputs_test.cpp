// app/separate_outputs: the one check of the files a sort, a merge or a rank of a distributed sort
// writes: another output, an input it would destroy (all but -o), standard error's regular file
// (but --stats, written through it) and standard output that is an input are refused, by any name,
// with the message naming both; -o may be the input (replaced by a rename once it is read).
#include "app/separate_outputs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "core/error.hpp"
#include "io/unique_fd.hpp"
#include "tests/io/io_test_support.hpp"

namespace rmgsort {
namespace {

using test::TempDir;

const OutputWording kSort{"the sorted keys", /*sorts_in_place=*/true};
const OutputWording kMerge{"the merged records", /*sorts_in_place=*/false};

// The message of the Error `names` is refused with ("" when it is not).
std::string refusal(const RunFileNames& names, const OutputWording& wording = kSort) {
  try {
    require_separate_outputs(names, wording);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Standard descriptor `fd` pointed at `path` for the object's lifetime.
class RedirectedDescriptor {
 public:
  RedirectedDescriptor(int fd, const std::string& path, int flags) : fd_(fd), saved_(::dup(fd)) {
    const UniqueFd file(::open(path.c_str(), flags | O_CLOEXEC, 0644));
    if (!file.valid() || !saved_.valid() || ::dup2(file.get(), fd) < 0) throw std::runtime_error("redirect " + path);
  }
  ~RedirectedDescriptor() { (void)::dup2(saved_.get(), fd_); }

 private:
  int fd_;
  UniqueFd saved_;
};

class SeparateOutputsTest : public ::testing::Test {
 protected:
  SeparateOutputsTest() : dir_(::testing::TempDir()) {
    std::ofstream(input()) << "keys";
  }
  std::string input() const { return dir_.file("in.u64"); }
  std::string file(const std::string& name) const { return dir_.file(name); }

  TempDir dir_;
};

TEST_F(SeparateOutputsTest, DistinctFilesPass) {
  EXPECT_EQ(refusal({{input()}, file("out"), file("idx"), file("stats.json")}), "");
  EXPECT_EQ(refusal({{input()}, file("out"), "", ""}), "");
  EXPECT_EQ(refusal({{input()}, "", "", ""}), "");
}

TEST_F(SeparateOutputsTest, OutputMayBeTheInput) {
  EXPECT_EQ(refusal({{input()}, input(), "", ""}), "");
  ASSERT_EQ(::symlink(input().c_str(), file("link").c_str()), 0);
  EXPECT_EQ(refusal({{file("link")}, input(), "", ""}), "");
}

TEST_F(SeparateOutputsTest, IndexOrStatsThatIsTheInputIsRefused) {
  ASSERT_EQ(::link(input().c_str(), file("hard").c_str()), 0);
  for (const std::string& name : {input(), file("hard"), dir_.path() + "/./in.u64"}) {
    const std::string index = refusal({{input()}, file("out"), name, ""});
    EXPECT_NE(index.find("--index-output " + name + ": is the input file " + input()), std::string::npos) << index;
    const std::string stats = refusal({{input()}, file("out"), "", name});
    EXPECT_NE(stats.find("--stats " + name + ": is the input file"), std::string::npos) << stats;
  }
}

TEST_F(SeparateOutputsTest, TwoOutputsThatAreOneFileAreRefused) {
  const std::string message = refusal({{input()}, file("out"), file("out"), ""});
  EXPECT_NE(message.find("are the same file"), std::string::npos) << message;
  EXPECT_NE(refusal({{input()}, file("out"), "", file("out")}).find("are the same file"), std::string::npos);
  // Not created yet, by two spellings: compared by directory and name.
  ASSERT_EQ(::mkdir(file("sub").c_str(), 0755), 0);
  EXPECT_NE(refusal({{input()}, "", file("idx"), file("sub/../idx")}).find("are the same file"), std::string::npos);
  // Through a directory that does not exist: unknown here; creating it fails with its own message.
  EXPECT_EQ(refusal({{input()}, "", file("idx"), file("missing/../idx")}), "");
}

TEST_F(SeparateOutputsTest, StandardErrorsRegularFileIsRefusedAPipeIsNot) {
  const std::string log = file("run.log");
  {
    const RedirectedDescriptor stderr_to_log(STDERR_FILENO, log, O_WRONLY | O_CREAT | O_APPEND);
    for (const RunFileNames& names : {RunFileNames{{input()}, log, "", ""},
                                      RunFileNames{{input()}, file("out"), "/dev/stderr", ""}}) {
      const std::string message = refusal(names);
      EXPECT_NE(message.find("is the file standard error writes to"), std::string::npos) << message;
    }
    // The statistics are written there through descriptor 2 (report/stats.hpp), not replaced.
    EXPECT_EQ(refusal({{input()}, file("out"), "", log}), "");
    EXPECT_EQ(refusal({{input()}, file("out"), "", "/dev/stderr"}), "");
  }
  int pipe_ends[2];
  ASSERT_EQ(::pipe(pipe_ends), 0);
  const UniqueFd read_end(pipe_ends[0]), write_end(pipe_ends[1]);
  const int saved = ::dup(STDERR_FILENO);
  ASSERT_GE(::dup2(write_end.get(), STDERR_FILENO), 0);
  const std::string through_pipe = refusal({{input()}, file("out"), "", "/dev/stderr"});
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  EXPECT_EQ(through_pipe, "");
}

TEST_F(SeparateOutputsTest, StandardOutputThatIsTheInputIsRefusedWithTheAdvice) {
  const RedirectedDescriptor stdout_to_input(STDOUT_FILENO, input(), O_WRONLY);
  EXPECT_EQ(refusal({{input()}, "-", "", ""}), "standard output is the input file " + input() +
                                                  ": the sorted keys would overwrite it as it is read; use -o " +
                                                  input() + " to sort in place");
  EXPECT_EQ(refusal({{input()}, "-", "", ""}, kMerge),
            "standard output is the input file " + input() +
                ": the merged records would overwrite it as it is read; use -o FILE");
  EXPECT_NE(refusal({{input()}, file("out"), "-", ""}).find("standard output is the input file"), std::string::npos);
}

}  // namespace
}  // namespace rmgsort
