// What the tests of io/output_file.hpp share: whether a directory's file system has O_TMPFILE, and
// the listing of a directory as a sorted list of names.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "io_test_support.hpp"

namespace rmgsort::test {

// Whether DIRECTORY takes files with no name (O_TMPFILE): probed, not assumed (NFS, some FUSE file
// systems and the overlayfs of older kernels refuse it).
inline bool supports_anonymous_files(const std::string& directory) {
  const int fd = open(directory.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  close(fd);
  return true;
}

// directory_entries(DIRECTORY), sorted: dot files included.
inline std::vector<std::string> sorted_entries(const std::string& directory) {
  std::vector<std::string> names = directory_entries(directory);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace rmgsort::test
