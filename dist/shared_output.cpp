#include "dist/shared_output.hpp"

#include <fcntl.h>
#include <unistd.h>


#include "core/error.hpp"
#include "dist/rank_agreement.hpp"

namespace rmgsort::dist {

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
