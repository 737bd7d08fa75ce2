#include "dist/share_exchange.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/error.hpp"
#include "core/record_rank.hpp"
#include "dist/rank_key.hpp"
#include "report/stopwatch.hpp"

namespace rmgsort::dist {

std::uint64_t ShareCounts::received() const {
  std::uint64_t total = 0;
  for (std::uint64_t count : receives) total += count;
  return total;
}

ShareCounts count_shares(const Communicator& communicator, Destinations destinations, const ShareSlice& slice) {
  ShareCounts counts;
  counts.sends.assign(std::size_t(communicator.size()), 0);
  const KeyShape shift = key_shape(slice.layout);
  visit_rank(slice.layout, slice.order, [&](const auto& rank) {
    for (std::uint64_t i = 0; i < slice.count; ++i)
      ++counts.sends[std::size_t(destinations.next(rank_key(rank, slice.records + i * slice.layout.record_size, shift)))];
  });
  counts.receives = communicator.all_to_all(counts.sends);
  return counts;
}

ExchangeReport exchange_shares(const Communicator& communicator, Exchange& exchange, Destinations destinations,
                               const ShareSlice& slice, const ShareCounts& counts, std::byte* share,
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
  std::vector<std::uint64_t> fill(ranks);
  std::vector<ByteRange> sends(ranks), receives(ranks);
  const KeyShape shift = key_shape(slice.layout);
  const std::size_t record_size = slice.layout.record_size;
  visit_rank(slice.layout, slice.order, [&](const auto& rank) {
    std::uint64_t next = 0;  // the next record to stage
    int pending = -1;        // its destination, when it was classified but its slot was full
    for (;;) {
      std::fill(fill.begin(), fill.end(), 0);
      while (next < slice.count) {
        const std::byte* record = slice.records + next * record_size;
        const int d = pending >= 0 ? pending : destinations.next(rank_key(rank, record, shift));
        if (fill[std::size_t(d)] == slot) {
          pending = d;
          break;
        }
        pending = -1;
        std::byte* out = send.get() + std::size_t(d) * slot_bytes + fill[std::size_t(d)]++ * wire;
        std::memcpy(out, record, record_size);
        if (slice.append_position) {
          const std::uint64_t position = slice.first_position + next;
          std::memcpy(out + record_size, &position, 8);
        }
        ++next;
      }
      const std::vector<std::uint64_t> incoming = communicator.all_to_all(fill);
      for (std::size_t r = 0; r < ranks; ++r) {
        sends[r] = ByteRange{r * slot_bytes, std::size_t(fill[r]) * wire};
        receives[r] = ByteRange{r * slot_bytes, std::size_t(incoming[r]) * wire};
        if (r != me) {
          report.sent_bytes += sends[r].bytes;
          report.received_bytes += receives[r].bytes;
        }
      }
      exchange.exchange(send.get(), sends, recv.get(), receives);
      for (std::size_t s = 0; s < ranks; ++s) {
        if (receives[s].bytes > 0) std::memcpy(share + place[s] * wire, recv.get() + s * slot_bytes, receives[s].bytes);
        place[s] += incoming[s];
      }
      ++report.rounds;
      if (communicator.all_min(next == slice.count ? 1 : 0) == 1) break;
    }
  });
  report.seconds = watch.seconds();
  return report;
}

}  // namespace rmgsort::dist
