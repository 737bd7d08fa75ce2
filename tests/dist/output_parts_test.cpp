// dist/output_parts.hpp: the parts' names, which files count as parts of an output, and the removal
// of an earlier run's parts (nothing but the exact names of ranks at and above the run's count).
#include "dist/output_parts.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace rmgsort::dist {
namespace {

namespace fs = std::filesystem;

class OutputPartsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("output_parts_test." + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void touch(const std::string& name) const { std::ofstream(path(name)) << "x"; }
  std::vector<std::string> names_left() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
};

TEST(OutputPartNames, FiveDigitsBesideTheOutput) {
  EXPECT_EQ(part_path("out.u64", 3), "out.u64.part-00003");
  EXPECT_EQ(part_path("d/out", 123456), "d/out.part-123456");
}

TEST(OutputPartNames, OnlyTheExactNamesAreParts) {
  EXPECT_EQ(part_rank("out", "out.part-00000"), 0);
  EXPECT_EQ(part_rank("d/e/out", "out.part-00042"), 42);
  EXPECT_EQ(part_rank("out", "out.part-123456"), 123456);
  for (const char* name : {"out", "out.part-7", "out.part-0007", "out.part-00007.old", "out.part-", "xout.part-00001",
                           "out.part--0001", "out.part-+0001", "other.part-00001", "out.part-0000000001"})
    EXPECT_FALSE(part_rank("out", name).has_value()) << name;
}

TEST_F(OutputPartsTest, ExistingPartsFromARank) {
  for (const char* name : {"out.part-00000", "out.part-00001", "out.part-00005", "out.part-5", "out.part-00002.tmp",
                           "out", "other.part-00003"})
    touch(name);
  std::string failure;
  std::vector<std::string> all = existing_parts(path("out"), 0, failure);
  std::sort(all.begin(), all.end());
  EXPECT_TRUE(failure.empty()) << failure;
  EXPECT_EQ(all, (std::vector<std::string>{path("out.part-00000"), path("out.part-00001"), path("out.part-00005")}));
  EXPECT_EQ(existing_parts(path("out"), 2, failure), std::vector<std::string>{path("out.part-00005")});
}

TEST_F(OutputPartsTest, AnUnlistableDirectoryIsSaid) {
  std::string failure;
  EXPECT_TRUE(existing_parts(path("missing/out"), 0, failure).empty());
  EXPECT_NE(failure.find("cannot list it"), std::string::npos) << failure;
}

TEST_F(OutputPartsTest, StalePartsGoTheRestStays) {
  for (const char* name : {"out.part-00000", "out.part-00001", "out.part-00002", "out.part-00009", "out.part-9",
                           "out.part-00009.old", "out"})
    touch(name);
  EXPECT_TRUE(remove_stale_parts(path("out"), 2).empty());
  EXPECT_EQ(names_left(), (std::vector<std::string>{"out", "out.part-00000", "out.part-00001", "out.part-00009.old",
                                                    "out.part-9"}));
}

}  // namespace
}  // namespace rmgsort::dist
