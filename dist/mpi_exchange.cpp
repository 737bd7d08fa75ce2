#include "dist/mpi_exchange.hpp"

#include <mpi.h>

#include <vector>

#include "core/error.hpp"
#include "dist/mpi_check.hpp"

namespace rmgsort::dist {
namespace {

// Counts and displacements as MPI takes them (ints: the round's buffers are at most kMaxRoundBytes).
void to_ints(std::span<const ByteRange> ranges, std::vector<int>& counts, std::vector<int>& offsets) {
  for (const ByteRange& range : ranges) {
    RMGSORT_EXPECTS(range.offset + range.bytes <= Exchange::kMaxRoundBytes, "an exchange round within its bound");
    counts.push_back(int(range.bytes));
    offsets.push_back(int(range.offset));
  }
}

}  // namespace

RoundBuffers MpiExchange::round_buffers(std::size_t bytes) {
  if (bytes > bytes_) {
    send_ = std::make_unique_for_overwrite<std::byte[]>(bytes);
    recv_ = std::make_unique_for_overwrite<std::byte[]>(bytes);
    bytes_ = bytes;
  }
  return RoundBuffers{send_.get(), recv_.get()};
}

void MpiExchange::exchange(const std::byte* send, std::span<const ByteRange> sends, std::byte* recv,
                           std::span<const ByteRange> receives) {
  RMGSORT_EXPECTS(int(sends.size()) == communicator_.size() && int(receives.size()) == communicator_.size(),
                  "a range per rank");
  std::vector<int> send_counts, send_offsets, recv_counts, recv_offsets;
  to_ints(sends, send_counts, send_offsets);
  to_ints(receives, recv_counts, recv_offsets);
  RMGSORT_MPI_TRY(MPI_Alltoallv(send, send_counts.data(), send_offsets.data(), MPI_BYTE, recv, recv_counts.data(),
                                recv_offsets.data(), MPI_BYTE, MPI_COMM_WORLD));
}

}  // namespace rmgsort::dist
