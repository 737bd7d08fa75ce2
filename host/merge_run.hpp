// What the k-way merge (host/multiway_merge.hpp) reads and writes: sorted runs of records in
// memory, each record optionally carrying its position (its index in the concatenation of the
// merge's inputs, for --index-output), and the place the merged records go.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rmgsort {

// A run of `count` records, sorted (stably: the merge keeps their order among equal keys), whose
// first byte is `records` and which lie `stride` bytes apart. A record's position is the u64 (native
// byte order) right after its `record_size` bytes when the run carries positions (stride ==
// record_size + 8: a run merged before, whose records came from several inputs), else
// first_position plus its index in the run.
struct MergeRun {
  const std::byte* records = nullptr;
  std::uint64_t count = 0;
  std::size_t stride = 0;
  bool carries_positions = false;
  std::uint64_t first_position = 0;

  [[nodiscard]] const std::byte* record(std::uint64_t index) const { return records + index * stride; }
};

// Where merged records go: record j at records + j * stride. When stride is record_size + 8, each
// record's position follows it there (the layout of a run that carries positions); positions, when
// not null, receives position j at positions[j]. Either, both or neither.
struct MergeTarget {
  std::byte* records = nullptr;
  std::size_t stride = 0;
  std::uint64_t* positions = nullptr;
};

}  // namespace rmgsort
