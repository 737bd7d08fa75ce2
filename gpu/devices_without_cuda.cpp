// devices.hpp for a build without the CUDA toolkit: no device is ever present, so `--gpus all`
// sorts on the CPU and naming a device is the usual "not present" error.
#include "gpu/devices.hpp"

#include "core/error.hpp"

namespace rmgsort {

int cuda_device_count() { return 0; }

GpuInfo gpu_info(int ordinal) {
  throw Error("GPU " + std::to_string(ordinal) + ": this rmgsort was built without CUDA");
}

CudaSummary cuda_summary() { return CudaSummary{}; }  // built_with_cuda: false

int multiprocessor_count(int ordinal) {
  throw Error("GPU " + std::to_string(ordinal) + ": this rmgsort was built without CUDA");
}

}  // namespace rmgsort
