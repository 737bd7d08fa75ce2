// sort --distributed, a share larger than its rank's memory allows in one piece: its records are
// received into a file with no name (O_TMPFILE) in --temp-dir, then sorted from there by today's
// file path, planned from the file's size (sort/sort_plan.hpp: in memory, in rounds on the GPUs, or
// through spill files), and written at the rank's offset of the output. The rank reads its slice of
// the input a window at a time meanwhile (dist/slice_reader.hpp), so it never holds the slice or
// the share whole. (--unique, --index-output and --verify need the share in memory: refused.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "app/distributed_report.hpp"
#include "app/distributed_sort_steps.hpp"
#include "dist/communicator.hpp"
#include "report/stats.hpp"
#include "core/record_layout.hpp"
#include "dist/share_exchange.hpp"
#include "io/temp_dir.hpp"
#include "io/unique_fd.hpp"
#include "sort/sort_plan.hpp"
#include "sort/sort_run.hpp"

namespace rmgsort {

class ShareFile {
 public:
  // An anonymous file in TEMP_DIR ("": $TMPDIR, else /tmp); Error naming the directory.
  [[nodiscard]] static ShareFile create(const std::string& temp_dir);

  // Where the exchange delivers the share (pwrite at its offsets).
  [[nodiscard]] dist::ShareSink sink() const;

  // Sorts the RECORDS records of LAYOUT the file holds as OPTIONS say (--gpus, --host-memory,
  // --temp-dir, the order) and writes them to OUTPUT_FD at byte OFFSET; PLAN and GPUS receive the
  // plan made (for --stats). The output must already be as long as it will be (a shared output is
  // sized before any rank writes, so that no writer's end of file cuts another rank's records).
  [[nodiscard]] SortOutcome sort_into(const SortOptions& options, const RecordLayout& layout, std::uint64_t records,
                                      int output_fd, const std::string& output_name, std::uint64_t offset,
                                      std::optional<SortPlan>& plan, std::vector<int>& gpus);

 private:
  TempDir directory_;
  UniqueFd fd_;
};

// Collective: the share in SHARE sorted and written at this rank's offset (into an output sized to its
// end first, so that no writer's end of file cuts another rank's records), then finish(). Returns
// kExitOk.
int sort_share_file(const dist::Communicator& communicator, const SortOptions& options, const JobInput& job,
                    ShareFile& share, DistributedReport& report, std::optional<StatsOutput>& stats);

}  // namespace rmgsort
