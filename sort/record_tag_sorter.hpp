// The part of an engine's record sort that is the same on the CPU and the GPUs (host/record_tags.hpp):
// the tags, the two output buffers used in turn, and the input positions for --index-output. The
// engine brings the sort of the tags: u64 keys, ascending, on the CPU or the GPUs.
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "host/record_tags.hpp"
#include "io/host_buffer.hpp"
#include "report/stats.hpp"
#include "sort/sort_engine.hpp"

namespace rmgsort {

class RecordTagSorter {
 public:
  // Sorts records of LAYOUT (the engine's: with PositionSource::appended, the user's records with
  // their positions appended).
  RecordTagSorter(const RecordLayout& layout, PositionSource positions) : layout_(layout), positions_(positions) {}

  // Host memory beside the records for `keys` records: the tags.
  [[nodiscard]] std::uint64_t host_bytes(std::uint64_t keys) const;
  // One output buffer: the user's records and, when positions are wanted, theirs.
  [[nodiscard]] std::uint64_t output_bytes(std::uint64_t keys) const;

  // The tags of sorts of up to `keys` records.
  void allocate(std::uint64_t keys);
  [[nodiscard]] HostBuffer& tags() { return tags_; }

  // Sorts tags[0, count) as u64 keys, ascending; their low index_bits are their positions, already
  // ascending among equal prefixes (host/tag_sort.hpp uses that; a sort of u64 keys need not).
  using TagSort = std::function<void(std::uint64_t* tags, std::uint64_t count, int index_bits)>;

  // Sorts records[0, count) stably in `order` by tags that SORT_TAGS sorts, gathering them into
  // the next output buffer. Positions (PositionSource::sort_input) are the records' places in
  // records[0, count), left in the tags: valid until the next sort().
  SortedRound sort(const std::byte* records, std::uint64_t count, SortOrder order, const TagSort& sort_tags);

  // The seconds each step took, summed over every sort so far.
  struct StepSeconds {
    double build = 0, sort = 0, refine = 0, gather = 0;
  };
  [[nodiscard]] const StepSeconds& step_seconds() const { return seconds_; }
  // --stats "record_tags": step_seconds(), and how many sorts needed their ties refined.
  [[nodiscard]] Json stats() const;

 private:
  // Records in the order of the sorted tags, into the next output buffer, with their positions.
  SortedRound gather(const std::byte* records, std::uint64_t count, const TagPlan& plan);
  // The next of the two output buffers, allocated when first used.
  HostBuffer& next_output(std::uint64_t count);

  RecordLayout layout_;
  PositionSource positions_;
  std::uint64_t keys_ = 0;
  HostBuffer tags_;
  std::array<HostBuffer, 2> outputs_;
  int next_ = 0;
  StepSeconds seconds_;
  std::uint64_t sorts_ = 0, inexact_sorts_ = 0;
};

}  // namespace rmgsort
