#include "io/stale_temporaries.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <ctime>
#include <mutex>
#include <utility>

#include "io/unique_fd.hpp"

namespace rmgsort {
namespace {

constexpr std::string_view kTempMarker = ".rmgsort-";
constexpr std::size_t kRandomChars = 6;
constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

std::string random_suffix() {
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
  for (unsigned char byte : random) suffix += kAlphabet[byte % kAlphabet.size()];
  return suffix;
}

// keep_inputs(): the device and inode of each regular file the run reads.
std::mutex g_kept_mutex;
std::vector<std::pair<dev_t, ino_t>> g_kept;

bool is_kept(const struct stat& st) {
  std::lock_guard lock(g_kept_mutex);
  return std::find(g_kept.begin(), g_kept.end(), std::pair{st.st_dev, st.st_ino}) != g_kept.end();
}

// Opens the file ENTRY names in DIRECTORY for its lock, without following a link, blocking on a FIFO
// or taking a terminal. Writable first: NFS emulates flock() by byte-range locks, whose exclusive
// kind needs a descriptor open for writing.
UniqueFd open_for_lock(int directory, const char* entry) {
  constexpr int kFlags = O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  UniqueFd fd(openat(directory, entry, O_WRONLY | kFlags));
  if (!fd.valid()) fd = UniqueFd(openat(directory, entry, O_RDONLY | kFlags));
  return fd;
}

// Removes ENTRY of DIRECTORY if it is a stale temporary file: see the top of the header.
bool remove_if_stale(int directory, const char* entry) {
  // Looked at before it is opened: another user's file, a link or a FIFO is not even opened.
  struct stat named {};
  if (fstatat(directory, entry, &named, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(named.st_mode) ||
      named.st_uid != geteuid() || is_kept(named))
    return false;
  const UniqueFd fd = open_for_lock(directory, entry);
  struct stat opened {};
  if (!fd.valid() || fstat(fd.get(), &opened) != 0 || !S_ISREG(opened.st_mode) || opened.st_uid != geteuid())
    return false;
  if (flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return false;  // a live run's, or no locks here
  // Still the file locked (nothing renamed another over the name since it was opened).
  if (fstatat(directory, entry, &named, AT_SYMLINK_NOFOLLOW) != 0 || named.st_dev != opened.st_dev ||
      named.st_ino != opened.st_ino)
    return false;
  return unlinkat(directory, entry, 0) == 0;
}

}  // namespace

std::string temporary_prefix(std::string name) {
  const std::size_t name_room = NAME_MAX - 1 - kTempMarker.size() - kRandomChars;
  if (name.size() > name_room) name.resize(name_room);
  return "." + name + std::string(kTempMarker);
}

std::string temporary_name(const std::string& name) { return temporary_prefix(name) + random_suffix(); }

bool is_temporary_name(std::string_view entry, std::string_view prefix) {
  if (entry.size() != prefix.size() + kRandomChars || !entry.starts_with(prefix)) return false;
  const std::string_view suffix = entry.substr(prefix.size());
  return std::all_of(suffix.begin(), suffix.end(), [](char c) { return kAlphabet.find(c) != std::string_view::npos; });
}

bool lock_as_live(int fd, int directory, const char* name) {
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) return errno != EWOULDBLOCK;  // no locks here: nothing is removed either
  // A remover that opened the file first locked it, unlinked it and let go: the lock came only then.
  struct stat opened {}, named {};
  return fstat(fd, &opened) == 0 && fstatat(directory, name, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
         opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
}

void lock_as_live(int fd) { (void)flock(fd, LOCK_EX | LOCK_NB); }

void keep_inputs(const std::vector<std::string>& inputs) {
  std::lock_guard lock(g_kept_mutex);
  for (const std::string& input : inputs) {
    struct stat st {};
    if ((input == "-" ? fstat(STDIN_FILENO, &st) : stat(input.c_str(), &st)) == 0 && S_ISREG(st.st_mode))
      g_kept.emplace_back(st.st_dev, st.st_ino);
  }
}

std::size_t remove_stale_temporaries(const std::string& directory, const std::string& name) {
  const int fd = open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return 0;
  DIR* listing = fdopendir(fd);  // owns fd from here
  if (listing == nullptr) {
    close(fd);
    return 0;
  }
  const std::string prefix = temporary_prefix(name);
  std::size_t removed = 0;
  while (const dirent* entry = readdir(listing)) {
    if (is_temporary_name(entry->d_name, prefix) && remove_if_stale(fd, entry->d_name)) ++removed;
  }
  closedir(listing);
  return removed;
}

}  // namespace rmgsort
