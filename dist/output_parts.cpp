#include "dist/output_parts.hpp"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>

namespace rmgsort::dist {

std::string part_path(const std::string& path, int rank) {
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".part-%05d", rank);
  return path + suffix;
}

namespace {

// PATH's directory ("." or "/" where it names none) and its last component.
std::pair<std::string, std::string> split_path(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

}  // namespace

std::optional<int> part_rank(const std::string& path, const std::string& name) {
  const std::string prefix = split_path(path).second + ".part-";
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const std::string digits = name.substr(prefix.size());
  if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const int rank = std::stoi(digits);
  if (part_path(split_path(path).second, rank) != name) return std::nullopt;  // exactly as named: 00007, not 7
  return rank;
}

std::vector<std::string> existing_parts(const std::string& path, int first_rank, std::string& failure) {
  const auto [directory, base] = split_path(path);
  const std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(directory.c_str()), ::closedir);
  if (!dir) {
    failure = directory + ": cannot list it for the parts of an earlier run: " + std::strerror(errno);
    return {};
  }
  std::vector<std::string> parts;
  const std::size_t slash = path.rfind('/');
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::optional<int> rank = part_rank(path, entry->d_name);
    if (rank && *rank >= first_rank)
      parts.push_back(slash == std::string::npos ? entry->d_name : path.substr(0, slash + 1) + entry->d_name);
  }
  return parts;
}

std::vector<std::string> remove_stale_parts(const std::string& path, int ranks) {
  std::string failure;
  const std::vector<std::string> stale = existing_parts(path, ranks, failure);
  if (!failure.empty()) return {failure};
  std::vector<std::string> failures;
  for (const std::string& file : stale) {
    if (::unlink(file.c_str()) != 0 && errno != ENOENT)
      failures.push_back(file + ": cannot remove this part of an earlier run of more ranks: " + std::strerror(errno));
  }
  return failures;
}

}  // namespace rmgsort::dist
