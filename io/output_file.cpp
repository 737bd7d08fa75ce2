#include "io/output_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <optional>
#include <utility>

#include "core/error.hpp"
#include "io/detail/output_target.hpp"
#include "io/stale_temporaries.hpp"

namespace rmgsort {
namespace {

constexpr const char* kTerminalRefusal =
    "refusing to write binary keys to a terminal: use -o FILE or redirect standard output";
constexpr int kCreateAttempts = 100;

// What commit() links an anonymous file through: /proc/self/fd/N names the open file itself, and
// linkat(AT_SYMLINK_FOLLOW) of it gives the file a name with no privilege (linkat(AT_EMPTY_PATH) of
// the descriptor is refused without CAP_DAC_READ_SEARCH by most kernels).
std::string proc_fd_path(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

// Whether /proc/self/fd leads to FD's file: not where /proc is not mounted, or is another PID
// namespace's (a container's). Checked before anything is written, so that commit() does not find
// out it cannot link the file after the whole sort.
bool proc_fd_reaches(int fd) {
  struct stat direct {}, via_proc {};
  return fstat(fd, &direct) == 0 && stat(proc_fd_path(fd).c_str(), &via_proc) == 0 &&
         direct.st_dev == via_proc.st_dev && direct.st_ino == via_proc.st_ino;
}

// The new file takes the place of the one it replaces, so it gets that file's owner, group and
// permission bits as far as the process may give them: a root run that sorts another user's file in
// place leaves it that user's, and sorting a private file does not make it readable by others (as
// `sort -o f f` keeps f's mode). fchown comes first as it clears the set-user-ID and set-group-ID
// bits; those are never carried onto a file whose owner or group differs from the replaced one's.
void take_over_attributes(int fd, const std::string& path, const struct stat& replaced) {
  struct stat now {};
  if (fstat(fd, &now) != 0) throw_errno(path, "cannot stat the new output");
  if (now.st_uid != replaced.st_uid || now.st_gid != replaced.st_gid) {
    // Not permitted (another user's file, a group the user is not in): the group alone may still be.
    if (fchown(fd, replaced.st_uid, replaced.st_gid) != 0) (void)fchown(fd, uid_t(-1), replaced.st_gid);
    if (fstat(fd, &now) != 0) throw_errno(path, "cannot stat the new output");
  }
  mode_t mode = replaced.st_mode & 07777;
  if (now.st_uid != replaced.st_uid || now.st_gid != replaced.st_gid) mode &= ~mode_t(S_ISUID | S_ISGID);
  if (fchmod(fd, mode) != 0) throw_errno(path, "cannot give the new output the existing file's permissions");
}

// Where standard output stands when a run starts, so that a failed run can give back what it added.
std::optional<std::pair<off_t, off_t>> regular_stdout_extent() {
  struct stat st {};
  if (fstat(STDOUT_FILENO, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const off_t position = lseek(STDOUT_FILENO, 0, SEEK_CUR);
  if (position < 0) return std::nullopt;
  return std::pair{st.st_size, position};
}

// DIRECTORY as split_directory gives it ("" for the current one), as a path to open or name.
std::string directory_path(const std::string& directory) { return directory.empty() ? "." : directory; }

// Throws rmgsort::Error naming PATH when the rename that commits the output could not replace EXISTING
// (the regular file at TARGET, which the caller may write).
void refuse_rename_a_sticky_directory_forbids(const std::string& path, const std::string& target,
                                              const struct stat& existing) {
  // In a sticky directory (/tmp) only the file's owner, the directory's owner or a process with
  // CAP_FOWNER (root, here) may rename over a file: another user's world-writable file there would
  // pass the W_OK check and fail at the rename, after the whole run.
  const uid_t me = geteuid();
  if (me == 0 || existing.st_uid == me) return;
  const std::string directory = directory_path(split_directory(target).first);
  struct stat dir {};
  if (stat(directory.c_str(), &dir) != 0) return;  // creating the file will say why
  if ((dir.st_mode & S_ISVTX) == 0 || dir.st_uid == me) return;
  throw_errno(path, "cannot replace the existing output: another user's file in a sticky directory (" + directory +
                        "), which only its owner may replace",
              EPERM);
}

}  // namespace

OutputFile OutputFile::create(const std::string& path) { return create(path, /*anonymous_allowed=*/true); }

OutputFile OutputFile::create_named(const std::string& path) { return create(path, /*anonymous_allowed=*/false); }

OutputFile OutputFile::create(const std::string& path, bool anonymous_allowed) {
  OutputFile output;
  output.path_ = path;
  const auto write_to_standard_output = [&] {
    if (isatty(STDOUT_FILENO)) throw Error(kTerminalRefusal);
    output.is_stdout_ = true;
    if (const auto extent = regular_stdout_extent()) {
      output.stdout_start_size_ = extent->first;
      output.stdout_start_position_ = extent->second;
      set_stdout_restore_size(extent->first);  // a handled signal cuts it back as discard() does
    }
    return std::move(output);
  };
  if (path == "-") return write_to_standard_output();
  if (path.empty()) throw Error("the output path is empty");

  output.target_ = resolve_output_target(path);
  struct stat st {};
  const bool replaces_existing = stat(output.target_.c_str(), &st) == 0;
  if (replaces_existing) {
    if (S_ISDIR(st.st_mode)) throw Error(path + ": is a directory, not a file to write");
    // The regular file standard output writes to (-o /dev/stdout, /proc/self/fd/1, or its own name
    // under `> FILE`): written through standard output, as "-" is. A new file renamed over it would
    // take the place of what the shell opened, and whatever else went to standard output (before
    // or after this run, under `{ ...; } > FILE` or `>> FILE`) would be lost with the old inode.
    struct stat standard_output {};
    if (S_ISREG(st.st_mode) && fstat(STDOUT_FILENO, &standard_output) == 0 && S_ISREG(standard_output.st_mode) &&
        standard_output.st_dev == st.st_dev && standard_output.st_ino == st.st_ino)
      return write_to_standard_output();
    // An existing file the caller may not write is not replaced either (a rename would need only the
    // directory's permission): as a program writing into it would be refused, so is this one.
    if (S_ISREG(st.st_mode) && access(output.target_.c_str(), W_OK) != 0)
      throw_errno(path, "cannot replace the existing output", errno);
    if (S_ISREG(st.st_mode)) refuse_rename_a_sticky_directory_forbids(path, output.target_, st);
    if (!S_ISREG(st.st_mode)) {
      output.fd_ = UniqueFd(open(output.target_.c_str(), O_WRONLY | O_CLOEXEC));
      if (!output.fd_.valid()) throw_errno(path, "cannot open for writing");
      if (isatty(output.fd_.get())) throw Error(kTerminalRefusal);  // -o /dev/tty, -o /dev/stdout
      return output;
    }
  }

  const auto [directory, name] = split_directory(output.target_);
  if (name.empty()) throw Error(path + ": names a directory (it ends in '/'), not an output file");
  // An anonymous file gets its name only at commit(): a name the directory cannot hold would fail
  // there, after the whole run. (Every Linux file system's limit is at most NAME_MAX.)
  if (name.size() > NAME_MAX) throw_errno(path, "cannot create output file", ENAMETOOLONG);
  // What a killed run staging this output left (io/stale_temporaries.hpp) goes before this run adds its own.
  (void)remove_stale_temporaries(directory, name);
  if (!anonymous_allowed || !output.stage_anonymous(directory, name)) output.stage_named(directory, name);
  // (A throw here destroys `output`, which closes, or unlinks, the file.)
  if (replaces_existing) take_over_attributes(output.fd_.get(), path, st);
  return output;
}

void OutputFile::throw_cannot_create(const std::string& directory) const {
  const int error = errno;
  // A link names its target, which is what could not be created; a missing directory is named too.
  const std::string where = target_ == path_ ? path_ : path_ + " (a link to " + target_ + ")";
  const std::string in = error == ENOENT ? " in " + directory_path(directory) : "";
  throw_errno(where, "cannot create output file" + in, error);
}

bool OutputFile::stage_anonymous(const std::string& directory, const std::string& name) {
  // The directory is held open: the file is created in it and linked into it, even should it be
  // renamed meanwhile (the link would fail across file systems).
  UniqueFd dir(open(directory_path(directory).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) throw_cannot_create(directory);
  // 0666 and no name: the umask (and a default ACL) apply exactly as to any newly created file. Not
  // O_EXCL, which would forbid ever linking it.
  UniqueFd file(openat(dir.get(), ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666));
  if (!file.valid()) {
    if (errno == EOPNOTSUPP || errno == EISDIR) return false;  // no O_TMPFILE here, or in this kernel
    throw_cannot_create(directory);
  }
  if (!proc_fd_reaches(file.get())) return false;
  // Held until the file is closed: the temporary name commit() may give it is this run's, not stale.
  lock_as_live(file.get());
  UniqueFd kept(fcntl(file.get(), F_DUPFD_CLOEXEC, 0));
  if (!kept.valid()) throw_errno(path_, "cannot create output file");
  staging_ = Staging::anonymous;
  fd_ = std::move(file);
  kept_ = std::move(kept);
  directory_ = std::move(dir);
  directory_path_ = directory;
  name_ = name;
  return true;
}

void OutputFile::stage_named(const std::string& directory, const std::string& name) {
  for (int attempt = 0; attempt < kCreateAttempts; ++attempt) {
    std::string temp_path = directory + temporary_name(name);
    CleanupSignalsBlocked blocked;
    // 0666 and O_CREAT: the umask (and a default ACL) apply exactly as to any newly created file.
    const int fd = open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) throw_cannot_create(directory);
    if (!lock_as_live(fd, AT_FDCWD, temp_path.c_str())) {
      // Another run found the name between the create and the lock and took it for stale: the name
      // is gone or going with it.
      close(fd);
      continue;
    }
    staging_ = Staging::named;
    fd_ = UniqueFd(fd);
    // The lock lasts while a descriptor of the file is open: this one keeps it past finish_writing().
    kept_ = UniqueFd(fcntl(fd, F_DUPFD_CLOEXEC, 0));
    temp_path_ = std::move(temp_path);
    // Registered before the signals come back; should the registry be full, the throw destroys the
    // OutputFile, which unlinks the file.
    registration_ = CleanupRegistration(temp_path_);
    if (!kept_.valid()) throw_errno(path_, "cannot create output file");  // (the destructor unlinks it)
    return;
  }
  throw_errno(path_, "cannot create a temporary output file", EEXIST);
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      target_(std::move(other.target_)),
      staging_(other.staging_),
      temp_path_(std::exchange(other.temp_path_, std::string())),
      fd_(std::move(other.fd_)),
      directory_(std::move(other.directory_)),
      directory_path_(std::move(other.directory_path_)),
      name_(std::move(other.name_)),
      kept_(std::move(other.kept_)),
      is_stdout_(other.is_stdout_),
      stdout_start_size_(std::exchange(other.stdout_start_size_, -1)),
      stdout_start_position_(other.stdout_start_position_),
      committed_(other.committed_),
      registration_(std::move(other.registration_)) {}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    target_ = std::move(other.target_);
    staging_ = other.staging_;
    temp_path_ = std::exchange(other.temp_path_, std::string());
    fd_ = std::move(other.fd_);
    directory_ = std::move(other.directory_);
    directory_path_ = std::move(other.directory_path_);
    name_ = std::move(other.name_);
    kept_ = std::move(other.kept_);
    is_stdout_ = other.is_stdout_;
    stdout_start_size_ = std::exchange(other.stdout_start_size_, -1);
    stdout_start_position_ = other.stdout_start_position_;
    committed_ = other.committed_;
    registration_ = std::move(other.registration_);
    if (stdout_start_size_ >= 0) set_stdout_restore_size(stdout_start_size_);  // discard() forgot it
  }
  return *this;
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() noexcept {
  // A named file goes while its lock is held, so that no other run takes it for stale meanwhile.
  if (!committed_ && !temp_path_.empty()) (void)unlink(temp_path_.c_str());
  temp_path_.clear();
  fd_.reset();
  kept_.reset();  // the anonymous file's last descriptor: the file is gone
  directory_.reset();
  if (!committed_ && stdout_start_size_ >= 0) {
    // Standard output is written in place: a failed run cuts off what it added (a preallocation of
    // the whole output, or part of the keys) and never what was there before it started.
    struct stat st {};
    if (fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > stdout_start_size_)
      (void)ftruncate(STDOUT_FILENO, stdout_start_size_);
    (void)lseek(STDOUT_FILENO, stdout_start_position_, SEEK_SET);
  }
  if (stdout_start_size_ >= 0) set_stdout_restore_size(-1);
  stdout_start_size_ = -1;
  registration_.release();
}

void OutputFile::finish_writing() {
  // close() is where NFS and some FUSE file systems report write errors they deferred (every close
  // flushes, so an anonymous file's second descriptor does not keep them back).
  if (fd_.valid() && close(fd_.release()) != 0 && errno != EINTR) throw_errno(path_, "write failed");
}

void OutputFile::link_into_place() {
  const std::string source = proc_fd_path(kept_.get());
  const int dir = directory_.get();
  // A new output takes its name directly, so that nothing else ever appears in the directory.
  if (linkat(AT_FDCWD, source.c_str(), dir, name_.c_str(), AT_SYMLINK_FOLLOW) == 0) return;
  if (errno != EEXIST) throw_errno(path_, "cannot link the new output into its directory");
  sync_before_replacing();
  // An existing output is replaced in one step: the file takes a fresh name beside it, renamed over
  // it. The name is registered for the signal handlers before it exists, as a signal may reach any
  // thread; linkat fails on EEXIST rather than reuse a name another process made.
  for (int attempt = 0; attempt < kCreateAttempts; ++attempt) {
    const std::string temp_name = temporary_name(name_);
    CleanupRegistration registration(directory_path_ + temp_name);
    if (linkat(AT_FDCWD, source.c_str(), dir, temp_name.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      if (errno == EEXIST) continue;
      throw_errno(path_, "cannot link the new output into its directory");
    }
    if (renameat(dir, temp_name.c_str(), dir, name_.c_str()) != 0) {
      const int error = errno;
      (void)unlinkat(dir, temp_name.c_str(), 0);
      throw_errno(path_, "cannot rename the new output into place", error);
    }
    return;
  }
  throw_errno(path_, "cannot link the new output into its directory", EEXIST);
}

void OutputFile::sync_before_replacing() {
  // The data first, then the name: without the wait, a crash soon after the rename may leave the
  // name on a file whose blocks were never written (XFS; ext4 mounted noauto_da_alloc), and a sort
  // in place would have lost its input. A write error the file system deferred to write-back (EIO;
  // ENOSPC on NFS or thin storage) surfaces here, while the existing output is still whole.
  if (fdatasync(kept_.get()) != 0)
    throw_errno(path_, "write failed (making the new output durable before it replaces the existing one)");
}

void OutputFile::commit() {
  RMGSORT_EXPECTS(!committed_, "OutputFile::commit twice");
  finish_writing();
  if (staging_ == Staging::anonymous) {
    link_into_place();
    kept_.reset();
    directory_.reset();
  } else if (!temp_path_.empty()) {
    struct stat existing {};
    if (lstat(target_.c_str(), &existing) == 0) sync_before_replacing();
    if (rename(temp_path_.c_str(), target_.c_str()) != 0) {
      throw_errno(path_, "cannot rename the temporary file " + temp_path_ + " into place");
    }
    registration_.release();
    temp_path_.clear();
    kept_.reset();
  }
  if (stdout_start_size_ >= 0) set_stdout_restore_size(-1);
  committed_ = true;
}

namespace {

// Copies TEXT and its NUL into BUFFER; false when they do not fit.
template <std::size_t N>
bool copy_with_nul(char (&buffer)[N], const std::string& text) {
  if (text.size() >= N) return false;
  std::memcpy(buffer, text.c_str(), text.size() + 1);
  return true;
}

}  // namespace

std::optional<OutputFile::SignalCommit> OutputFile::signal_commit() const {
  if (committed_ || fd() < 0) return std::nullopt;
  SignalCommit recipe;
  recipe.staging = staging_;
  recipe.fd = fd();
  bool fits = true;
  if (staging_ == Staging::anonymous) {
    recipe.directory = directory_.get();
    fits = copy_with_nul(recipe.source, proc_fd_path(kept_.get())) && copy_with_nul(recipe.name, name_) &&
           copy_with_nul(recipe.spare, temporary_name(name_));
  } else if (staging_ == Staging::named) {
    fits = copy_with_nul(recipe.from, temp_path_) && copy_with_nul(recipe.to, target_);
  }
  if (!fits) return std::nullopt;
  return recipe;
}

bool OutputFile::commit_in_signal_handler(const SignalCommit& recipe) noexcept {
  switch (recipe.staging) {
    case Staging::in_place: return true;
    case Staging::named:
      // As commit(): an existing output is replaced only by data on the disk.
      if (access(recipe.to, F_OK) == 0 && fdatasync(recipe.fd) != 0) return false;
      return rename(recipe.from, recipe.to) == 0;
    case Staging::anonymous:
      // As link_into_place(): a new output takes its name directly; an existing one is replaced by
      // the spare name renamed over it.
      if (linkat(AT_FDCWD, recipe.source, recipe.directory, recipe.name, AT_SYMLINK_FOLLOW) == 0) return true;
      if (errno != EEXIST || fdatasync(recipe.fd) != 0) return false;
      if (linkat(AT_FDCWD, recipe.source, recipe.directory, recipe.spare, AT_SYMLINK_FOLLOW) != 0) return false;
      if (renameat(recipe.directory, recipe.spare, recipe.directory, recipe.name) == 0) return true;
      (void)unlinkat(recipe.directory, recipe.spare, 0);
      return false;
  }
  return false;
}

}  // namespace rmgsort
