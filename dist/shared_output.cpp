#include "dist/shared_output.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "core/error.hpp"
#include "dist/rank_agreement.hpp"

namespace rmgsort::dist {

std::string part_path(const std::string& path, int rank) {
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".part-%05d", rank);
  return path + suffix;
}

std::vector<std::string> remove_stale_parts(const std::string& path, int ranks) {
  const std::size_t slash = path.rfind('/');
  const std::string directory = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string prefix = base + ".part-";
  std::vector<std::string> failures;
  const std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(directory.c_str()), ::closedir);
  if (!dir) return {directory + ": cannot list it for the parts of an earlier run: " + std::strerror(errno)};
  std::vector<std::string> stale;
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::string name = entry->d_name;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const int rank = std::stoi(digits);
    if (rank >= ranks && part_path(base, rank) == name) stale.push_back(name);  // (exactly as named: 00007, not 7)
  }
  for (const std::string& name : stale) {
    const std::string file = slash == std::string::npos ? name : path.substr(0, slash + 1) + name;
    if (::unlink(file.c_str()) != 0 && errno != ENOENT)
      failures.push_back(file + ": cannot remove this part of an earlier run of more ranks: " + std::strerror(errno));
  }
  return failures;
}

SharedOutput SharedOutput::open(const Communicator& communicator, const std::string& path) {
  SharedOutput output;
  output.path_ = path;
  // Where the other ranks write: the named temporary file, or, for an existing file that is not
  // regular (/dev/null), the path itself (written in place, as one process writes it).
  std::string temp_path;
  agreed(communicator, [&] {
    if (communicator.rank() != 0) return;
    output.staged_.emplace(OutputFile::create_named(path));
    temp_path = output.staged_->staging() == OutputFile::Staging::named ? output.staged_->temp_path() : path;
  });
  communicator.broadcast(temp_path, 0);
  agreed(communicator, [&] {
    if (communicator.rank() == 0) return;
    if (temp_path != path) output.registration_ = CleanupRegistration(temp_path);
    output.fd_ = UniqueFd(::open(temp_path.c_str(), O_WRONLY | O_CLOEXEC));
    if (!output.fd_.valid()) throw_errno(path, "cannot open rank 0's temporary output " + temp_path + " for writing");
  });
  return output;
}

SharedOutput SharedOutput::open_part(const Communicator& communicator, const std::string& path) {
  SharedOutput output;
  output.path_ = part_path(path, communicator.rank());
  output.staged_.emplace(OutputFile::create(output.path_));
  return output;
}

void SharedOutput::finish_writing() {
  if (staged_) {
    staged_->finish_writing();
    return;
  }
  if (fd_.valid() && ::close(fd_.release()) != 0) throw_errno(path_, "write failed");
}

void SharedOutput::commit() {
  if (staged_) staged_->commit();
  registration_.release();
}

}  // namespace rmgsort::dist
