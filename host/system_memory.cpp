#include "host/system_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace rmgsort {
namespace {

// Lowers TIGHTEST to LIMIT when LIMIT is set and lower (or TIGHTEST is unset).
void tighten(std::optional<std::uint64_t>& tightest, std::optional<std::uint64_t> limit) {
  if (limit) tightest = std::min(tightest.value_or(*limit), *limit);
}

// A limit file's value: a number of bytes, or nullopt for "max", a missing or unreadable file.
std::optional<std::uint64_t> read_limit(const std::string& file) {
  std::ifstream in(file);
  std::string text;
  if (!(in >> text) || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return std::nullopt;  // beyond 64 bits: no limit that matters
  }
}

// The tightest FILE from group PATH of the hierarchy at ROOT up to ROOT itself. Groups the mount
// does not show (a container seeing its own group as the root) are skipped on the way up.
std::optional<std::uint64_t> tightest_on_the_way_up(const std::string& root, std::string path,
                                                    const std::string& file) {
  std::optional<std::uint64_t> tightest;
  while (true) {
    tighten(tightest, read_limit(root + path + (path.ends_with('/') ? "" : "/") + file));
    if (path.empty() || path == "/") return tightest;
    const std::size_t slash = path.find_last_of('/');
    path = slash == std::string::npos ? "/" : path.substr(0, slash == 0 ? 1 : slash);
  }
}

// Whether the comma-separated CONTROLLERS of a /proc/self/cgroup line name `memory`.
bool names_memory(std::string_view controllers) {
  std::stringstream list{std::string(controllers)};
  std::string controller;
  while (std::getline(list, controller, ','))
    if (controller == "memory") return true;
  return false;
}

// A /proc/self/status field in kB, as bytes.
std::optional<std::uint64_t> status_bytes(std::string_view field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (!line.starts_with(field) || line.size() <= field.size() || line[field.size()] != ':') continue;
    std::istringstream value(line.substr(field.size() + 1));
    std::uint64_t kilobytes = 0;
    if (value >> kilobytes) return kilobytes * 1024;
  }
  return std::nullopt;
}

// RESOURCE's soft limit less USED (what the process holds of it now: half the limit when unknown);
// nullopt when unlimited.
std::optional<std::uint64_t> room_under(int resource, std::optional<std::uint64_t> used) {
  rlimit limit{};
  if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  const std::uint64_t in_use = used.value_or(limit.rlim_cur / 2);
  return limit.rlim_cur > in_use ? limit.rlim_cur - in_use : 0;
}

// Physical memory as sysconf() reports it.
std::uint64_t installed_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  return (pages > 0 && page_size > 0) ? std::uint64_t(pages) * std::uint64_t(page_size) : 0;
}

// The limit of the process's control groups.
std::optional<std::uint64_t> own_cgroup_limit() {
  std::ifstream own_groups("/proc/self/cgroup");
  const std::string groups((std::istreambuf_iterator<char>(own_groups)), std::istreambuf_iterator<char>());
  return cgroup_memory_limit(groups, "/sys/fs/cgroup");
}

}  // namespace

std::optional<std::uint64_t> cgroup_memory_limit(std::string_view proc_self_cgroup, const std::string& mount) {
  std::optional<std::uint64_t> tightest;
  std::istringstream lines{std::string(proc_self_cgroup)};
  std::string line;
  while (std::getline(lines, line)) {
    // hierarchy-ID:controller-list:cgroup-path
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string_view controllers = std::string_view(line).substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (line.starts_with("0::")) {
      // v2 alone is mounted at MOUNT itself (it has cgroup.controllers there); beside v1, at unified/.
      const bool v2_alone = std::ifstream(mount + "/cgroup.controllers").good();
      tighten(tightest, tightest_on_the_way_up(v2_alone ? mount : mount + "/unified", path, "memory.max"));
    } else if (names_memory(controllers)) {
      tighten(tightest, tightest_on_the_way_up(mount + "/memory", path, "memory.limit_in_bytes"));
    }
  }
  return tightest;
}

std::uint64_t physical_memory_bytes() {
  const std::uint64_t installed = installed_memory_bytes();
  const std::optional<std::uint64_t> limit = own_cgroup_limit();
  return limit ? std::min(installed, *limit) : installed;
}

std::optional<std::uint64_t> address_space_room() {
  std::optional<std::uint64_t> room = room_under(RLIMIT_AS, status_bytes("VmSize"));
  tighten(room, room_under(RLIMIT_DATA, status_bytes("VmData")));
  if (!room) return std::nullopt;
  // Every worker thread maps a stack of RLIMIT_STACK's size (glibc's default for new threads).
  rlimit stack{};
  const std::uint64_t stack_bytes =
      getrlimit(RLIMIT_STACK, &stack) == 0 && stack.rlim_cur != RLIM_INFINITY ? stack.rlim_cur : 8ull << 20;
  const std::uint64_t beside = std::uint64_t(std::max(1u, std::thread::hardware_concurrency())) * stack_bytes +
                               kAddressSpaceReserve;
  return *room > beside ? *room - beside : 0;
}

HostMemoryDefault measure_default_host_memory() {
  const std::uint64_t installed = installed_memory_bytes();
  const std::optional<std::uint64_t> group_limit = own_cgroup_limit();
  HostMemoryDefault chosen{installed / 4 * 3, "physical memory"};
  if (group_limit && *group_limit < installed) chosen = {*group_limit / 4 * 3, "the control group's memory limit"};
  if (const auto room = address_space_room(); room && *room / 4 * 3 < chosen.bytes)
    chosen = {*room / 4 * 3, "what `ulimit -v` and `ulimit -d` leave"};
  return chosen;
}

const HostMemoryDefault& default_host_memory() {
  static const HostMemoryDefault first = measure_default_host_memory();
  return first;
}

std::uint64_t default_host_memory_bytes() { return default_host_memory().bytes; }

std::string host_memory_name(const std::optional<std::uint64_t>& given, const HostMemoryDefault& measured) {
  return given ? "--host-memory" : "--host-memory's default (75 % of " + measured.bound + ")";
}

}  // namespace rmgsort
