#include "io/temp_dir.hpp"

#include <sys/stat.h>

#include <cstdlib>

#include "core/error.hpp"

namespace rmgsort {

namespace {

std::string chosen_name(const std::string& option) { return "--temp-dir " + option; }

}  // namespace

TempDir TempDir::chosen(const std::string& option) {
  if (!option.empty()) return {option, chosen_name(option)};
  const char* tmpdir = std::getenv("TMPDIR");
  if (tmpdir != nullptr && *tmpdir != '\0') return {tmpdir, "TMPDIR " + std::string(tmpdir)};
  return {"/tmp", "/tmp"};
}

void require_temp_dir_option(const std::string& option) {
  if (option.empty()) return;
  const std::string name = chosen_name(option);
  struct stat info {};
  if (stat(option.c_str(), &info) != 0) throw_errno(name, "is not usable");
  if (!S_ISDIR(info.st_mode)) throw Error(name + ": is not a directory");
}

}  // namespace rmgsort
