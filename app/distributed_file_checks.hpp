// sort --distributed's checks of the files it reads and writes, made by every rank before anything
// is read or created (the ranks agree on the outcome: dist/rank_agreement.hpp), as one process's sort
// makes them (app/separate_outputs.hpp), and what --output-parts adds: the parts this run commits
// and those of an earlier run it removes must be neither an input nor the statistics.
#pragma once

#include "app/commands.hpp"
#include "dist/communicator.hpp"

namespace rmgsort {

// Throws rmgsort::Error naming the file and the clash: a name of a closed standard descriptor; an
// output of this rank (its parts with --output-parts; the statistics, written by rank 0, are
// checked by every rank, so that a part of any rank's that they are is seen) that is another output,
// an input (but -o, replaced by a rename once every rank is done reading) or standard error's
// regular file; with --output-parts, an input or the statistics named, or led to, by any part of
// -o or --index-output, of this run's ranks or an earlier run's.
void require_distributed_files_apart(const dist::Communicator& communicator, const SortOptions& options);

}  // namespace rmgsort
