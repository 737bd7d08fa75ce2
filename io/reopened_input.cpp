#include "io/reopened_input.hpp"

#include <sys/stat.h>

#include "core/error.hpp"

namespace rmgsort {
namespace {

// The time FD's file was last written (its contents), or nullopt where fstat fails.
std::optional<timespec> modified(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return std::nullopt;
  return st.st_mtim;
}

bool same_time(const std::optional<timespec>& a, const std::optional<timespec>& b) {
  return a && b && a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

}  // namespace

InputProbe probe_input(const InputFile& file) {
  return InputProbe{file.path, identity_of_descriptor(file.fd), file.data_offset, file.size, modified(file.fd)};
}

InputFile reopen_input(const InputProbe& probe, std::string_view while_what) {
  InputFile file = open_input(probe.path);
  // (The modification time: a file written over in place, same size, was merged with its new
  // records, exit 0.)
  if (!file.regular || identity_of_descriptor(file.fd) != probe.identity ||
      file.size != probe.data_offset + probe.data_bytes || !same_time(modified(file.fd), probe.modified))
    throw Error(probe.path + ": changed while " + std::string(while_what) +
                " (it is another file now, another size, or written since)");
  file.data_offset = probe.data_offset;
  file.size = probe.data_bytes;
  return file;
}

}  // namespace rmgsort
