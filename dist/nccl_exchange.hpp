// The exchange between GPUs: each round's staged records copied to this rank's GPU, moved with
// ncclSend/ncclRecv to every other rank's GPU (one NCCL group a round, so that no pair waits on
// another), and copied back to host memory (dist/exchange.hpp). Built only with CUDA and NCCL
// (RMGSORT_WITH_NCCL). The rounds are those of dist/share_exchange.hpp: at most kMaxRoundBytes a
// buffer, so the device holds two buffers of the round's size.
//
// Run so far with one rank on one GPU (NCCL with itself); tests/e2e/distributed_test.sh's 2-GPU case
// runs it between two GPUs where a machine has them.
#pragma once

#include <cstddef>
#include <memory>

#include "dist/communicator.hpp"
#include "dist/exchange.hpp"

namespace rmgsort::dist {

// Whether every rank's DEVICE is a GPU of its own (their UUIDs all differ): NCCL takes one rank a GPU,
// and ranks that share one exchange over MPI instead. Collective over every rank.
[[nodiscard]] bool ranks_have_gpus_of_their_own(const Communicator& communicator, int device);

class NcclExchange final : public Exchange {
 public:
  // Collective over every rank: rank 0's ncclUniqueId is broadcast over MPI and every rank joins the
  // NCCL communicator on DEVICE, with device buffers for rounds of up to ROUND_BYTES. Throws
  // rmgsort::Error naming the NCCL or CUDA call and the rank.
  NcclExchange(const Communicator& communicator, int device, std::size_t round_bytes);
  ~NcclExchange() override;
  NcclExchange(const NcclExchange&) = delete;
  NcclExchange& operator=(const NcclExchange&) = delete;

  [[nodiscard]] std::string_view name() const override { return "nccl"; }
  // Pinned host memory (cudaHostAlloc, once, not per round): the copies to and from the GPU go by
  // DMA at the link's speed, where pageable memory is staged by the driver through pinned bounce
  // buffers of its own.
  RoundBuffers round_buffers(std::size_t bytes) override;
  void exchange(const std::byte* send, std::span<const ByteRange> sends, std::byte* recv,
                std::span<const ByteRange> receives) override;

 private:
  struct State;
  const Communicator& communicator_;
  std::unique_ptr<State> state_;
};

}  // namespace rmgsort::dist
