// Where an output path leads: the file that replacing the path replaces. `-o link` updates what the
// link points to, so the link is followed here, by hand (readlink and realpath), which the kernel's
// own protection of symbolic links does not see: the rule of fs.protected_symlinks is applied here.
#pragma once

#include <string>
#include <utility>

namespace rmgsort {

// The path commit() renames onto for PATH: PATH itself, or the target of a symbolic link at PATH (of
// a dangling link, the missing file it names, which the output creates, as GNU sort -o does; the
// link stays). A chain of more than 40 links throws rmgsort::Error ("too many levels of symbolic
// links"). Every link on the way is checked as fs.protected_symlinks
// checks the links the kernel follows: a link in a sticky, world-writable directory (/tmp) is
// followed only when it belongs to the directory's owner or to the effective user; otherwise throws
// rmgsort::Error naming PATH, the link and why (another user's link there may point anywhere).
[[nodiscard]] std::string resolve_output_target(const std::string& path);

// "dir/name" -> {"dir/", "name"}; "name" -> {"", "name"}.
[[nodiscard]] std::pair<std::string, std::string> split_directory(const std::string& path);

}  // namespace rmgsort
