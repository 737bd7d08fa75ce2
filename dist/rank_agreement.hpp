// The ranks agree before they go on: a step that each rank runs on its own (reading its slice,
// sorting its share, writing its records) may fail on some ranks only, and a rank that stopped would
// leave the others waiting in the next collective. So every such step ends in agree(): the ranks
// learn whether any of them failed, and the lowest failing rank's message reaches every rank. Then
// every rank throws a RankFailure: the failing ones with their own error's message, the others
// naming the rank that failed and its cause, so that every rank unwinds (its temporary files go),
// reaches MPI_Finalize and ends with exit status 2. Any other exception was not agreed on: the
// other ranks may be waiting in a collective, so app/ aborts the job.
#pragma once

#include <exception>
#include <string>

#include "core/error.hpp"
#include "dist/communicator.hpp"
#include "dist/mpi_check.hpp"

namespace rmgsort::dist {

// A failure every rank agreed on: this rank's own (its error's message), or another rank's.
class RankFailure : public Error {
 public:
  RankFailure(const std::string& message, bool this_rank) : Error(message), this_rank_(this_rank) {}
  [[nodiscard]] bool this_rank() const noexcept { return this_rank_; }

 private:
  bool this_rank_;
};

// Collective. FAILURE: this rank's error, or null when its step succeeded. Returns when every rank
// succeeded; otherwise throws RankFailure: its own error's message on a rank that failed, "rank 2 of
// 4 failed: CAUSE" (the lowest failing rank's message) on the others.
void agree(const Communicator& communicator, std::exception_ptr failure);

// Runs STEP (this rank's own work, no collective in it), then agree()s on how it ended. An MpiError
// is not agreed on: it passes through (the transport failed; app/ aborts the job).
template <class Step>
void agreed(const Communicator& communicator, Step&& step) {
  std::exception_ptr failure;
  try {
    step();
  } catch (const MpiError&) {
    throw;
  } catch (...) {
    failure = std::current_exception();
  }
  agree(communicator, failure);
}

}  // namespace rmgsort::dist
