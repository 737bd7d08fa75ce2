// A test-only hook that makes the in-core sort fail as a faulty or crowded GPU would, so that tests
// can check that a failing sort ends cleanly (exit 2 naming the GPU and the stage, nothing
// committed, nothing left behind) and that memory taken by another process is planned around.
// Built only with the CMake option RMGSORT_FAULT_INJECTION (off by default; the tests' builds turn
// it on); without it every hook below compiles to nothing and the environment is never read.
//
// RMGSORT_INJECT_FAULT=STAGE[:GPU] (GPU: the device ordinal, as --gpus names it; without it, any):
//   copy-in, histogram, scatter, swap   the stage's first CUDA check on that GPU reports
//                                       cudaErrorLaunchFailure
//   bucket-sort                         the first bucket's radix sort reports cudaErrorLaunchFailure
//   copy-back                           the first copy of a sorted bucket to the host reports it
//   page-lock                           the page-locking of the memory read or partitioned for the
//                                       GPUs, beside that work (SortEngine::pin_while), fails with
//                                       it: the sorts then page-lock their own keys, and succeed
//   allocate                            the sorter's allocation on that GPU fails out of memory
//                                       (cudaErrorMemoryAllocation), and the GPU's memory is taken
//                                       for real (held until the process exits) so that what is
//                                       free is the margin and half of what the plan needed: a plan
//                                       made again sees half the memory
//   allocate-always                     every allocation of a sorter on that GPU fails so
//                                       (the memory stays free)
// A stage's fault fires once per process. Before an injected fault is reported, every GPU the sort
// used is waited for, as a real fault would have stopped them: nothing is in flight while the
// error unwinds. (Included by gpu/cuda_check.hpp, where the checks' hook is used.)
#pragma once

#if RMGSORT_FAULT_INJECTION

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace rmgsort::fault_injection {

// RMGSORT_INJECT_FAULT as read at the first use ("" when unset): for --stats. A malformed value is
// an Error naming the variable.
[[nodiscard]] std::string spec();
// Replaces the environment's value (tests; "" injects nothing), re-arming a fault that fired.
void set_spec(std::string_view spec);

// The sort enters `stage` (InCoreSorter::Impl::at's words: "copy in", "scatter of pass 2") on
// `device`: arms the fault, on this thread, when they match it.
void enter_stage(int device, std::string_view stage);
// What a checked CUDA call (`call`: its text) returned, or the armed fault.
[[nodiscard]] cudaError_t checked(cudaError_t status, const char* call);
// Whether the last failure this thread reported was injected (and forgets it).
[[nodiscard]] bool take_injected();

// Before the sorter allocates `planned_bytes` on `device`: when that allocation is to fail
// (allocate, allocate-always), throws the Error a failed allocation throws (gpu/device_resources.hpp:
// "GPU N: cannot allocate ...: out of memory"), after taking the device's memory for `allocate`.
void before_allocation(int device, std::uint64_t planned_bytes);
// Gives back the memory `allocate` took (tests).
void release_taken_memory();

}  // namespace rmgsort::fault_injection

#define RMGSORT_FAULT_STAGE(device, stage) ::rmgsort::fault_injection::enter_stage((device), (stage))
#define RMGSORT_FAULT_STATUS(status, call) ::rmgsort::fault_injection::checked((status), (call))
#define RMGSORT_FAULT_BEFORE_ALLOCATION(device, bytes) ::rmgsort::fault_injection::before_allocation((device), (bytes))

#else

#define RMGSORT_FAULT_STAGE(device, stage) ((void)0)
#define RMGSORT_FAULT_STATUS(status, call) (status)
#define RMGSORT_FAULT_BEFORE_ALLOCATION(device, bytes) ((void)0)

#endif
