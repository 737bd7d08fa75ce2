// The names of --output-parts' files: rank r's part of OUTPUT is OUTPUT.part-RRRRR (its rank, five
// digits), beside OUTPUT. Plain file names and directory listings, no MPI: the checks before a run
// (app/distributed_file_checks.hpp) and the removal of an earlier run's parts after it use them.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rmgsort::dist {

// "OUTPUT.part-00003".
[[nodiscard]] std::string part_path(const std::string& path, int rank);

// The rank whose part of PATH is named NAME (a name in PATH's directory), when NAME is exactly
// part_path of PATH's last component for some rank; nullopt otherwise.
[[nodiscard]] std::optional<int> part_rank(const std::string& path, const std::string& name);

// The files in PATH's directory named exactly as the parts of PATH of rank FIRST_RANK and above,
// as paths. An unreadable directory gives none and says why in FAILURE.
[[nodiscard]] std::vector<std::string> existing_parts(const std::string& path, int first_rank, std::string& failure);

// After a run of RANKS ranks committed its parts of PATH: removes the parts an earlier run of more
// ranks left beside them, the files named exactly part_path(PATH, r) for some r >= RANKS (nothing
// else: not OUTPUT.part-7 nor OUTPUT.part-00007.old), so that the parts in the directory are this
// run's. Returns the messages of those it could not remove (the run's output stands).
[[nodiscard]] std::vector<std::string> remove_stale_parts(const std::string& path, int ranks);

}  // namespace rmgsort::dist
