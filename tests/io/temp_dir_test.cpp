// TempDir: --temp-dir first, then $TMPDIR (set and not empty), then /tmp; its name says which.
#include "io/temp_dir.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

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

}  // namespace
}  // namespace rmgsort
