#include "io/detail/output_target.hpp"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include "core/error.hpp"

namespace rmgsort {
namespace {

// As many links as the kernel follows in one lookup (MAXSYMLINKS); a longer chain fails with ELOOP.
constexpr int kMaxLinkHops = 40;

// The kernel's may_follow_link(): a link in a sticky, world-writable directory is followed only when
// its owner is the follower or the directory's owner.
void refuse_unprotected_link(const std::string& path, const std::string& link, const struct stat& link_stat) {
  if (link_stat.st_uid == geteuid()) return;
  const std::string directory = split_directory(link).first;
  const std::string directory_name = directory.empty() ? "." : directory;
  struct stat dir {};
  if (stat(directory_name.c_str(), &dir) != 0) return;  // the link was just found there; nothing to judge
  const bool sticky_world_writable = (dir.st_mode & S_ISVTX) != 0 && (dir.st_mode & S_IWOTH) != 0;
  if (!sticky_world_writable || link_stat.st_uid == dir.st_uid) return;
  throw Error(path + ": refusing to follow the symbolic link " + link + " (owned by uid " +
              std::to_string(link_stat.st_uid) + ") in the sticky, world-writable directory " + directory_name +
              ": another user's link there may point anywhere (the rule of fs.protected_symlinks)");
}

// The text of the link at LINK, relative to LINK's directory when it is not absolute; "" when unreadable.
std::string link_destination(const std::string& link) {
  char text[PATH_MAX];
  const ssize_t length = readlink(link.c_str(), text, sizeof text);
  if (length <= 0 || static_cast<std::size_t>(length) >= sizeof text) return "";
  const std::string destination(text, static_cast<std::size_t>(length));
  if (destination.front() == '/') return destination;
  return split_directory(link).first + destination;
}

}  // namespace

std::pair<std::string, std::string> split_directory(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {"", path};
  return {path.substr(0, slash + 1), path.substr(slash + 1)};
}

std::string resolve_output_target(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  // Each link of the chain at PATH is judged before realpath() follows it.
  std::string link = path;
  int hop = 0;
  for (; lstat(link.c_str(), &st) == 0 && S_ISLNK(st.st_mode); ++hop) {
    if (hop == kMaxLinkHops) throw Error(path + ": too many levels of symbolic links");
    refuse_unprotected_link(path, link, st);
    link = link_destination(link);
    if (link.empty()) return path;  // unreadable: the link itself, as the kernel could not follow it either
  }
  std::unique_ptr<char, decltype(&std::free)> resolved(realpath(path.c_str(), nullptr), &std::free);
  if (resolved) return std::string(resolved.get());
  // What the kernel follows though no name leads there (/proc/self/fd/N of a pipe): the path itself.
  if (stat(path.c_str(), &st) == 0) return path;
  // A dangling chain: its last destination is created (as open(O_CREAT) through the link would),
  // in its directory as realpath() finds it; a directory that does not exist fails the creation.
  const auto [directory, name] = split_directory(link);
  std::unique_ptr<char, decltype(&std::free)> in(realpath(directory.empty() ? "." : directory.c_str(), nullptr),
                                                 &std::free);
  return in ? std::string(in.get()) + "/" + name : link;
}

}  // namespace rmgsort
