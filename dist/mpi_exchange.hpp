// The exchange over host memory: one MPI_Alltoallv of bytes a round (dist/exchange.hpp).
#pragma once

#include "dist/communicator.hpp"
#include "dist/exchange.hpp"

namespace rmgsort::dist {

class MpiExchange final : public Exchange {
 public:
  explicit MpiExchange(const Communicator& communicator) : communicator_(communicator) {}
  [[nodiscard]] std::string_view name() const override { return "mpi"; }
  void exchange(const std::byte* send, std::span<const ByteRange> sends, std::byte* recv,
                std::span<const ByteRange> receives) override;

 private:
  const Communicator& communicator_;
};

}  // namespace rmgsort::dist
