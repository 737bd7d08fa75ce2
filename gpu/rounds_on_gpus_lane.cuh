// The inside of RoundsOnGpus (gpu/rounds_on_gpus.hpp) that its two files share: one GPU's buffers,
// streams and events, and how a job is enqueued on them.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "gpu/cuda_check.hpp"
#include "gpu/device_resources.hpp"
#include "gpu/digit_rounds.hpp"
#include "gpu/rounds_on_gpus.hpp"

namespace rmgsort {

inline constexpr std::uint64_t kStartsPerChunk = kRoundDigits + 1;

// CUB's temporary storage for sorting up to `keys` keys of `width` bytes by all their bits (the
// most either trip asks: fewer bits need no more), on the current device.
[[nodiscard]] std::uint64_t sort_temporary_bytes(std::uint64_t keys, std::size_t width);

// One GPU's part: two slots, each a pair of key buffers (a job's keys arrive in side 0; CUB's double
// buffer may leave them sorted in either side) and an array of digit starts, used by jobs in turn.
// Job j uses slot j % 2: its copy in waits for job j - 2's copy back to be done with the slot.
struct RoundsOnGpus::Lane {
  int device = 0;
  Stream in, sort, out;
  std::array<std::array<DeviceBuffer, 2>, 2> keys;
  std::array<DeviceBuffer, 2> starts;
  DeviceBuffer temporary;
  std::size_t temporary_bytes = 0;
  std::array<Event, 2> copied_in, sorted, copied_out;
  std::uint64_t jobs = 0;

  // Enqueues one job: copy_in(side 0, in stream) fills the slot, work(slot, sort stream) returns
  // where the result lies, copy_out(slot, result, out stream) takes it back. Asynchronous.
  template <class CopyIn, class Work, class CopyOut>
  void enqueue(CopyIn&& copy_in, Work&& work, CopyOut&& copy_out) {
    const std::size_t slot = jobs % 2;
    if (jobs >= 2) RMGSORT_CUDA_TRY(cudaStreamWaitEvent(in.get(), copied_out[slot].get(), 0));
    copy_in(keys[slot][0].as(), in.get());
    copied_in[slot].record(in.get());
    RMGSORT_CUDA_TRY(cudaStreamWaitEvent(sort.get(), copied_in[slot].get(), 0));
    const void* result = work(slot, sort.get());
    sorted[slot].record(sort.get());
    RMGSORT_CUDA_TRY(cudaStreamWaitEvent(out.get(), sorted[slot].get(), 0));
    copy_out(slot, result, out.get());
    copied_out[slot].record(out.get());
    ++jobs;
  }

  void synchronize() const {
    in.synchronize();
    sort.synchronize();
    out.synchronize();
  }
};

}  // namespace rmgsort
