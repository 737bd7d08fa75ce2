#include "dist/mpi_check.hpp"

#include <mpi.h>

#include <atomic>
#include <string_view>

namespace rmgsort::dist {
namespace {

std::atomic<int> g_rank{-1};

}  // namespace

void set_error_rank(int rank) noexcept { g_rank.store(rank); }
int error_rank() noexcept { return g_rank.load(); }

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  const std::string_view text(call);
  const std::string name(text.substr(0, text.find('(')));
  char reason[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, reason, &length) != MPI_SUCCESS) length = 0;
  const int rank = error_rank();
  throw MpiError(name + " failed on rank " + (rank >= 0 ? std::to_string(rank) : std::string("?")) + ": " +
                 (length > 0 ? std::string(reason, std::size_t(length)) : "MPI error " + std::to_string(code)));
}

}  // namespace rmgsort::dist
