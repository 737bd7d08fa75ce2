#include "dist/communicator.hpp"

#include <mpi.h>

#include <cstdlib>

#include "dist/mpi_check.hpp"

namespace rmgsort::dist {

Communicator::Communicator(int* argc, char*** argv) {
  int provided = 0;
  RMGSORT_MPI_TRY(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
  RMGSORT_MPI_TRY(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  RMGSORT_MPI_TRY(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
  RMGSORT_MPI_TRY(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  set_error_rank(rank_);
}

Communicator::~Communicator() { MPI_Finalize(); }

std::string Communicator::name() const { return "rank " + std::to_string(rank_) + " of " + std::to_string(size_); }

void Communicator::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // (MPI_Abort does not return; should it, this process still ends)
}

void Communicator::all_sum(std::span<std::uint64_t> values) const {
  // Counts of at most INT_MAX values a call.
  constexpr std::size_t kMaxCount = 1 << 30;
  for (std::size_t first = 0; first < values.size(); first += kMaxCount) {
    const int count = int(std::min(kMaxCount, values.size() - first));
    RMGSORT_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, values.data() + first, count, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
  }
}

std::uint64_t Communicator::all_max(std::uint64_t value) const {
  RMGSORT_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD));
  return value;
}

std::uint64_t Communicator::all_min(std::uint64_t value) const {
  RMGSORT_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD));
  return value;
}

void Communicator::exclusive_sum(std::span<std::uint64_t> values) const {
  if (values.empty()) return;
  std::vector<std::uint64_t> mine(values.begin(), values.end());
  RMGSORT_MPI_TRY(MPI_Exscan(mine.data(), values.data(), int(values.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
  // MPI leaves rank 0's result undefined.
  if (rank_ == 0) std::fill(values.begin(), values.end(), 0);
}

std::vector<std::uint64_t> Communicator::all_gather(std::span<const std::uint64_t> values) const {
  std::vector<std::uint64_t> all(values.size() * std::size_t(size_));
  RMGSORT_MPI_TRY(MPI_Allgather(values.data(), int(values.size()), MPI_UINT64_T, all.data(), int(values.size()),
                                MPI_UINT64_T, MPI_COMM_WORLD));
  return all;
}

std::vector<std::byte> Communicator::all_gather_bytes(std::span<const std::byte> bytes) const {
  std::vector<std::byte> all(bytes.size() * std::size_t(size_));
  RMGSORT_MPI_TRY(MPI_Allgather(bytes.data(), int(bytes.size()), MPI_BYTE, all.data(), int(bytes.size()), MPI_BYTE,
                                MPI_COMM_WORLD));
  return all;
}

std::vector<std::uint64_t> Communicator::all_to_all(std::span<const std::uint64_t> values) const {
  std::vector<std::uint64_t> received(values.size());
  RMGSORT_MPI_TRY(MPI_Alltoall(values.data(), 1, MPI_UINT64_T, received.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD));
  return received;
}

void Communicator::broadcast(std::string& text, int root) const {
  std::uint64_t length = text.size();
  RMGSORT_MPI_TRY(MPI_Bcast(&length, 1, MPI_UINT64_T, root, MPI_COMM_WORLD));
  text.resize(std::size_t(length));
  if (length > 0) RMGSORT_MPI_TRY(MPI_Bcast(text.data(), int(length), MPI_CHAR, root, MPI_COMM_WORLD));
}

void Communicator::barrier() const { RMGSORT_MPI_TRY(MPI_Barrier(MPI_COMM_WORLD)); }

}  // namespace rmgsort::dist
