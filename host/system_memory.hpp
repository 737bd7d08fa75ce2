// How much memory the machine has, for the --host-memory default.
#pragma once

#include <cstdint>

namespace rmgsort {

// Physical memory in bytes as the kernel reports it now (on machines whose memory grows as it is
// touched, such as GPU hosts whose memory is a virtual machine's, this starts far below the real limit: pass
// --host-memory there). Also bounded by a cgroup v2 memory.max, when one is set.
[[nodiscard]] std::uint64_t physical_memory_bytes();

// The --host-memory default: 75 % of physical_memory_bytes().
[[nodiscard]] std::uint64_t default_host_memory_bytes();

}  // namespace rmgsort
