// The spill path: an input larger than --host-memory allows in memory, sorted through spill files in
// --temp-dir by spill_sort (sort/spill_sort.hpp) in rounds of the plan's size, each sorted by the
// plan's engine and written as it is sorted, checked on the way when --verify asks.
#pragma once

#include <string>

#include "io/host_buffer.hpp"
#include "io/input_sequence.hpp"
#include "sort/sort_plan.hpp"
#include "sort/sort_run.hpp"

namespace rmgsort {

// Sorts `input` (after `prefix`, a stream's bytes already read; empty for a regular input) as `plan`
// says (plan.path == spill), its spill files in temp_dir ("": $TMPDIR, else /tmp).
[[nodiscard]] SortOutcome sort_through_spill(SortPlan& plan, InputSequence& input, HostBuffer prefix,
                                             const std::string& temp_dir, const SortRun& run);

}  // namespace rmgsort
