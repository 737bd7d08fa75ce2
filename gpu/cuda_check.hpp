// Every CUDA runtime call goes through RMGSORT_CUDA_TRY, in every build: a failure throws
// rmgsort::Error naming the call site, the error's name and text, and what was being done.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "io/error.hpp"

namespace rmgsort {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  throw Error(std::string("CUDA error ") + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
              ") in " + call + " at " + file + ":" + std::to_string(line));
}

}  // namespace rmgsort

#define RMGSORT_CUDA_TRY(call)                                                          \
  do {                                                                                  \
    const cudaError_t rmgsort_cuda_status_ = (call);                                    \
    if (rmgsort_cuda_status_ != cudaSuccess)                                            \
      ::rmgsort::throw_cuda_error(rmgsort_cuda_status_, #call, __FILE__, __LINE__);     \
  } while (0)
