// One round of the all-to-all exchange that moves every record to its rank, behind one interface:
// over host memory with MPI_Alltoallv (dist/mpi_exchange.hpp), or between GPUs with NCCL
// (dist/nccl_exchange.hpp). The caller (dist/share_exchange.hpp) cuts the records into rounds small
// enough that every count and offset fits the APIs' int, and learns the counts first (MPI_Alltoall).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace rmgsort::dist {

// Bytes [offset, offset + bytes) of a round's buffer.
struct ByteRange {
  std::size_t offset = 0;
  std::size_t bytes = 0;
};

// A round's host buffers: what the sender stages, and what it receives.
struct RoundBuffers {
  std::byte* send = nullptr;
  std::byte* recv = nullptr;
};

class Exchange {
 public:
  // The most bytes a round's buffer may span (so every count and offset fits an int).
  static constexpr std::size_t kMaxRoundBytes = std::size_t{1} << 30;

  virtual ~Exchange() = default;
  // "mpi" or "nccl": as --stats names it.
  [[nodiscard]] virtual std::string_view name() const = 0;
  // Two host buffers of BYTES each (at most kMaxRoundBytes) for the rounds, kept while the exchange
  // lives (a later call for as many bytes or fewer gives the same): the memory exchange() moves
  // fastest from and to. Throws rmgsort::Error when it cannot be had.
  virtual RoundBuffers round_buffers(std::size_t bytes) = 0;
  // Collective, synchronous: this rank sends SEND's bytes SENDS[d] to rank d and receives RECEIVES[s]
  // bytes from rank s into RECV's. Both buffers are host memory of at most kMaxRoundBytes; the ranges
  // of one buffer do not overlap, and RECEIVES[s] is what rank s's SENDS names for this rank.
  virtual void exchange(const std::byte* send, std::span<const ByteRange> sends, std::byte* recv,
                        std::span<const ByteRange> receives) = 0;
};

}  // namespace rmgsort::dist
