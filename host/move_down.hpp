// Closing up records in place, from every thread: what a loop of std::memmove does when pieces of a
// buffer move down to one run (--unique keeping a round's first records, rounds closing up behind
// the rounds before), at the memory's speed rather than one core's.
//
// A piece's destination may cover sources still to be read: memmove in order is serial because
// each move may overwrite the piece before it. How far a byte moves (its shift) only grows along
// the run, as gaps close up. Where the shift is small (below 1 MiB), the run is cut into groups of
// equal bytes, one a task: everything a group's destination overwrites of another group's sources
// lies at or above that group's own destination end, so each group first copies aside its bytes
// there (at most the shift), then, once all have, every group moves the rest in order, as memmove
// would, and puts back what it copied aside. The copies aside take at most kMoveScratchBytes (fewer
// groups where they would take more). From where the shift reaches 1 MiB, the run moves in windows
// one after the other, each as long as the shift at its start: its destinations lie below all its
// sources, so each window copies from every thread at once.
#pragma once

#include <cstddef>
#include <span>

namespace rmgsort {

// The memory move_down() may take for the bytes it copies aside. 64 MiB: a shift of 1 MiB (128 Ki
// dropped 8-byte keys) still moves in 64 groups.
inline constexpr std::size_t kMoveScratchBytes = std::size_t{64} << 20;

// A range of bytes to move.
struct MovePiece {
  const std::byte* source = nullptr;
  std::size_t bytes = 0;
};

// Moves PIECES, in order, to one run from DESTINATION on, as a loop of std::memmove would. The
// pieces lie in one buffer in ascending order without overlap, and DESTINATION is at or below the
// first one's source (so every byte moves down: a compaction). Runs in the calling thread's task
// arena; throws std::bad_alloc, nothing moved, when its scratch cannot be had.
void move_down(std::byte* destination, std::span<const MovePiece> pieces);

}  // namespace rmgsort
