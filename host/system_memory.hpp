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
// VmData; half the limit where /proc cannot say), less a stack for every hardware thread (the sort's
// workers) and kAddressSpaceReserve; nullopt when neither is set.
[[nodiscard]] std::optional<std::uint64_t> address_space_room();
// What the process maps beside the budget and the stacks: its other threads, a second malloc arena's
// 64 MiB reservation, io_uring rings, small allocations. Under `ulimit -v` at 8 MiB above what a
// 2-core run needed, 2026-12-01, runs failed to start a thread; 128 MiB keeps every run within.
inline constexpr std::uint64_t kAddressSpaceReserve = 128ull << 20;

// The --host-memory default: 75 % of physical_memory_bytes(), and of address_space_room() where
// `ulimit -v` or `ulimit -d` is set, as GNU sort sizes its buffer within those limits.
struct HostMemoryDefault {
  std::uint64_t bytes = 0;
  // What bounds it: "physical memory", "the control group's memory limit", "what `ulimit -v` and
  // `ulimit -d` leave".
  std::string bound;
};
// The default as the limits and the mapped address space say now.
[[nodiscard]] HostMemoryDefault measure_default_host_memory();
// The run's default: its first measurement, kept for the whole run. Measured again later, the
// address-space room would count the run's own buffers against it, and a plan, a merge and a
// message made at different moments would each see another default.
[[nodiscard]] const HostMemoryDefault& default_host_memory();
[[nodiscard]] std::uint64_t default_host_memory_bytes();

// How messages name the host memory limit: "--host-memory" when GIVEN, else "--host-memory's default
// (75 % of BOUND)", so that a limit too small for the run says where it came from.
[[nodiscard]] std::string host_memory_name(const std::optional<std::uint64_t>& given,
                                           const HostMemoryDefault& measured = default_host_memory());

}  // namespace rmgsort
