#include "dist/nccl_exchange.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gpu/cuda_check.hpp"

namespace rmgsort::dist {
namespace {

void check_nccl(ncclResult_t result, const char* call, int rank) {
  if (result == ncclSuccess) return;
  throw Error(std::string(call) + " failed on rank " + std::to_string(rank) + ": " + ncclGetErrorString(result));
}

#define RMGSORT_NCCL_TRY(call) check_nccl((call), #call, communicator_.rank())

// The end of the last range: the bytes of a round's buffer that hold data.
std::size_t span_of(std::span<const ByteRange> ranges) {
  std::size_t end = 0;
  for (const ByteRange& range : ranges)
    if (range.bytes > 0) end = std::max(end, range.offset + range.bytes);
  return end;
}

}  // namespace

bool ranks_have_gpus_of_their_own(const Communicator& communicator, int device) {
  cudaDeviceProp properties{};
  RMGSORT_CUDA_TRY(cudaGetDeviceProperties(&properties, device));
  const auto* uuid = reinterpret_cast<const std::byte*>(&properties.uuid);
  const std::vector<std::byte> all =
      communicator.all_gather_bytes(std::span<const std::byte>(uuid, sizeof properties.uuid));
  std::vector<std::string> uuids;
  for (std::size_t at = 0; at < all.size(); at += sizeof properties.uuid)
    uuids.emplace_back(reinterpret_cast<const char*>(all.data() + at), sizeof properties.uuid);
  std::sort(uuids.begin(), uuids.end());
  return std::adjacent_find(uuids.begin(), uuids.end()) == uuids.end();
}

struct NcclExchange::State {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  std::byte* send = nullptr;
  std::byte* recv = nullptr;
  std::size_t bytes = 0;
  std::byte* host_send = nullptr;  // pinned
  std::byte* host_recv = nullptr;
  std::size_t host_bytes = 0;
  int device = 0;
};

NcclExchange::NcclExchange(const Communicator& communicator, int device, std::size_t round_bytes)
    : communicator_(communicator), state_(std::make_unique<State>()) {
  state_->device = device;
  state_->bytes = std::max<std::size_t>(round_bytes, 1);
  ncclUniqueId id{};
  if (communicator.rank() == 0) RMGSORT_NCCL_TRY(ncclGetUniqueId(&id));
  std::string id_bytes(reinterpret_cast<const char*>(&id), sizeof id);
  communicator.broadcast(id_bytes, 0);
  std::copy(id_bytes.begin(), id_bytes.end(), reinterpret_cast<char*>(&id));
  RMGSORT_CUDA_TRY(cudaSetDevice(device));
  RMGSORT_CUDA_TRY(cudaStreamCreateWithFlags(&state_->stream, cudaStreamNonBlocking));
  RMGSORT_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&state_->send), state_->bytes));
  RMGSORT_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&state_->recv), state_->bytes));
  RMGSORT_NCCL_TRY(ncclCommInitRank(&state_->comm, communicator.size(), id, communicator.rank()));
}

NcclExchange::~NcclExchange() {
  // Nothing here may throw; errors at teardown change nothing the run produced.
  if (state_->comm != nullptr) (void)ncclCommDestroy(state_->comm);
  (void)cudaSetDevice(state_->device);
  if (state_->send != nullptr) (void)cudaFree(state_->send);
  if (state_->recv != nullptr) (void)cudaFree(state_->recv);
  if (state_->stream != nullptr) (void)cudaStreamDestroy(state_->stream);
  if (state_->host_send != nullptr) (void)cudaFreeHost(state_->host_send);
  if (state_->host_recv != nullptr) (void)cudaFreeHost(state_->host_recv);
}

RoundBuffers NcclExchange::round_buffers(std::size_t bytes) {
  State& s = *state_;
  if (bytes > s.host_bytes) {
    RMGSORT_CUDA_TRY(cudaSetDevice(s.device));
    if (s.host_send != nullptr) RMGSORT_CUDA_TRY(cudaFreeHost(s.host_send));
    if (s.host_recv != nullptr) RMGSORT_CUDA_TRY(cudaFreeHost(s.host_recv));
    s.host_send = s.host_recv = nullptr;
    s.host_bytes = 0;
    RMGSORT_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&s.host_send), bytes, cudaHostAllocDefault));
    RMGSORT_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&s.host_recv), bytes, cudaHostAllocDefault));
    s.host_bytes = bytes;
  }
  return RoundBuffers{s.host_send, s.host_recv};
}

void NcclExchange::exchange(const std::byte* send, std::span<const ByteRange> sends, std::byte* recv,
                            std::span<const ByteRange> receives) {
  RMGSORT_EXPECTS(int(sends.size()) == communicator_.size() && int(receives.size()) == communicator_.size(),
                  "a range per rank");
  const std::size_t send_span = span_of(sends), recv_span = span_of(receives);
  RMGSORT_EXPECTS(send_span <= state_->bytes && recv_span <= state_->bytes, "a round within the device buffers");
  State& s = *state_;
  RMGSORT_CUDA_TRY(cudaSetDevice(s.device));
  if (send_span > 0) RMGSORT_CUDA_TRY(cudaMemcpyAsync(s.send, send, send_span, cudaMemcpyHostToDevice, s.stream));
  RMGSORT_NCCL_TRY(ncclGroupStart());
  for (std::size_t r = 0; r < sends.size(); ++r) {
    if (sends[r].bytes > 0)
      RMGSORT_NCCL_TRY(ncclSend(s.send + sends[r].offset, sends[r].bytes, ncclChar, int(r), s.comm, s.stream));
    if (receives[r].bytes > 0)
      RMGSORT_NCCL_TRY(ncclRecv(s.recv + receives[r].offset, receives[r].bytes, ncclChar, int(r), s.comm, s.stream));
  }
  RMGSORT_NCCL_TRY(ncclGroupEnd());
  if (recv_span > 0) RMGSORT_CUDA_TRY(cudaMemcpyAsync(recv, s.recv, recv_span, cudaMemcpyDeviceToHost, s.stream));
  RMGSORT_CUDA_TRY(cudaStreamSynchronize(s.stream));
}

}  // namespace rmgsort::dist
