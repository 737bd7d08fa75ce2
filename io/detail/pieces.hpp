// Work split into pieces that threads take one at a time, the next free piece each (the reads into an
// output's pages, the mapped writer's pieces, the population of a host buffer), so that a thread that
// finds its pieces quick takes more of the others'.
#pragma once

#include <cstdint>
#include <functional>

namespace rmgsort {

// Runs WORK(i) for every i in [0, pieces) on the calling thread and up to THREADS - 1 helpers (fewer
// when a helper cannot be started: the work is the same). The first exception WORK throws stops every
// thread before its next piece and is thrown here once all have stopped.
void for_each_piece(std::uint64_t pieces, unsigned threads, const std::function<void(std::uint64_t piece)>& work);

}  // namespace rmgsort
