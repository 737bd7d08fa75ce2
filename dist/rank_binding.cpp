#include "dist/rank_binding.hpp"

#include <sched.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace rmgsort::dist {

void warn_of_narrow_binding(const Communicator& communicator) {
  char host[256] = {};
  (void)gethostname(host, sizeof host - 1);
  cpu_set_t set;
  CPU_ZERO(&set);
  const std::uint64_t cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? std::uint64_t(CPU_COUNT(&set)) : 0;
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  const std::uint64_t mine[] = {std::hash<std::string>{}(host), cpus, online > 0 ? std::uint64_t(online) : 0};
  const std::vector<std::uint64_t> all = communicator.all_gather(mine);
  if (communicator.rank() != 0) return;
  const std::size_t ranks = std::size_t(communicator.size());
  for (std::size_t r = 0; r < ranks; ++r) {
    const std::uint64_t* rank = all.data() + 3 * r;
    std::uint64_t on_host = 0;
    for (std::size_t other = 0; other < ranks; ++other) on_host += all[3 * other] == rank[0] ? 1 : 0;
    if (rank[1] == 0 || rank[1] * on_host * 2 > rank[2]) continue;
    std::fprintf(stderr,
                 "rmgsort: warning: rank %zu may run on %llu of its host's %llu CPUs (%llu rank(s) there): mpirun bound "
                 "it (Open MPI binds each rank to one core where it starts 2 or fewer); give mpirun --bind-to none, "
                 "or --map-by ppr:1:numa:PE=N to give each rank N cores\n",
                 r, static_cast<unsigned long long>(rank[1]), static_cast<unsigned long long>(rank[2]),
                 static_cast<unsigned long long>(on_host));
    return;  // (the first such rank: the others were most likely bound alike)
  }
}

}  // namespace rmgsort::dist
