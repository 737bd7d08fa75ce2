// Whether two names lead to the same file, by device and inode, never by spelling: hard links,
// symbolic links, `d/../d/f`, /dev/stdout, /dev/fd/N and /proc/self/fd/N all lead to the file they
// name. A run checks with these, before it reads or creates anything, that no file it writes is the
// input or another file it writes.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace rmgsort {

struct FileIdentity {
  dev_t device = 0;  // of the file, or of the directory a file not created yet will be created in
  ino_t inode = 0;
  std::string name;      // "" for an existing file; the name in that directory of one not created yet
  bool regular = false;  // an existing regular file (not part of the comparison)
  // An existing character device (/dev/null): several outputs may write into it, since it keeps
  // nothing that one could overwrite of another (a terminal is refused as an output anyway).
  bool character_device = false;
  // An existing pipe, FIFO or socket: what one read takes, no other read sees (not compared either).
  bool stream = false;

  friend bool operator==(const FileIdentity& a, const FileIdentity& b) {
    return a.device == b.device && a.inode == b.inode && a.name == b.name;
  }
};

// The file open on FD; nullopt when FD is not open.
[[nodiscard]] std::optional<FileIdentity> identity_of_descriptor(int fd);
// The existing file PATH leads to (symbolic links followed); nullopt when there is none (yet).
[[nodiscard]] std::optional<FileIdentity> identity_of_existing(const std::string& path);
// What writing the output PATH writes (io/output_file.hpp): the existing file it leads to, else the
// file it will create, named by its directory and its name there (after following a symbolic link at
// PATH as OutputFile does). nullopt when that directory does not exist either, or for a link
// io/detail/output_target.hpp refuses: creating the output fails then, with its own message.
[[nodiscard]] std::optional<FileIdentity> identity_of_output(const std::string& path);

// Whether PATH leads to the regular file standard error writes to (`--stats run.log 2>> run.log`,
// `/dev/stderr`, `/proc/self/fd/2`): statistics go there through descriptor 2, after what it holds,
// instead of replacing it (report/stats.hpp).
[[nodiscard]] bool is_standard_error_file(const std::string& path);

// A file a run writes, for the checks below.
struct WrittenFile {
  std::string label;                     // how messages name it: "-o out.u64", "--stats -"
  std::optional<FileIdentity> identity;  // nullopt: unknown, never equal to another
  // The sorted records, written to a temporary file renamed over it when complete (OutputFile): it
  // may be the input, which stays readable until then, and sorts it in place. Anything else (what is
  // written in place, like standard output and --stats, and --index-output, which would replace
  // the records with their positions) may not.
  bool may_replace_input = false;
  // Named by a path, so written to a new file renamed over it (OutputFile), not in place through a
  // standard descriptor ("-").
  bool replaced = false;
};

// The files a command writes: -o OUTPUT (may replace an input), --index-output and --stats; each
// "-" is standard output (`stdout_identity`), OUTPUT's labelled `stdout_what` ("the sorted keys on
// standard output"); an empty path is not written.
[[nodiscard]] std::vector<WrittenFile> written_outputs(const std::string& output, const std::string& index_output,
                                                       const std::string& stats, const std::string& stdout_what,
                                                       const std::optional<FileIdentity>& stdout_identity);

// Throws rmgsort::Error naming both when two of FILES are the same file (one would overwrite the
// other), and when one written in place is the regular file INPUT (named INPUT_NAME), which it would
// destroy as it is read. A new output joins the check by joining FILES.
void require_separate_files(const std::vector<WrittenFile>& files, const std::optional<FileIdentity>& input,
                            const std::string& input_name);

// Throws rmgsort::Error naming it when one of FILES that a rename would replace is the regular file
// behind standard error (STDERR_IDENTITY: `2>> run.log` with `-o /dev/stderr`): the rename would
// drop what the file held, and every message after it would go to the replaced file, seen by nobody.
// (--stats there is written through descriptor 2, not replaced: written_outputs() says so.)
void require_standard_error_kept(const std::vector<WrittenFile>& files,
                                 const std::optional<FileIdentity>& stderr_identity);

}  // namespace rmgsort
