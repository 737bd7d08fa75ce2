// Moves every record to the rank that sorts it: each rank's slice, classified in input order
// (dist/classified_slice.hpp), is sent in bounded rounds through an Exchange (dist/exchange.hpp), and
// each rank receives its share in sender-rank order, every sender's records in their input order:
// the share is then in global input order, so a stable local sort of it gives the global sorted
// order.
//
// Memory besides the slice, its destinations and the share: two staging buffers of at most
// staging_bytes each (the sender's records bucketed by destination, a slot of `slot` records per
// rank; the round received, by sender, the same), so no buffer of a whole share exists but the
// receiving share itself. A round ends when the next record's slot is full; every count of a round
// is a slot at most, so no count or offset exceeds what MPI's ints take. A share in memory takes
// this rank's own records at once, copied there block by block on every thread as they are staged
// (they use no slot); a share in a file receives them through the exchange as any other.
//
// Staging reads the blocks' counts of the classified slice: the blocks whose records fit their
// slots whole are placed by a scan of those counts and copied in parallel, the first that does not
// record by record until a slot is full.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/key_order.hpp"
#include "core/record_layout.hpp"
#include "dist/classified_slice.hpp"
#include "dist/communicator.hpp"
#include "dist/destinations.hpp"
#include "dist/exchange.hpp"
#include "dist/slice_reader.hpp"

namespace rmgsort::dist {

struct ShareSlice {
  std::uint64_t first_position = 0;    // the global input position of its first record
  RecordLayout layout;
  SortOrder order = SortOrder::ascending;
  // Each record travels with its global input position appended (u64 little-endian: the layout's
  // with_position(), for --index-output).
  bool append_position = false;

  [[nodiscard]] std::size_t wire_bytes() const { return layout.record_size + (append_position ? 8 : 0); }
};

struct ShareCounts {
  std::vector<std::uint64_t> sends;     // records this rank sends to each rank
  std::vector<std::uint64_t> receives;  // records this rank receives from each rank
  [[nodiscard]] std::uint64_t received() const;
  double seconds = 0;  // classifying (a kept slice's only pass) and counting
};

struct ExchangeReport {
  std::uint64_t sent_bytes = 0;      // to other ranks (not counting its own records)
  std::uint64_t received_bytes = 0;  // from other ranks
  std::uint64_t rounds = 0;
  double seconds = 0;
};

// Collective: each record's destination counted (a pass over the slice, which classifies it; a kept
// slice keeps its destinations for the exchange) and the counts exchanged (MPI_Alltoall).
[[nodiscard]] ShareCounts count_shares(const Communicator& communicator, ClassifiedSlice& slice);

// The staging buffers' bound (each): 32 MiB. Not measured on a cluster: a round's fixed cost (an
// MPI_Alltoall of counts, an allreduce, tens of microseconds) is under 1 % of moving 32 MiB over a
// 100 Gb/s link (2.7 ms), and two of them are small beside any share worth distributing.
inline constexpr std::size_t kDefaultStagingBytes = std::size_t{32} << 20;

// Where a share in a file goes: BYTES of DATA at byte OFFSET of the share (counts.received()
// records of slice.wire_bytes()); called from several threads at once, for ranges that do not overlap.
using ShareSink = std::function<void(std::uint64_t offset, const std::byte* data, std::size_t bytes)>;

// The share: in memory (counts.received() x wire_bytes() bytes at MEMORY), else through SINK.
struct ShareTarget {
  std::byte* memory = nullptr;
  ShareSink sink;
};

// Collective: sends the records of CLASSES (SLICE's, after count_shares() over it) and receives this
// rank's share into TARGET. Throws rmgsort::Error when one record with its position exceeds what a
// round may carry to every rank.
ExchangeReport exchange_shares(const Communicator& communicator, Exchange& exchange, ClassifiedSlice& classes,
                               const ShareSlice& slice, const ShareCounts& counts, const ShareTarget& target,
                               std::size_t staging_bytes = kDefaultStagingBytes);

}  // namespace rmgsort::dist
