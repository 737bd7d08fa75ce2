// CUDA devices present on this machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rmgsort {

struct GpuInfo {
  int ordinal = 0;
  std::string name;
  std::uint64_t total_memory = 0;
  std::uint64_t free_memory = 0;
  std::string pci_bus_id;  // "0000:3B:00.0": where sysfs finds its NUMA node
};

// Number of CUDA devices; 0 where there is no driver or no device (the CPU then sorts). Any other
// CUDA failure is an Error.
[[nodiscard]] int cuda_device_count();

// Name, memory and PCI bus id of one device (creates its context).
[[nodiscard]] GpuInfo gpu_info(int ordinal);

// The device's streaming multiprocessors, which size the grids of memory-bound kernels. Queried once
// per device and cached: kernels ask on every launch. Thread-safe.
[[nodiscard]] int multiprocessor_count(int ordinal);

}  // namespace rmgsort
