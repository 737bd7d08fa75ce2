#include "io/output_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <utility>

#include "io/error.hpp"

namespace rmgsort {
namespace {

constexpr const char* kTerminalRefusal =
    "refusing to write binary keys to a terminal: use -o FILE or redirect standard output";
constexpr std::string_view kTempMarker = ".rmgsort-";
constexpr std::size_t kRandomChars = 6;
constexpr int kCreateAttempts = 100;

std::string random_suffix() {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char random[kRandomChars];
  if (getrandom(random, sizeof random, 0) != static_cast<ssize_t>(sizeof random)) {
    // No entropy source: the clock and the process id are unique enough, O_EXCL catches the rest.
    auto seed = static_cast<unsigned long long>(std::time(nullptr)) ^
                (static_cast<unsigned long long>(getpid()) << 20) ^ static_cast<unsigned long long>(clock());
    for (unsigned char& byte : random) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      byte = static_cast<unsigned char>(seed >> 56);
    }
  }
  std::string suffix;
  for (unsigned char byte : random) suffix += kAlphabet[byte % (sizeof kAlphabet - 1)];
  return suffix;
}

// "dir/name" -> {"dir/", "name"}; "name" -> {"", "name"}.
std::pair<std::string, std::string> split_directory(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {"", path};
  return {path.substr(0, slash + 1), path.substr(slash + 1)};
}

// The path commit() replaces: a symbolic link's target, so that `-o link` updates what it points to.
// A dangling link is replaced itself.
std::string resolve_target(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  std::unique_ptr<char, decltype(&std::free)> resolved(realpath(path.c_str(), nullptr), &std::free);
  return resolved ? std::string(resolved.get()) : path;
}

// Blocks the signals whose handlers unlink registered files, so that a file is never created without
// being registered.
class CleanupSignalsBlocked {
 public:
  CleanupSignalsBlocked() {
    sigset_t block;
    sigemptyset(&block);
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, signal_number);
    pthread_sigmask(SIG_BLOCK, &block, &saved_);
  }
  ~CleanupSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }
  CleanupSignalsBlocked(const CleanupSignalsBlocked&) = delete;
  CleanupSignalsBlocked& operator=(const CleanupSignalsBlocked&) = delete;

 private:
  sigset_t saved_;
};

}  // namespace

OutputFile OutputFile::create(const std::string& path) {
  OutputFile output;
  output.path_ = path;
  if (path == "-") {
    if (isatty(STDOUT_FILENO)) throw Error(kTerminalRefusal);
    output.is_stdout_ = true;
    return output;
  }
  if (path.empty()) throw Error("the output path is empty");

  output.target_ = resolve_target(path);
  struct stat st {};
  const bool replaces_existing = stat(output.target_.c_str(), &st) == 0;
  if (replaces_existing) {
    if (S_ISDIR(st.st_mode)) throw Error(path + ": is a directory");
    if (!S_ISREG(st.st_mode)) {
      output.fd_ = UniqueFd(open(output.target_.c_str(), O_WRONLY | O_CLOEXEC));
      if (!output.fd_.valid()) throw_errno(path, "cannot open for writing");
      if (isatty(output.fd_.get())) throw Error(kTerminalRefusal);  // -o /dev/tty, -o /dev/stdout
      return output;
    }
  }

  auto [directory, name] = split_directory(output.target_);
  if (name.empty()) throw_errno(path, "cannot create output file", EISDIR);
  // Keep the temporary name within NAME_MAX however long the output's name is.
  const std::size_t name_room = NAME_MAX - 1 - kTempMarker.size() - kRandomChars;
  if (name.size() > name_room) name.resize(name_room);

  for (int attempt = 0; attempt < kCreateAttempts; ++attempt) {
    std::string temp_path = directory + "." + name + std::string(kTempMarker) + random_suffix();
    CleanupSignalsBlocked blocked;
    // 0666 and O_CREAT: the umask (and a default ACL) apply exactly as to any newly created file.
    const int fd = open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) throw_errno(path, "cannot create output file", errno);
    output.fd_ = UniqueFd(fd);
    output.temp_path_ = std::move(temp_path);
    // A file that replaces another keeps the other's permission bits (as `sort -o f f` keeps f's):
    // sorting a private file must not make it readable by others.
    // (A throw here destroys `output`, which unlinks the temporary file.)
    if (replaces_existing && fchmod(fd, st.st_mode & 07777) != 0)
      throw_errno(path, "cannot give the new output the existing file's permissions");
    // Registered before the signals come back; should the registry be full, the throw destroys
    // `output`, which unlinks the file.
    output.registration_ = CleanupRegistration(output.temp_path_);
    return output;
  }
  throw_errno(path, "cannot create a temporary output file", EEXIST);
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)),
      target_(std::move(other.target_)),
      temp_path_(std::exchange(other.temp_path_, std::string())),
      fd_(std::move(other.fd_)),
      is_stdout_(other.is_stdout_),
      committed_(other.committed_),
      registration_(std::move(other.registration_)) {}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    target_ = std::move(other.target_);
    temp_path_ = std::exchange(other.temp_path_, std::string());
    fd_ = std::move(other.fd_);
    is_stdout_ = other.is_stdout_;
    committed_ = other.committed_;
    registration_ = std::move(other.registration_);
  }
  return *this;
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() noexcept {
  fd_.reset();
  if (!committed_ && !temp_path_.empty()) (void)unlink(temp_path_.c_str());
  temp_path_.clear();
  registration_.release();
}

void OutputFile::commit() {
  RMGSORT_EXPECTS(!committed_, "OutputFile::commit twice");
  if (fd_.valid()) {
    // close() is where NFS and some FUSE file systems report write errors they deferred.
    if (close(fd_.release()) != 0 && errno != EINTR) throw_errno(path_, "write failed");
  }
  if (!temp_path_.empty()) {
    if (rename(temp_path_.c_str(), target_.c_str()) != 0) {
      throw_errno(path_, "cannot rename the temporary file " + temp_path_ + " into place");
    }
    registration_.release();
  }
  committed_ = true;
}

}  // namespace rmgsort
