#include "host/system_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace rmgsort {

std::uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  std::uint64_t bytes = (pages > 0 && page_size > 0) ? std::uint64_t(pages) * std::uint64_t(page_size) : 0;
  std::ifstream cgroup_limit("/sys/fs/cgroup/memory.max");
  std::string limit;
  if (cgroup_limit >> limit && limit != "max") {
    try {
      bytes = std::min<std::uint64_t>(bytes, std::stoull(limit));
    } catch (const std::exception&) {
      // An unreadable limit leaves the physical size in force.
    }
  }
  return bytes;
}

std::uint64_t default_host_memory_bytes() { return physical_memory_bytes() / 4 * 3; }

}  // namespace rmgsort
