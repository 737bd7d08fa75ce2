// The MPI job as rmgsort sees it: MPI initialized for the life of one object (the main thread
// alone calls MPI: MPI_THREAD_FUNNELED), this process's rank among the job's, and the few typed
// collectives the distributed sort uses, each checked (dist/mpi_check.hpp). Every collective must be
// called by every rank, in the same order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace rmgsort::dist {

class Communicator {
 public:
  // MPI_Init_thread on MPI_COMM_WORLD, its errors returned rather than fatal. Throws MpiError.
  Communicator(int* argc, char*** argv);
  // MPI_Finalize: every rank must reach it (after an agreed failure too). A rank that cannot agree
  // with the others (an MpiError) calls abort() instead.
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }
  // "rank 2 of 4", as messages name a rank.
  [[nodiscard]] std::string name() const;

  // Ends every rank of the job with CODE (MPI_Abort). Does not return.
  [[noreturn]] void abort(int code) const;

  // Collectives (uint64 values): element-wise sums over every rank into VALUES;
  void all_sum(std::span<std::uint64_t> values) const;
  // the maximum and minimum of one value;
  [[nodiscard]] std::uint64_t all_max(std::uint64_t value) const;
  [[nodiscard]] std::uint64_t all_min(std::uint64_t value) const;
  // the element-wise sums over the ranks below this one (0 on rank 0);
  void exclusive_sum(std::span<std::uint64_t> values) const;
  // every rank's VALUES, rank by rank (each rank gives values.size() of them, the same number);
  [[nodiscard]] std::vector<std::uint64_t> all_gather(std::span<const std::uint64_t> values) const;
  [[nodiscard]] std::vector<std::byte> all_gather_bytes(std::span<const std::byte> bytes) const;
  // VALUES[d] sent to rank d; returns what each rank sent this one, by sender (MPI_Alltoall);
  [[nodiscard]] std::vector<std::uint64_t> all_to_all(std::span<const std::uint64_t> values) const;
  // ROOT's TEXT, on every rank.
  void broadcast(std::string& text, int root) const;
  void barrier() const;

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace rmgsort::dist
