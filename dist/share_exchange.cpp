#include "dist/share_exchange.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#include <tbb/parallel_for.h>

#include "core/error.hpp"
#include "core/record_rank.hpp"
#include "dist/parallel_destinations.hpp"
#include "dist/rank_key.hpp"
#include "report/stopwatch.hpp"

namespace rmgsort::dist {

std::uint64_t ShareCounts::received() const {
  std::uint64_t total = 0;
  for (std::uint64_t count : receives) total += count;
  return total;
}

namespace {

// Records a thread stages at once.
constexpr std::uint64_t kBlockRecords = std::uint64_t{1} << 16;

// The slice's records and their destinations, a window at a time, in input order.
class DestinationWindows {
 public:
  DestinationWindows(Destinations destinations, const ShareSlice& slice)
      : classifier_(std::move(destinations)), slice_(slice),
        destinations_(std::size_t(std::min(slice.reader->window_records(), slice.reader->count()))) {}

  // Reads and classifies the next window; false when the slice is done.
  bool next() {
    first_ += count_;
    count_ = std::min(slice_.reader->window_records(), slice_.reader->count() - first_);
    if (count_ == 0) return false;
    records_ = slice_.reader->records(first_, count_);
    classify_records(classifier_, records_, count_, slice_.layout, slice_.order, destinations_.data());
    return true;
  }
  [[nodiscard]] std::uint64_t first() const { return first_; }  // the window's first record in the slice
  [[nodiscard]] std::uint64_t count() const { return count_; }
  [[nodiscard]] const std::byte* records() const { return records_; }
  [[nodiscard]] const std::uint32_t* destinations() const { return destinations_.data(); }

 private:
  Destinations classifier_;
  const ShareSlice& slice_;
  std::vector<std::uint32_t> destinations_;
  const std::byte* records_ = nullptr;
  std::uint64_t first_ = 0, count_ = 0;
};

// A round's send buffer: a slot of `slot` records for each rank, filled in input order.
struct Staging {
  std::byte* buffer;
  std::size_t slot;   // records
  std::size_t wire;   // bytes a record
  std::vector<std::uint64_t> fill;  // records in each slot

  // Record i of WINDOW into RANK's slot at PLACE.
  void put(const ShareSlice& slice, const DestinationWindows& window, std::uint64_t i, std::uint32_t rank,
           std::uint64_t place) {
    std::byte* out = buffer + (std::size_t(rank) * slot + place) * wire;
    std::memcpy(out, window.records() + i * slice.layout.record_size, slice.layout.record_size);
    if (slice.append_position) {
      const std::uint64_t position = slice.first_position + window.first() + i;
      std::memcpy(out + slice.layout.record_size, &position, 8);
    }
  }
};

// Stages records [from, window end) of WINDOW into STAGING, in input order, until a record's slot
// is full; returns the records staged. Blocks that fit whole are copied in parallel, each to the
// places an exclusive scan of the blocks' counts gives it.
std::uint64_t stage(const ShareSlice& slice, const DestinationWindows& window, std::uint64_t from, Staging& staging) {
  const std::size_t ranks = staging.fill.size();
  const std::uint32_t* destinations = window.destinations();
  const std::uint64_t end = window.count();
  const std::size_t blocks = std::size_t((end - from + kBlockRecords - 1) / kBlockRecords);
  const auto block_first = [&](std::size_t b) { return from + b * kBlockRecords; };
  const auto block_end = [&](std::size_t b) { return std::min(end, from + (b + 1) * kBlockRecords); };
  std::vector<std::uint64_t> counts(blocks * ranks);
  tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t b) {
    for (std::uint64_t i = block_first(b); i < block_end(b); ++i) ++counts[b * ranks + destinations[i]];
  });
  // places[b]: where block b's records of each rank go; the first block that does not fit whole
  // ends the parallel part.
  std::vector<std::uint64_t> places(blocks * ranks);
  std::size_t whole = 0;
  for (; whole < blocks; ++whole) {
    bool fits = true;
    for (std::size_t r = 0; r < ranks && fits; ++r) fits = staging.fill[r] + counts[whole * ranks + r] <= staging.slot;
    if (!fits) break;
    for (std::size_t r = 0; r < ranks; ++r) {
      places[whole * ranks + r] = staging.fill[r];
      staging.fill[r] += counts[whole * ranks + r];
    }
  }
  tbb::parallel_for(std::size_t{0}, whole, [&](std::size_t b) {
    std::uint64_t* place = places.data() + b * ranks;
    for (std::uint64_t i = block_first(b); i < block_end(b); ++i)
      staging.put(slice, window, i, destinations[i], place[destinations[i]]++);
  });
  if (whole == blocks) return end - from;
  std::uint64_t i = block_first(whole);
  for (; i < block_end(whole) && staging.fill[destinations[i]] < staging.slot; ++i)
    staging.put(slice, window, i, destinations[i], staging.fill[destinations[i]]++);
  return i - from;
}

}  // namespace

ShareCounts count_shares(const Communicator& communicator, Destinations destinations, const ShareSlice& slice) {
  ShareCounts counts;
  counts.sends.assign(std::size_t(communicator.size()), 0);
  DestinationWindows windows(std::move(destinations), slice);
  while (windows.next())
    for (std::uint64_t i = 0; i < windows.count(); ++i) ++counts.sends[windows.destinations()[i]];
  counts.receives = communicator.all_to_all(counts.sends);
  return counts;
}

ExchangeReport exchange_shares(const Communicator& communicator, Exchange& exchange, Destinations destinations,
                               const ShareSlice& slice, const ShareCounts& counts, const ShareSink& sink,
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
  const auto send = std::make_unique_for_overwrite<std::byte[]>(ranks * slot_bytes);
  const auto recv = std::make_unique_for_overwrite<std::byte[]>(ranks * slot_bytes);
  // Where each sender's records start in the share: by sender rank.
  std::vector<std::uint64_t> place(ranks, 0);
  for (std::size_t s = 1; s < ranks; ++s) place[s] = place[s - 1] + counts.receives[s - 1];
  ExchangeReport report;
  Staging staging{send.get(), slot, wire, std::vector<std::uint64_t>(ranks)};
  std::vector<ByteRange> sends(ranks), receives(ranks);
  DestinationWindows windows(std::move(destinations), slice);
  bool more = windows.next();
  std::uint64_t from = 0;  // the next record of the window to stage
  for (;;) {
    std::fill(staging.fill.begin(), staging.fill.end(), 0);
    while (more) {
      from += stage(slice, windows, from, staging);
      if (from < windows.count()) break;  // a slot is full
      more = windows.next();
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
    exchange.exchange(send.get(), sends, recv.get(), receives);
    tbb::parallel_for(std::size_t{0}, ranks, [&](std::size_t s) {
      if (receives[s].bytes > 0) sink(place[s] * wire, recv.get() + s * slot_bytes, receives[s].bytes);
    });
    for (std::size_t s = 0; s < ranks; ++s) place[s] += incoming[s];
    ++report.rounds;
    if (communicator.all_min(more ? 0 : 1) == 1) break;
  }
  report.seconds = watch.seconds();
  return report;
}

}  // namespace rmgsort::dist
