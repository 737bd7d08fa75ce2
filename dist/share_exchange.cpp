#include "dist/share_exchange.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#include <tbb/parallel_for.h>

#include "core/error.hpp"
#include "dist/record_copy.hpp"
#include "report/stopwatch.hpp"

namespace rmgsort::dist {

std::uint64_t ShareCounts::received() const {
  std::uint64_t total = 0;
  for (std::uint64_t count : receives) total += count;
  return total;
}

namespace {

// Received bytes go into the share in pieces of this size, on every thread (a sender's part of a
// round is up to the whole staging buffer, and there may be fewer senders than threads).
constexpr std::size_t kDeliverPieceBytes = std::size_t{1} << 22;

// The sending side of the rounds: a round's send buffer, a slot of `slot` records for each rank,
// filled in input order; and this rank's own records, placed at once when the share is in memory.
struct Staging {
  std::byte* buffer;
  std::size_t slot;                 // records
  std::size_t wire;                 // bytes a record
  std::vector<std::uint64_t> fill;  // records in each slot
  std::size_t me;
  std::byte* own;                   // the share in memory, or nullptr: own records staged as any
  std::uint64_t own_next;           // the share's record where the next own record goes
  std::uint64_t first_position;     // the global input position of the slice's first record

  [[nodiscard]] bool direct(std::size_t rank) const { return rank == me && own != nullptr; }
};

// Stages records [from, end) of WINDOW record by record until a record's slot is full; returns the
// first record not staged.
template <class D, class Copy>
std::uint64_t stage_records(const Copy& copy, const ClassifiedWindow& window, std::size_t record_size,
                            std::uint64_t from, std::uint64_t end, Staging& staging) {
  const D* destinations = window.destinations_as<D>();
  std::uint64_t i = from;
  for (; i < end; ++i) {
    const std::size_t rank = destinations[i];
    std::byte* out = nullptr;
    if (staging.direct(rank)) {
      out = staging.own + staging.own_next++ * staging.wire;
    } else {
      if (staging.fill[rank] == staging.slot) break;
      out = staging.buffer + (rank * staging.slot + staging.fill[rank]++) * staging.wire;
    }
    copy(out, window.records + i * record_size, staging.first_position + window.first + i);
  }
  return i;
}

// Stages records [from, window end) of WINDOW into STAGING, in input order, until a record's slot
// is full; returns the first record not staged. The blocks that fit whole are placed by their
// counts (an exclusive scan over them) and copied in parallel.
template <class D, class Copy>
std::uint64_t stage(const Copy& copy, const ClassifiedWindow& window, std::size_t record_size, std::uint64_t from,
                    Staging& staging) {
  const std::size_t ranks = staging.fill.size();
  const auto block_end = [&](std::size_t b) { return std::min(window.count, (b + 1) * kClassifyBlockRecords); };
  if (from % kClassifyBlockRecords != 0) {  // the rest of a block a full slot cut in the last round
    const std::uint64_t end = block_end(std::size_t(from / kClassifyBlockRecords));
    from = stage_records<D>(copy, window, record_size, from, end, staging);
    if (from < end || from == window.count) return from;
  }
  const std::size_t first = std::size_t(from / kClassifyBlockRecords), blocks = window.blocks();
  // outs[(b - first) x ranks + r]: where block b's first record for rank r goes.
  std::vector<std::byte*> outs;
  std::size_t whole = first;
  for (; whole < blocks; ++whole) {
    const std::uint32_t* counts = window.block_counts + whole * ranks;
    bool fits = true;
    for (std::size_t r = 0; r < ranks && fits; ++r)
      fits = staging.direct(r) || staging.fill[r] + counts[r] <= staging.slot;
    if (!fits) break;
    for (std::size_t r = 0; r < ranks; ++r) {
      if (staging.direct(r)) {
        outs.push_back(staging.own + staging.own_next * staging.wire);
        staging.own_next += counts[r];
      } else {
        outs.push_back(staging.buffer + (r * staging.slot + staging.fill[r]) * staging.wire);
        staging.fill[r] += counts[r];
      }
    }
  }
  const D* destinations = window.destinations_as<D>();
  tbb::parallel_for(first, whole, [&](std::size_t b) {
    std::vector<std::byte*> out(outs.begin() + std::ptrdiff_t((b - first) * ranks),
                                outs.begin() + std::ptrdiff_t((b - first + 1) * ranks));
    const std::size_t wire = staging.wire;
    const std::uint64_t position = staging.first_position + window.first;
    for (std::uint64_t i = b * kClassifyBlockRecords; i < block_end(b); ++i) {
      std::byte*& to = out[destinations[i]];
      copy(to, window.records + i * record_size, position + i);
      to += wire;
    }
  });
  if (whole == blocks) return window.count;
  return stage_records<D>(copy, window, record_size, whole * kClassifyBlockRecords, block_end(whole), staging);
}

// A round's received records into the share: sender s's RECEIVES[s] at its PLACE[s] (records).
void deliver(const std::byte* recv, const std::vector<ByteRange>& receives, const std::vector<std::uint64_t>& place,
             std::size_t wire, const ShareTarget& target) {
  struct Piece {
    std::uint64_t at;
    const std::byte* data;
    std::size_t bytes;
  };
  std::vector<Piece> pieces;
  for (std::size_t s = 0; s < receives.size(); ++s)
    for (std::size_t done = 0; done < receives[s].bytes; done += kDeliverPieceBytes)
      pieces.push_back(Piece{place[s] * wire + done, recv + receives[s].offset + done,
                             std::min(kDeliverPieceBytes, receives[s].bytes - done)});
  tbb::parallel_for(std::size_t{0}, pieces.size(), [&](std::size_t p) {
    const Piece& piece = pieces[p];
    if (target.memory != nullptr) {
      std::memcpy(target.memory + piece.at, piece.data, piece.bytes);
    } else {
      target.sink(piece.at, piece.data, piece.bytes);
    }
  });
}

}  // namespace

ShareCounts count_shares(const Communicator& communicator, ClassifiedSlice& slice) {
  Stopwatch watch;
  ShareCounts counts;
  const std::size_t ranks = std::size_t(communicator.size());
  counts.sends.assign(ranks, 0);
  slice.rewind();
  while (slice.next()) {
    const ClassifiedWindow& window = slice.window();
    for (std::size_t b = 0; b < window.blocks(); ++b)
      for (std::size_t r = 0; r < ranks; ++r) counts.sends[r] += window.block_counts[b * ranks + r];
  }
  counts.receives = communicator.all_to_all(counts.sends);
  counts.seconds = watch.seconds();
  return counts;
}

ExchangeReport exchange_shares(const Communicator& communicator, Exchange& exchange, ClassifiedSlice& classes,
                               const ShareSlice& slice, const ShareCounts& counts, const ShareTarget& target,
                               std::size_t staging_bytes) {
  Stopwatch watch;
  const std::size_t ranks = std::size_t(communicator.size());
  const std::size_t me = std::size_t(communicator.rank());
  const std::size_t wire = slice.wire_bytes();
  const std::size_t bound = std::min(staging_bytes, Exchange::kMaxRoundBytes);
  if (wire * ranks > Exchange::kMaxRoundBytes)
    throw Error("--distributed: records of " + std::to_string(wire) + " bytes cannot be exchanged between " +
                std::to_string(ranks) + " ranks (a round carries at most " + std::to_string(Exchange::kMaxRoundBytes) +
                " bytes)");
  const std::size_t slot = std::max<std::size_t>(1, bound / (ranks * wire));  // records per rank a round
  const std::size_t slot_bytes = slot * wire;
  const RoundBuffers buffers = exchange.round_buffers(ranks * slot_bytes);
  // Where each sender's records start in the share: by sender rank.
  std::vector<std::uint64_t> place(ranks, 0);
  for (std::size_t s = 1; s < ranks; ++s) place[s] = place[s - 1] + counts.receives[s - 1];
  ExchangeReport report;
  Staging staging{buffers.send, slot, wire, std::vector<std::uint64_t>(ranks), me, target.memory, place[me],
                  slice.first_position};
  std::vector<ByteRange> sends(ranks), receives(ranks);
  classes.rewind();
  bool more = classes.next();
  std::uint64_t from = 0;  // the next record of the window to stage
  for (;;) {
    std::fill(staging.fill.begin(), staging.fill.end(), 0);
    while (more) {
      from = visit_destination_width(classes.width(), [&]<class D>(D) {
        return visit_record_copy(slice.layout.record_size, slice.append_position, [&](const auto& copy) {
          return stage<D>(copy, classes.window(), slice.layout.record_size, from, staging);
        });
      });
      if (from < classes.window().count) break;  // a slot is full
      more = classes.next();
      from = 0;
    }
    const std::vector<std::uint64_t> incoming = communicator.all_to_all(staging.fill);
    for (std::size_t r = 0; r < ranks; ++r) {
      sends[r] = ByteRange{r * slot_bytes, std::size_t(staging.fill[r]) * wire};
      receives[r] = ByteRange{r * slot_bytes, std::size_t(incoming[r]) * wire};
      if (r != me) {
        report.sent_bytes += sends[r].bytes;
        report.received_bytes += receives[r].bytes;
      }
    }
    exchange.exchange(buffers.send, sends, buffers.recv, receives);
    deliver(buffers.recv, receives, place, wire, target);
    for (std::size_t s = 0; s < ranks; ++s) place[s] += incoming[s];
    ++report.rounds;
    if (communicator.all_min(more ? 0 : 1) == 1) break;
  }
  report.seconds = watch.seconds();
  return report;
}

}  // namespace rmgsort::dist
