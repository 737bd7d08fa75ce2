// The exchange over host memory: one MPI_Alltoallv of bytes a round (dist/exchange.hpp).
#pragma once

#include <memory>

#include "dist/communicator.hpp"
#include "dist/exchange.hpp"

namespace rmgsort::dist {

class MpiExchange final : public Exchange {
 public:
  explicit MpiExchange(const Communicator& communicator) : communicator_(communicator) {}
  [[nodiscard]] std::string_view name() const override { return "mpi"; }
  // Pageable memory: MPI copies from it as fast as from any (Open MPI's shared-memory transport
  // copies through its own buffers; a network's registers the pages on first use).
  RoundBuffers round_buffers(std::size_t bytes) override;
  void exchange(const std::byte* send, std::span<const ByteRange> sends, std::byte* recv,
                std::span<const ByteRange> receives) override;

 private:
  const Communicator& communicator_;
  std::unique_ptr<std::byte[]> send_, recv_;
  std::size_t bytes_ = 0;
};

}  // namespace rmgsort::dist
