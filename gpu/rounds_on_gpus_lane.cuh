// The inside of RoundsOnGpus (gpu/rounds_on_gpus.hpp) that its files share: one GPU's buffers,
// streams and events, how a job is enqueued on them, and where a job's records land and lie.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/record_layout.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_resources.hpp"
#include "gpu/digit_rounds.hpp"
#include "gpu/rounds_on_gpus.hpp"
#include "gpu/staged_records.hpp"

namespace rmgsort {

inline constexpr std::uint64_t kStartsPerChunk = kRoundDigits + 1;

// CUB's temporary storage for sorting up to `keys` records of `layout` by all their key bits (the
// most either trip asks: fewer bits need no more), on the current device.
[[nodiscard]] std::uint64_t sort_temporary_bytes(std::uint64_t keys, const RecordLayout& layout);

// One GPU's part: two slots used by jobs in turn, each a pair of key buffers (bare keys: the keys;
// records: their pairs' keys) and, for records, a pair of value buffers, plus an array of digit
// starts. Job j uses slot j % 2: its copy in waits for job j - 2's copy back to be done with it.
struct RoundsOnGpus::Lane {
  int device = 0;
  Stream in, sort, out;
  std::array<std::array<DeviceBuffer, 2>, 2> keys, values;  // [slot][side]; values empty for bare keys
  std::array<DeviceBuffer, 2> starts;
  DeviceBuffer temporary;
  std::size_t temporary_bytes = 0;
  std::array<Event, 2> copied_in, sorted, copied_out;
  std::uint64_t jobs = 0;

  // Enqueues one job: copy_in(slot, in stream) fills the slot, work(slot, sort stream) returns where
  // the result lies, copy_out(slot, result, out stream) takes it back. Asynchronous.
  template <class CopyIn, class Work, class CopyOut>
  void enqueue(CopyIn&& copy_in, Work&& work, CopyOut&& copy_out) {
    const std::size_t slot = jobs % 2;
    if (jobs >= 2) RMGSORT_CUDA_TRY(cudaStreamWaitEvent(in.get(), copied_out[slot].get(), 0));
    copy_in(slot, in.get());
    copied_in[slot].record(in.get());
    RMGSORT_CUDA_TRY(cudaStreamWaitEvent(sort.get(), copied_in[slot].get(), 0));
    const auto result = work(slot, sort.get());
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
