// sort --distributed, a share in memory: sorted at once by the engine its plan chose, checked across
// ranks (--verify: each share in order after the previous rank's last key, every rank's records
// together a permutation of the input), its runs of equal keys continued across ranks (--unique:
// each rank's last key, MPI_Allgather, so that ranks without records are passed over), and written
// at the offsets of the records kept (an exclusive sum of every rank's count).
#pragma once

#include <optional>

#include "app/commands.hpp"
#include "app/distributed_report.hpp"
#include "app/distributed_sort_steps.hpp"
#include "dist/communicator.hpp"
#include "host/checksum.hpp"
#include "io/host_buffer.hpp"
#include "report/stats.hpp"

namespace rmgsort {

// Collective. SHARE: this rank's job.count records (with their global positions for --index-output),
// in global input order; SLICE_CHECKSUM: its slice's (--verify). Returns kExitOk, or
// kExitCheckFailed with report.verify_failure set on every rank.
int sort_share_in_memory(const dist::Communicator& communicator, const SortOptions& options, const JobInput& job,
                         HostBuffer& share, const KeyChecksum& slice_checksum, DistributedReport& report,
                         std::optional<StatsOutput>& stats);

}  // namespace rmgsort
