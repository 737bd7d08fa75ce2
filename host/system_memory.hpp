// How much memory rmgsort may use, for the --host-memory default.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rmgsort {

// Physical memory in bytes as the kernel reports it now (on machines whose memory grows as it is
// touched, such as GPU hosts whose memory is a virtual machine's, this starts far below the real limit: pass
// --host-memory there), bounded by the memory limits of the process's control groups
// (cgroup_memory_limit(): a container's, a systemd unit's MemoryMax, a batch job's).
[[nodiscard]] std::uint64_t physical_memory_bytes();

// The tightest memory limit on the way from the process's control group to the root of its hierarchy:
// memory.max under cgroup v2, memory.limit_in_bytes under v1's memory controller. PROC_SELF_CGROUP is
// /proc/self/cgroup's text, MOUNT where the hierarchies are mounted (/sys/fs/cgroup: v2 there or
// under unified/, v1's memory controller under memory/). nullopt when no limit is set or readable.
// (Inside a container with its own cgroup namespace the process's group is "/", the container's.)
[[nodiscard]] std::optional<std::uint64_t> cgroup_memory_limit(std::string_view proc_self_cgroup,
                                                               const std::string& mount);

// What the address-space limits leave this process: the lower of `ulimit -v` (RLIMIT_AS) less the
// address space mapped now and RLIMIT_DATA less the data mapped now (/proc/self/status's VmSize and
// VmData), less a stack for every hardware thread (the sort's workers); nullopt when neither is set.
[[nodiscard]] std::optional<std::uint64_t> address_space_room();

// The --host-memory default: 75 % of physical_memory_bytes(), and of address_space_room() where
// `ulimit -v` or `ulimit -d` is set, as GNU sort sizes its buffer within those limits.
[[nodiscard]] std::uint64_t default_host_memory_bytes();

}  // namespace rmgsort
