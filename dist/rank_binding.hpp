// Whether mpirun left a host's CPUs idle: Open MPI binds each rank to one core by default where it
// starts 2 or fewer ranks (to a socket above), and a rank's threads (oneTBB: classification,
// staging, the CPU sort, the GPUs' host work) then share that core. 2 ranks of a 16-thread host
// sorted so on 2 threads: 30 M u64 keys on one rank of a 2-core machine took 2.86 s bound to a core,
// 1.21 s with --bind-to none.
#pragma once

#include "dist/communicator.hpp"

namespace rmgsort::dist {

// Collective. Rank 0 warns on standard error when a rank may run on at most half the CPUs its host's
// ranks share (its affinity's CPUs x the ranks on its host <= the host's online CPUs / 2), naming
// the rank and the mpirun options that bind otherwise.
void warn_of_narrow_binding(const Communicator& communicator);

}  // namespace rmgsort::dist
