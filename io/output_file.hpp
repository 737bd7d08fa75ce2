// The output, written atomically: keys go to a file with no name (O_TMPFILE) in the output's
// directory, and commit() gives it the output's name in one step: a new output is linked to its name,
// an existing one is replaced by linking the file to a fresh temporary name beside it and renaming
// that over it. Until then only the descriptor keeps the file, so a failed or interrupted run never
// touches an existing output and leaves nothing behind, whatever ends it: SIGKILL and the OOM killer
// included. (Between that link and that rename, microseconds, SIGKILL would leave the temporary name,
// until the next run writing that output removes it.)
//
// Where the file system refuses O_TMPFILE (EOPNOTSUPP; EISDIR from a kernel before Linux 3.11), or
// /proc, through which the file is linked, does not lead to it (not mounted, another PID namespace's),
// the output is written to a named temporary file "<dir>/.<name>.rmgsort-XXXXXX" that commit()
// renames into place: the destructor and the cleanup signal handlers unlink it; what SIGKILL leaves
// there, the next run writing that output removes (io/stale_temporaries.hpp). Every temporary name
// is fresh and random, and every name is created exclusively (O_EXCL, or linkat, which fails on
// EEXIST): no file is opened through a name another user could have planted
// (/tmp), and a name another process made meanwhile is never taken over.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "io/cleanup.hpp"
#include "io/unique_fd.hpp"

namespace rmgsort {

class OutputFile {
 public:
  // Where the data waits for commit().
  enum class Staging {
    in_place,   // standard output, or an existing non-regular file: written where it goes
    anonymous,  // a file with no name (O_TMPFILE) in the output's directory
    named,      // the fallback: a temporary file "<dir>/.<name>.rmgsort-XXXXXX"
  };

  // "-": standard output, refused when it is a terminal; when it is a regular file, a run that ends
  // without commit() cuts it back to the size it had here (what the run added goes, what was there
  // stays). A path naming the regular file standard output writes to (/dev/stdout under `> FILE`)
  // is written through standard output the same way, not replaced. A path naming an existing
  // non-regular file (/dev/null, a FIFO) is opened and written in place: renaming over it would
  // replace the device. Otherwise the file is staged in the output's directory (same file system,
  // so the link and the rename are atomic), anonymous where possible, with mode 0666 minus the
  // umask, like any new file; replacing an existing file, which the caller must be allowed to write
  // (access(W_OK): a read-only file, or another user's, is refused as an open for writing would
  // be), it takes that file's owner, group and mode where permitted (never a set-ID bit on a file
  // whose owner or group changed). A symbolic link is followed, so commit() replaces its target,
  // unless io/detail/output_target.hpp refuses it. The output may be the input: the input stays
  // readable until commit(). Throws rmgsort::Error naming PATH and the cause (missing directory,
  // permission, a directory at PATH, a refused link); nothing is created then.
  [[nodiscard]] static OutputFile create(const std::string& path);
  // create() with the named temporary file even where O_TMPFILE works: what the fallback does, for
  // its tests.
  [[nodiscard]] static OutputFile create_named(const std::string& path);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // discard() unless committed.
  ~OutputFile();

  // The descriptor to write to; -1 after finish_writing() and commit().
  [[nodiscard]] int fd() const { return fd_.valid() ? fd_.get() : (is_stdout_ ? 1 : -1); }
  // The final path as given ("-" for standard output).
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] Staging staging() const { return staging_; }
  // The named temporary file (Staging::named) until commit() or discard(); empty otherwise: an
  // anonymous file has no name to give.
  [[nodiscard]] const std::string& temp_path() const { return temp_path_; }
  [[nodiscard]] bool is_stdout() const { return is_stdout_; }
  [[nodiscard]] bool committed() const { return committed_; }
  // The name for messages: "stdout" for "-", the path otherwise.
  [[nodiscard]] std::string display_name() const { return is_stdout_ ? "stdout" : path_; }
  // The name the writers' errors give: "standard output" for "-", "PATH (standard output)" for a
  // path written through it (-o /dev/stdout, or the file under `> FILE`), the path otherwise.
  [[nodiscard]] std::string writer_name() const {
    if (!is_stdout_) return path_;
    return path_ == "-" ? "standard output" : path_ + " (standard output)";
  }
  // Whether discard() takes back everything written: a staged file, or a regular standard output
  // (cut back). False where the bytes are gone as they are written: a pipe, a FIFO, a device.
  [[nodiscard]] bool can_take_back() const { return staging_ != Staging::in_place || stdout_start_size_ >= 0; }

  // What a signal handler needs to write this staged file and give it its name as commit() would,
  // without allocating or locking (io/last_words.hpp): paths copied into fixed buffers, and a fresh
  // spare name for replacing an existing output, drawn now.
  struct SignalCommit {
    static constexpr std::size_t kPathBytes = kMaxCleanupPathBytes;
    Staging staging = Staging::in_place;
    int fd = -1;                   // to write to
    int directory = -1;            // anonymous: the output's directory
    char source[32] = {};          // anonymous: "/proc/self/fd/N", the file to link
    char name[kPathBytes] = {};    // anonymous: the output's name in `directory`
    char spare[kPathBytes] = {};   // anonymous: a fresh name beside it
    char from[kPathBytes] = {};    // named: the temporary file
    char to[kPathBytes] = {};      // named: where it goes
  };
  // The recipe for this file, which nothing has written yet or will but a signal handler; nullopt
  // when a path does not fit its buffer, or the file was written or committed already.
  [[nodiscard]] std::optional<SignalCommit> signal_commit() const;
  // Names the file as commit() does, from RECIPE; false when a step failed (nothing is left behind
  // but what that step left). Async-signal-safe.
  static bool commit_in_signal_handler(const SignalCommit& recipe) noexcept;

  // Closes the descriptor written to: a write error that NFS and some FUSE file systems defer to
  // close() surfaces here, before anything is committed (an anonymous file stays open through a
  // second descriptor, for commit()'s link). Then only commit()'s link or rename is left. Idempotent.
  void finish_writing();
  // finish_writing(), then gives the file the output's name (see the top of this file); from then on
  // an existing output has been replaced. Should that fail, the error names PATH, the existing output
  // is intact and nothing is left in the directory. An existing file is replaced only once the new
  // one's data is on its disk (fdatasync), so that a crash cannot leave its name on unwritten blocks;
  // a new output's name gets no such wait (a crash could cost only the new file). For standard
  // output, only marks the output committed.
  void commit();
  // Closes (and for the named fallback unlinks) the staged file now, or cuts standard output back
  // (what the destructor does).
  void discard() noexcept;

 private:
  OutputFile() = default;
  [[nodiscard]] static OutputFile create(const std::string& path, bool anonymous_allowed);
  // Opens the anonymous file in DIRECTORY; false where the fallback must be used instead.
  [[nodiscard]] bool stage_anonymous(const std::string& directory, const std::string& name);
  void stage_named(const std::string& directory, const std::string& name);
  void link_into_place();
  // fdatasync of the staged file, whose existing output the caller is about to replace; throws
  // "write failed" naming the output when the data did not reach its disk.
  void sync_before_replacing();
  // Throws the creation's failure (errno) naming the output, the target of a link, and DIRECTORY
  // where it is missing.
  [[noreturn]] void throw_cannot_create(const std::string& directory) const;

  std::string path_;
  std::string target_;  // where commit() puts the file: path_, or the target of the link at path_
  Staging staging_ = Staging::in_place;
  std::string temp_path_;  // Staging::named
  UniqueFd fd_;  // written to; invalid for standard output (fd 1 is not ours to close)
  // Staging::anonymous: the output's directory (O_PATH) and what target_ is called there.
  UniqueFd directory_;
  std::string directory_path_;  // as split from target_ ("" for the working directory)
  std::string name_;
  // A second descriptor of a staged file, which keeps it and its lock (io/stale_temporaries.hpp) past
  // finish_writing() until commit() names it: an anonymous file would be gone without it.
  UniqueFd kept_;
  bool is_stdout_ = false;
  off_t stdout_start_size_ = -1;  // a regular standard output's size at create(); -1 otherwise
  off_t stdout_start_position_ = 0;
  bool committed_ = false;
  CleanupRegistration registration_;  // Staging::named: temp_path_, for the signal handlers
};

}  // namespace rmgsort
