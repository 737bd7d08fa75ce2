#include "gpu/devices.hpp"

#include <cuda_runtime_api.h>

#include <map>
#include <mutex>

#include "gpu/cuda_check.hpp"
#include "gpu/device_resources.hpp"

namespace rmgsort {

int cuda_device_count() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver) {
    (void)cudaGetLastError();  // clear the sticky-free "no device" state; it is an answer, not a fault
    return 0;
  }
  RMGSORT_CUDA_TRY(status);
  return count;
}

GpuInfo gpu_info(int ordinal) {
  GpuInfo info;
  info.ordinal = ordinal;
  cudaDeviceProp properties{};
  RMGSORT_CUDA_TRY(cudaGetDeviceProperties(&properties, ordinal));
  info.name = properties.name;
  char bus_id[32] = {};
  RMGSORT_CUDA_TRY(cudaDeviceGetPCIBusId(bus_id, int(sizeof bus_id), ordinal));
  info.pci_bus_id = bus_id;
  ScopedDevice scope(ordinal);
  std::size_t free = 0, total = 0;
  RMGSORT_CUDA_TRY(cudaMemGetInfo(&free, &total));
  info.free_memory = free;
  info.total_memory = total;
  return info;
}

CudaSummary cuda_summary() {
  CudaSummary summary;
  summary.built_with_cuda = true;
  summary.architectures = RMGSORT_CUDA_ARCHITECTURES;
  RMGSORT_CUDA_TRY(cudaRuntimeGetVersion(&summary.runtime_version));
  RMGSORT_CUDA_TRY(cudaDriverGetVersion(&summary.driver_version));  // 0, and success, without a driver
  if (summary.driver_version == 0) return summary;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice) {
    (void)cudaGetLastError();  // an answer, not a fault: clear it
    summary.driver_too_old = status == cudaErrorInsufficientDriver;
    return summary;
  }
  RMGSORT_CUDA_TRY(status);
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    cudaDeviceProp properties{};
    RMGSORT_CUDA_TRY(cudaGetDeviceProperties(&properties, ordinal));
    summary.gpus.push_back({ordinal, properties.name, properties.totalGlobalMem, properties.major, properties.minor});
  }
  return summary;
}

int multiprocessor_count(int ordinal) {
  static std::mutex mutex;
  static std::map<int, int> counts;  // by ordinal: only successful queries are kept
  const std::lock_guard lock(mutex);
  if (const auto known = counts.find(ordinal); known != counts.end()) return known->second;
  int count = 0;
  RMGSORT_CUDA_TRY(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, ordinal));
  counts.emplace(ordinal, count);
  return count;
}

}  // namespace rmgsort
