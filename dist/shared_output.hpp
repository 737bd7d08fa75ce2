// The outputs of a distributed sort. One file that every rank writes at its own offsets: rank 0
// stages it as a named temporary file in the output's directory (io/output_file.hpp's named
// staging: the other ranks, on other hosts too, must reach it by name), broadcasts the name, and
// every other rank opens it for writing. Every rank registers that name with the cleanup signal
// handlers (io/cleanup.hpp), so that when one rank is killed and the job's launcher ends the others
// with SIGTERM, they remove the temporary even if rank 0 was the one killed. Rank 0 commits it with
// one rename once every rank has written and closed its part (the caller agrees on that).
//
// Or, --output-parts: every rank's records in a file of its own, OUTPUT.part-RRRRR (its rank, five
// digits), staged as any output (anonymous where the file system allows) and committed by its
// rank after the same agreement; the parts concatenated in rank order are the single output.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dist/communicator.hpp"
#include "dist/output_parts.hpp"
#include "io/cleanup.hpp"
#include "io/output_file.hpp"
#include "io/unique_fd.hpp"

namespace rmgsort::dist {

class SharedOutput {
 public:
  // Collective (it agrees on rank 0's creation and every rank's opening: dist/rank_agreement.hpp).
  // Throws rmgsort::Error naming PATH, or RankFailure when another rank failed.
  [[nodiscard]] static SharedOutput open(const Communicator& communicator, const std::string& path);
  // This rank's part of the job's output: OUTPUT.part-RRRRR, its own file. Not collective.
  [[nodiscard]] static SharedOutput open_part(const Communicator& communicator, const std::string& path);

  SharedOutput(SharedOutput&&) noexcept = default;
  SharedOutput& operator=(SharedOutput&&) noexcept = default;
  // Unless committed: rank 0's staged file is removed; the others only close their descriptor.
  ~SharedOutput() = default;

  [[nodiscard]] int fd() const { return staged_ ? staged_->fd() : fd_.get(); }
  // The file as messages name it: the output's path (a part's own).
  [[nodiscard]] const std::string& path() const { return path_; }
  // Whether this rank commits the file (rank 0 of a shared output, every rank its part).
  [[nodiscard]] bool commits() const { return staged_.has_value(); }

  // Closes this rank's descriptor: a write error NFS defers to close() surfaces here.
  void finish_writing();
  // The rank that commits: gives the file its name (io/output_file.hpp). The others: nothing.
  void commit();

 private:
  SharedOutput() = default;

  std::string path_;
  std::optional<OutputFile> staged_;  // the rank that commits
  UniqueFd fd_;                       // the other ranks of a shared output
  CleanupRegistration registration_;  // the other ranks: the staged file's name
};

}  // namespace rmgsort::dist
