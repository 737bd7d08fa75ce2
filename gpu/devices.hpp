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

// What `rmgsort --version` reports of CUDA. Versions are CUDA's 1000 x major + 10 x minor (13000: 13.0).
struct CudaSummary {
  bool built_with_cuda = false;
  std::string architectures;  // CMAKE_CUDA_ARCHITECTURES of the build, space-separated: "80-real ... 120"
  int runtime_version = 0;    // the CUDA runtime linked into rmgsort (statically: the one built with)
  int driver_version = 0;     // the newest CUDA the installed driver supports; 0: no driver
  bool driver_too_old = false;  // the driver is older than the runtime needs: no GPU can be used
  struct Gpu {
    int ordinal = 0;
    std::string name;
    std::uint64_t total_memory = 0;
    int major = 0, minor = 0;  // compute capability
  };
  std::vector<Gpu> gpus;
};

// The runtime, the driver and every GPU's properties (nothing is allocated or launched). No driver, a
// driver too old for the runtime and no GPU are answers (built_with_cuda is false in a build without CUDA); any
// other CUDA failure is an Error.
[[nodiscard]] CudaSummary cuda_summary();

// The device's streaming multiprocessors, which size the grids of memory-bound kernels. Queried once
// per device and cached: kernels ask on every launch. Thread-safe.
[[nodiscard]] int multiprocessor_count(int ordinal);

}  // namespace rmgsort
