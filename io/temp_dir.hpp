// The directory rmgsort's temporary files go to (spill files, merge runs, a rank's share): the
// --temp-dir option's when given, else $TMPDIR's when set and not empty, else /tmp. Its name in
// messages says which of the three chose it, so that an error about a directory the user never
// typed ("TMPDIR /scratch: cannot create a spill file: ...") says where it came from.
#pragma once

#include <string>

namespace rmgsort {

struct TempDir {
  std::string path;
  std::string name;  // "--temp-dir DIR", "TMPDIR DIR" or "/tmp"

  // OPTION is --temp-dir's value, "" when not given.
  [[nodiscard]] static TempDir chosen(const std::string& option);
};

// Checks --temp-dir's value OPTION (when given: not "") before the run: throws rmgsort::Error
// "--temp-dir DIR: is not usable: No such file or directory" or "--temp-dir DIR: is not a
// directory", as the spill files' errors name it.
void require_temp_dir_option(const std::string& option);

}  // namespace rmgsort
