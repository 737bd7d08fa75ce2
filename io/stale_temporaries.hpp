// The temporary names of a staged output (io/output_file.hpp), and what a killed run leaves of them.
//
// A temporary name is ".<name>.rmgsort-XXXXXX" beside the output <name>: the named fallback's whole
// output (where the file system has no O_TMPFILE, and the distributed sort's shared output, which
// every rank opens by name), or for microseconds the name an anonymous file is linked to before it
// is renamed over an existing output. The handlers of catchable signals unlink such names; SIGKILL,
// the OOM killer or a lost node leave them. So the run that stages a file holds an exclusive flock()
// on it for as long as the file is its own, and the kernel drops that lock however the process ends:
// before a later run stages an output, it removes the temporary names of that output which no live
// process locks. Whoever locks a file first owns it: a run that cannot lock the file it has just
// created (a remover opened it first) leaves it to that remover and draws another name.
//
// Only names of exactly that pattern, regular files of the effective user, whose lock was free and
// which still name the file locked when they are unlinked, are removed; never a file the run reads
// (keep_inputs(): a user may sort what a killed run left, by its temporary name). Where the file
// system has no locks (flock() fails otherwise than on a lock held), nothing is removed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rmgsort {

// ".<name>.rmgsort-", NAME shortened so that the prefix and its random suffix stay within NAME_MAX
// however long the output's name is.
[[nodiscard]] std::string temporary_prefix(std::string name);
// A fresh temporary name beside output NAME: temporary_prefix(NAME) and random letters and digits.
[[nodiscard]] std::string temporary_name(const std::string& name);
// Whether ENTRY is a temporary name with PREFIX (what temporary_name draws, and only that).
[[nodiscard]] bool is_temporary_name(std::string_view entry, std::string_view prefix);

// Marks FD's file, created by the name NAME in DIRECTORY (an open descriptor, or AT_FDCWD for a path
// NAME), as this process's: false when another process holds the lock, or has removed the name
// meanwhile (a remover unlinks before it lets go of the lock): then the file is not this run's to use.
[[nodiscard]] bool lock_as_live(int fd, int directory, const char* name);
// The same for a file with no name yet (O_TMPFILE): nothing can have taken it.
void lock_as_live(int fd);

// The files INPUTS name ("-": standard input), by device and inode, are never removed as stale by
// this process. Called by every command before it creates an output.
void keep_inputs(const std::vector<std::string>& inputs);

// Removes the temporary names of output NAME in DIRECTORY ("" for the working directory) that no
// process locks; returns how many. Throws only std::bad_alloc: a directory it cannot read, a name it may not open
// or unlink is left as it is (creating the output will say what is wrong with the directory).
std::size_t remove_stale_temporaries(const std::string& directory, const std::string& name);

}  // namespace rmgsort
