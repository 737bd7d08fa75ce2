#include "io/temp_dir.hpp"

#include <cstdlib>

namespace rmgsort {

TempDir TempDir::chosen(const std::string& option) {
  if (!option.empty()) return {option, "--temp-dir " + option};
  const char* tmpdir = std::getenv("TMPDIR");
  if (tmpdir != nullptr && *tmpdir != '\0') return {tmpdir, "TMPDIR " + std::string(tmpdir)};
  return {"/tmp", "/tmp"};
}

}  // namespace rmgsort
