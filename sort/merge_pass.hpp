// One pass of rmgsort merge: the windows of its sources (in input order) merged into a sink, round
// by round. A round refills the windows that have room (in parallel; each read runs ahead while the
// merge works), takes the mergeable prefix of every window (host/merge_prefix.hpp: at least one
// whole window), cuts it into parts by splitters (host/multiway_merge.hpp) and merges batches of
// parts, every part of a batch on its own thread, into one of two output buffers, which the sink
// writes while the next batch is merged into the other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "host/merge_run.hpp"
#include "io/host_buffer.hpp"
#include "sort/merge_window.hpp"

namespace rmgsort {

// Where a pass's merged records go, batch by batch, in order.
class MergeSink {
 public:
  virtual ~MergeSink() = default;
  // RECORDS: the batch's records, as the pass was told to lay them out (MergePassSpec); POSITIONS:
  // theirs, or empty. Both stay unchanged until the next append() returns: it returns once the
  // append before it is written.
  virtual void append(std::span<const std::byte> records, std::span<const std::uint64_t> positions) = 0;
};

struct MergePassSpec {
  RecordLayout layout;                    // the user's records
  SortOrder order = SortOrder::ascending;
  std::size_t out_stride = 0;             // layout's size, or 8 more to write each record's position after it
  bool positions = false;                 // hand the sink the positions apart too
  std::uint64_t output_buffer_bytes = 0;  // each of the two, positions included
  std::size_t threads = 1;
};

// The two output buffers of a pass, used in turn: records (out_stride apart) and, apart, their
// positions. They outlive the sink's last append: the caller finishes the sink before they go.
class MergeOutputBuffers {
 public:
  explicit MergeOutputBuffers(const MergePassSpec& spec);

  // Records one buffer holds.
  [[nodiscard]] std::uint64_t capacity() const { return capacity_; }
  // The buffer after the one handed out last, holding at least RECORDS records (more than the
  // capacity only for a part that exceeds it, which the splitters' bound makes rare).
  [[nodiscard]] MergeTarget next(std::uint64_t records);

 private:
  struct Pair {
    HostBuffer records, positions;
  };
  MergePassSpec spec_;
  std::uint64_t capacity_;
  Pair pairs_[2];
  int turn_ = 1;
};

// Merges WINDOWS (the pass's sources, in input order; none refilled yet) into SINK through BUFFERS
// (made for SPEC); returns the records merged. The sink's last append may still be in flight: finish
// it before BUFFERS go. Throws what a window's refill throws (MergeDisorder, rmgsort::Error): that of
// the earliest input when several fail in one round.
std::uint64_t run_merge_pass(const MergePassSpec& spec, std::span<const std::unique_ptr<MergeWindow>> windows,
                             MergeOutputBuffers& buffers, MergeSink& sink);

}  // namespace rmgsort
