// TempDir: --temp-dir first, then $TMPDIR (set and not empty), then /tmp; its name says which. And
// --temp-dir's check before the run, which names it as the spill files' errors do.
#include "io/temp_dir.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "core/error.hpp"

namespace rmgsort {
namespace {

// Sets TMPDIR (unset for nullopt) for the test's scope, and puts it back after.
class TmpdirSetting {
 public:
  explicit TmpdirSetting(const std::optional<std::string>& value) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    set(value);
  }
  ~TmpdirSetting() { set(old_); }
  TmpdirSetting(const TmpdirSetting&) = delete;
  TmpdirSetting& operator=(const TmpdirSetting&) = delete;

 private:
  static void set(const std::optional<std::string>& value) {
    if (value) ::setenv("TMPDIR", value->c_str(), 1);
    else ::unsetenv("TMPDIR");
  }
  std::optional<std::string> old_;
};

TEST(TempDirTest, TheOptionComesFirstAndIsNamedAsTheOption) {
  const TmpdirSetting tmpdir("/from-env");
  const TempDir dir = TempDir::chosen("/from-option");
  EXPECT_EQ(dir.path, "/from-option");
  EXPECT_EQ(dir.name, "--temp-dir /from-option");
}

TEST(TempDirTest, WithoutTheOptionTmpdirIsUsedAndNamed) {
  const TmpdirSetting tmpdir("/scratch/x");
  const TempDir dir = TempDir::chosen("");
  EXPECT_EQ(dir.path, "/scratch/x");
  EXPECT_EQ(dir.name, "TMPDIR /scratch/x");
}

TEST(TempDirTest, AnEmptyOrUnsetTmpdirMeansSlashTmp) {
  for (const std::optional<std::string>& value : {std::optional<std::string>(""), std::optional<std::string>()}) {
    const TmpdirSetting tmpdir(value);
    const TempDir dir = TempDir::chosen("");
    EXPECT_EQ(dir.path, "/tmp");
    EXPECT_EQ(dir.name, "/tmp");
  }
}

// "MESSAGE" of the Error require_temp_dir_option(OPTION) throws, or "" when it throws none.
std::string refusal_of(const std::string& option) {
  try {
    require_temp_dir_option(option);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

TEST(TempDirTest, AMissingOrPlainFileOptionIsRefusedNamedAsTheOption) {
  EXPECT_EQ(refusal_of(""), "");
  EXPECT_EQ(refusal_of("/"), "");
  EXPECT_EQ(refusal_of("/nonexistent-rmgsort-dir"),
            "--temp-dir /nonexistent-rmgsort-dir: is not usable: No such file or directory");
  EXPECT_EQ(refusal_of("/proc/self/status"), "--temp-dir /proc/self/status: is not a directory");
}

}  // namespace
}  // namespace rmgsort
