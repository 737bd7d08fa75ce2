// Every MPI call of rmgsort goes through RMGSORT_MPI_TRY: the communicators return their errors
// (MPI_ERRORS_RETURN, set by dist/communicator.hpp) instead of aborting, and a failed call becomes an
// MpiError naming the call, the rank and MPI's own text. An MpiError cannot be agreed on with the
// other ranks (the transport itself failed): app/ ends the job with MPI_Abort when it sees one.
#pragma once

#include <string>

#include "core/error.hpp"

namespace rmgsort::dist {

class MpiError : public Error {
 public:
  using Error::Error;
};

// The rank named in MPI errors (this process's rank in MPI_COMM_WORLD; -1 before MPI_Init).
void set_error_rank(int rank) noexcept;
[[nodiscard]] int error_rank() noexcept;

// Throws MpiError "MPI_Allreduce failed on rank 2: <MPI_Error_string>" unless CODE is MPI_SUCCESS.
// CALL is the call's text; its name is what precedes the first '('.
void check_mpi(int code, const char* call);

}  // namespace rmgsort::dist

#define RMGSORT_MPI_TRY(call) ::rmgsort::dist::check_mpi((call), #call)
