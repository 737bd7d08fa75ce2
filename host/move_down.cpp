#include "host/move_down.hpp"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace rmgsort {
namespace {

// Below this many bytes a group is not worth a task of its own: 1 MiB moves in ~0.1 ms.
constexpr std::size_t kMinGroupBytes = std::size_t{1} << 20;
// Groups per thread, so that a thread slowed by its neighbours does not hold up the rest.
constexpr std::size_t kGroupsPerThread = 4;
// From this shift on, windows as long as the shift move one after the other (each from every
// thread) instead of groups copying aside: a group's copy aside is up to the shift, and 64 groups'
// 1 MiB each fill kMoveScratchBytes.
constexpr std::size_t kWindowBytes = std::size_t{1} << 20;
// A window's bytes go to the threads in chunks of this size.
constexpr std::size_t kWindowChunkBytes = std::size_t{64} << 10;

// The pieces as one sequence: byte x of it (its "offset") is byte x - offsets[i] of piece i.
class PieceSequence {
 public:
  explicit PieceSequence(std::span<const MovePiece> pieces) {
    for (const MovePiece& piece : pieces) {
      if (piece.bytes == 0) continue;
      pieces_.push_back(piece);
      offsets_.push_back(total_);
      total_ += piece.bytes;
    }
  }

  [[nodiscard]] std::size_t total() const { return total_; }

  // Where byte X (< total()) of the sequence lies now.
  [[nodiscard]] const std::byte* source(std::size_t x) const {
    const std::size_t i = piece_of(x);
    return pieces_[i].source + (x - offsets_[i]);
  }

  // Calls VISIT(source, offset, bytes) for the parts of the pieces that bytes [FROM, TO) of the
  // sequence lie in, in order.
  template <typename Visit>
  void for_each_part(std::size_t from, std::size_t to, Visit&& visit) const {
    if (from >= to) return;
    for (std::size_t i = piece_of(from); i < pieces_.size() && offsets_[i] < to; ++i) {
      const std::size_t begin = std::max(from, offsets_[i]);
      const std::size_t end = std::min(to, offsets_[i] + pieces_[i].bytes);
      visit(pieces_[i].source + (begin - offsets_[i]), begin, end - begin);
    }
  }

 private:
  [[nodiscard]] std::size_t piece_of(std::size_t x) const {
    return std::size_t(std::upper_bound(offsets_.begin(), offsets_.end(), x) - offsets_.begin()) - 1;
  }

  std::vector<MovePiece> pieces_;  // the non-empty ones
  std::vector<std::size_t> offsets_;
  std::size_t total_ = 0;
};

// How groups [START[g], START[g + 1]) of a stretch of the sequence move: group g copies aside its
// bytes from ASIDE[g] on, those whose source lies at or above its destination's end (where later
// groups write), into the scratch from SCRATCH_AT[g] on.
struct GroupPlan {
  std::vector<std::size_t> start, aside, scratch_at;
  [[nodiscard]] std::size_t groups() const { return start.size() - 1; }
  [[nodiscard]] std::size_t scratch_bytes() const { return scratch_at.back(); }
};

// The first byte of [FROM, TO) of SEQUENCE whose source lies at or above LIMIT (TO if none): sources
// rise with the offset.
std::size_t first_at_or_above(const PieceSequence& sequence, std::size_t from, std::size_t to, const std::byte* limit) {
  while (from < to) {
    const std::size_t mid = from + (to - from) / 2;
    if (sequence.source(mid) >= limit) to = mid; else from = mid + 1;
  }
  return from;
}

GroupPlan plan_groups(const PieceSequence& sequence, const std::byte* destination, std::size_t from, std::size_t to,
                      std::size_t groups) {
  GroupPlan plan;
  const std::size_t bytes = to - from;
  for (std::size_t g = 0; g <= groups; ++g)
    plan.start.push_back(from + bytes / groups * g + std::min(g, bytes % groups));
  plan.scratch_at.push_back(0);
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t end = plan.start[g + 1];
    plan.aside.push_back(first_at_or_above(sequence, plan.start[g], end, destination + end));
    plan.scratch_at.push_back(plan.scratch_at.back() + (end - plan.aside[g]));
  }
  return plan;
}

void move_serially(std::byte* destination, const PieceSequence& sequence, std::size_t from, std::size_t to) {
  sequence.for_each_part(from, to, [&](const std::byte* source, std::size_t offset, std::size_t bytes) {
    std::memmove(destination + offset, source, bytes);
  });
}

// Bytes [FROM, TO) of SEQUENCE, whose shifts are below kWindowBytes, in groups (see the header).
void move_in_groups(std::byte* destination, const PieceSequence& sequence, std::size_t from, std::size_t to,
                    std::size_t threads) {
  std::size_t groups = std::min(threads * kGroupsPerThread, (to - from) / kMinGroupBytes);
  GroupPlan plan;
  // Fewer groups copy less aside: a boundary's copy is at most the shift there.
  for (; groups >= 2; groups /= 2) {
    plan = plan_groups(sequence, destination, from, to, groups);
    if (plan.scratch_bytes() <= kMoveScratchBytes) break;
  }
  if (groups < 2) return move_serially(destination, sequence, from, to);
  const auto scratch = std::make_unique_for_overwrite<std::byte[]>(plan.scratch_bytes());
  // Every group's bytes that later groups' destinations cover, aside before anything moves.
  tbb::parallel_for(std::size_t{0}, plan.groups(), [&](std::size_t g) {
    std::byte* aside = scratch.get() + plan.scratch_at[g];
    const auto copy_aside = [&](const std::byte* source, std::size_t, std::size_t bytes) {
      std::memcpy(aside, source, bytes);
      aside += bytes;
    };
    sequence.for_each_part(plan.aside[g], plan.start[g + 1], copy_aside);
  });
  // Each group's sources below its destination's end are read only by it, and written only by it
  // (earlier groups write below its destination, at or below its first source).
  tbb::parallel_for(std::size_t{0}, plan.groups(), [&](std::size_t g) {
    move_serially(destination, sequence, plan.start[g], plan.aside[g]);
    std::memcpy(destination + plan.aside[g], scratch.get() + plan.scratch_at[g], plan.start[g + 1] - plan.aside[g]);
  });
}

// Bytes [FROM, TO) of SEQUENCE, whose shifts are at least kWindowBytes, in windows one after the
// other: a window as long as the shift at its start has its destinations below all its sources, so
// its bytes copy from every thread at once (memcpy: no overlap), over sources the windows before
// have read. The shift only grows, and the windows with it.
void move_in_windows(std::byte* destination, const PieceSequence& sequence, std::size_t from, std::size_t to) {
  while (from < to) {
    const std::size_t shift = std::size_t(sequence.source(from) - (destination + from));
    const std::size_t end = std::min(to, from + shift);
    const std::size_t chunks = (end - from + kWindowChunkBytes - 1) / kWindowChunkBytes;
    tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t c) {
      const std::size_t begin = from + c * kWindowChunkBytes;
      sequence.for_each_part(begin, std::min(end, begin + kWindowChunkBytes),
                             [&](const std::byte* source, std::size_t offset, std::size_t bytes) {
                               std::memcpy(destination + offset, source, bytes);
                             });
    });
    from = end;
  }
}

}  // namespace

void move_down(std::byte* destination, std::span<const MovePiece> pieces) {
  const PieceSequence sequence(pieces);
  const std::size_t total = sequence.total();
  const std::size_t threads = std::size_t(std::max(1, tbb::this_task_arena::max_concurrency()));
  if (threads == 1 || total < 2 * kMinGroupBytes) return move_serially(destination, sequence, 0, total);
  // The shift (how far a byte moves) grows along the sequence, as gaps are closed up. Where it is
  // small, groups copy aside what the next overwrite; from where it reaches kWindowBytes, windows.
  // The groups go first: the windows' destinations cover their last sources.
  std::size_t split = 0, high = total;
  while (split < high) {
    const std::size_t mid = split + (high - split) / 2;
    if (std::size_t(sequence.source(mid) - (destination + mid)) >= kWindowBytes) high = mid; else split = mid + 1;
  }
  move_in_groups(destination, sequence, 0, split, threads);
  move_in_windows(destination, sequence, split, total);
}

}  // namespace rmgsort
