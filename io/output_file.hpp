// The output, written atomically: keys go to a temporary file next to the final path, and commit()
// renames it into place. A failed or interrupted run never touches an existing output and leaves
// nothing behind (the destructor, or the cleanup signal handlers, unlink the temporary file).
#pragma once

#include <sys/types.h>

#include <string>

#include "io/cleanup.hpp"
#include "io/unique_fd.hpp"

namespace rmgsort {

class OutputFile {
 public:
  // "-": standard output, refused when it is a terminal; when it is a regular file, a run that ends
  // without commit() cuts it back to the size it had here (what the run added goes, what was there
  // stays). A path naming an existing non-regular file (/dev/null, a FIFO) is opened and written in
  // place: renaming over it would replace the device. Otherwise a temporary file
  // "<dir>/.<name>.rmgsort-XXXXXX" is created in the output's directory (same file system, so the
  // rename is atomic) with mode 0666 minus the umask, like any new file; replacing an existing file,
  // it takes that file's owner, group and mode where permitted (never a set-ID bit on a file whose
  // owner or group changed). A symbolic link is followed, so commit() replaces its target, unless
  // io/detail/output_target.hpp refuses it. The output may be the input: the input stays readable until
  // commit(). Throws rmgsort::Error naming PATH and the cause (missing directory, permission, a
  // directory at PATH, a refused link); nothing is created then.
  [[nodiscard]] static OutputFile create(const std::string& path);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Unlinks the temporary file unless committed.
  ~OutputFile();

  // The descriptor to write to; -1 after commit().
  [[nodiscard]] int fd() const { return fd_.valid() ? fd_.get() : (is_stdout_ ? 1 : -1); }
  // The final path as given ("-" for standard output).
  [[nodiscard]] const std::string& path() const { return path_; }
  // The temporary file; empty for standard output and for outputs written in place.
  [[nodiscard]] const std::string& temp_path() const { return temp_path_; }
  [[nodiscard]] bool is_stdout() const { return is_stdout_; }
  [[nodiscard]] bool committed() const { return committed_; }
  // The name for messages: "stdout" for "-", the path otherwise.
  [[nodiscard]] std::string display_name() const { return is_stdout_ ? "stdout" : path_; }

  // Closes the file: a write error that NFS and some FUSE file systems defer to close() surfaces
  // here, before anything is committed. Then only commit()'s rename is left. Idempotent.
  void finish_writing();
  // finish_writing(), then renames the temporary file over the final path; from then on an existing
  // output has been replaced. No fsync: the output is as durable as any file a program writes. For
  // standard output, only marks the output committed.
  void commit();
  // Closes and unlinks the temporary file now, or cuts standard output back (what the destructor does).
  void discard() noexcept;

 private:
  OutputFile() = default;

  std::string path_;
  std::string target_;  // where commit() renames to: path_, or the target of the link at path_
  std::string temp_path_;
  UniqueFd fd_;  // invalid for standard output (fd 1 is not ours to close)
  bool is_stdout_ = false;
  off_t stdout_start_size_ = -1;  // a regular standard output's size at create(); -1 otherwise
  off_t stdout_start_position_ = 0;
  bool committed_ = false;
  CleanupRegistration registration_;
};

}  // namespace rmgsort
