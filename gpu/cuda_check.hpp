// Every CUDA runtime call goes through RMGSORT_CUDA_TRY, in every build: a failure throws
// rmgsort::Error naming the call site, the error's name and text, and what was being done. In a
// build with RMGSORT_FAULT_INJECTION, the check is also where a test's injected fault is reported
// (gpu/fault_injection.hpp); otherwise that hook is nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "core/error.hpp"
#include "gpu/fault_injection.hpp"

namespace rmgsort {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  std::string message = std::string("CUDA error ") + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
                        ") in " + call + " at " + file + ":" + std::to_string(line);
#if RMGSORT_FAULT_INJECTION
  if (fault_injection::take_injected()) message += " (injected: RMGSORT_INJECT_FAULT=" + fault_injection::spec() + ")";
#endif
  throw Error(message);
}

}  // namespace rmgsort

#define RMGSORT_CUDA_TRY(call)                                                          \
  do {                                                                                  \
    const cudaError_t rmgsort_cuda_status_ = RMGSORT_FAULT_STATUS((call), #call);       \
    if (rmgsort_cuda_status_ != cudaSuccess)                                            \
      ::rmgsort::throw_cuda_error(rmgsort_cuda_status_, #call, __FILE__, __LINE__);     \
  } while (0)

// After a kernel launch: the launch error, and with -DRMGSORT_CUDA_DEBUG_SYNC=ON (CMake option of the
// same name) also the kernel's own error, by waiting for `stream`, so that a fault points at the
// kernel that caused it instead of at a later synchronisation.
#if defined(RMGSORT_CUDA_DEBUG_SYNC)
#define RMGSORT_CUDA_CHECK_LAUNCH(stream)                  \
  do {                                                     \
    RMGSORT_CUDA_TRY(cudaGetLastError());                  \
    RMGSORT_CUDA_TRY(cudaStreamSynchronize(stream));       \
  } while (0)
#else
#define RMGSORT_CUDA_CHECK_LAUNCH(stream) RMGSORT_CUDA_TRY(cudaGetLastError())
#endif
