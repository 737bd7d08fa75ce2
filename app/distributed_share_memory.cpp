#include "app/distributed_share_memory.hpp"

#include <cstring>
#include <vector>

#include "app/distributed_outputs.hpp"
#include "app/npy_output_headers.hpp"
#include "dist/rank_agreement.hpp"
#include "host/order_check.hpp"
#include "io/npy_format.hpp"
#include "report/stopwatch.hpp"
#include "sort/sorted_sink.hpp"
#include "sort/unique_filter.hpp"

namespace rmgsort {
namespace {

using dist::Communicator;
using dist::agreed;

// The last key of this rank's sorted share, and of the nearest lower rank that has records: the
// run of equal keys --unique and --verify see continues across ranks.
std::optional<std::vector<std::byte>> previous_last_record(const Communicator& communicator,
                                                           const RecordLayout& layout, const SortedRound& sorted) {
  std::vector<std::byte> mine(1 + layout.key_size);
  const std::size_t count = sorted.records.size() / layout.record_size;
  if (count > 0) {
    mine[0] = std::byte{1};
    std::memcpy(mine.data() + 1, sorted.records.data() + (count - 1) * layout.record_size + layout.key_offset,
                layout.key_size);
  }
  const std::vector<std::byte> all = communicator.all_gather_bytes(mine);
  for (int r = communicator.rank() - 1; r >= 0; --r) {
    const std::byte* theirs = all.data() + std::size_t(r) * mine.size();
    if (theirs[0] != std::byte{1}) continue;
    std::vector<std::byte> record(layout.record_size);  // only its key matters
    std::memcpy(record.data() + layout.key_offset, theirs + 1, layout.key_size);
    return record;
  }
  return std::nullopt;
}

// --verify: this rank's sorted records in order after the previous rank's last, and the sorted
// records of every rank together a permutation of the input. "" when both hold.
std::string verify_share(const Communicator& communicator, const RecordLayout& layout, SortOrder order,
                         const SortedRound& sorted, const std::optional<std::vector<std::byte>>& previous,
                         const KeyChecksum& slice_checksum) {
  OrderChecker checker(layout, order);
  if (previous) checker.feed(previous->data(), previous->size());
  checker.feed(sorted.records.data(), sorted.records.size());
  std::optional<std::uint64_t> disorder = checker.first_disorder();
  const KeyChecksum output = checksum_records(sorted.records.data(), sorted.records.size(), layout.record_size);
  std::uint64_t sums[6] = {slice_checksum.keys, slice_checksum.low, slice_checksum.high,
                           output.keys,         output.low,         output.high};
  communicator.all_sum(sums);
  const bool permutation = sums[0] == sums[3] && sums[1] == sums[4] && sums[2] == sums[5];
  if (disorder && previous) *disorder -= 1;  // (the previous rank's record came first)
  const std::string failure = verify_failure(layout, disorder, permutation);
  return failure.empty() ? failure : "rank " + std::to_string(communicator.rank()) + "'s " + failure;
}

// The lowest rank's --verify failure on every rank ("" when none failed).
std::string agree_on_verify(const Communicator& communicator, std::string failure) {
  const std::uint64_t ranks = std::uint64_t(communicator.size());
  const std::uint64_t failed = communicator.all_min(failure.empty() ? ranks : std::uint64_t(communicator.rank()));
  if (failed == ranks) return "";
  communicator.broadcast(failure, int(failed));
  return failure;
}

}  // namespace

int sort_share_in_memory(const dist::Communicator& communicator, const SortOptions& options, const JobInput& job,
                         HostBuffer& share, const KeyChecksum& slice_checksum, DistributedReport& report,
                         std::optional<StatsOutput>& stats) {
  const int me = communicator.rank(), ranks = communicator.size();
  const RecordLayout& layout = job.input->layout;
  const std::uint64_t received = job.count;
  SortEngine& engine = *report.plan->engine;
  SortedRound sorted;
  agreed(communicator, [&] {
    Stopwatch watch;
    if (received > 0) {
      engine.allocate(received);
      sorted = engine.sort(share.data(), received, options.order);
    }
    report.sort_seconds = watch.seconds();
  });
  const std::optional<std::vector<std::byte>> previous = previous_last_record(communicator, layout, sorted);
  if (options.verify) {
    report.verify_failure = agree_on_verify(
        communicator, verify_share(communicator, layout, options.order, sorted, previous, slice_checksum));
    if (!report.verify_failure.empty()) return kExitCheckFailed;
  }
  if (options.unique) {
    UniqueFilter unique(layout, options.order);
    if (previous) {
      std::vector<std::byte> record = *previous;
      (void)unique.keep_firsts(record.data(), nullptr, 1);
    }
    sorted = unique.keep_firsts(sorted);
    report.duplicates_dropped = unique.dropped();
  }
  const std::uint64_t kept = sorted.records.size() / layout.record_size;
  const std::vector<std::uint64_t> kept_by_rank = communicator.all_gather(std::span(&kept, 1));
  std::uint64_t before = 0, kept_total = 0;
  for (int r = 0; r < ranks; ++r) (r < me ? before : kept_total) += kept_by_rank[std::size_t(r)];
  kept_total += before;
  report.kept_total = kept_total;

  // The .npy headers first (in the first part), for every record kept: a .npy input's, or those of
  // outputs named *.npy (app/npy_output_headers.hpp).
  Outputs outputs = open_outputs(communicator, options);
  agreed(communicator, [&] {
    Stopwatch watch;
    const SortInput& input = *job.input;
    const NpyOutputFormats formats = npy_output_formats(input.npy, layout, options.output, options.index_output);
    const std::uint64_t offset = options.output_parts ? 0 : before;
    if (outputs.output) {
      const std::vector<std::byte> header =
          formats.array ? npy_header_for(*formats.array, kept_total) : std::vector<std::byte>();
      const std::uint64_t header_bytes = options.output_parts && me != 0 ? 0 : header.size();
      if (me == 0) write_at(*outputs.output, header.data(), header.size(), 0);
      write_at(*outputs.output, sorted.records.data(), sorted.records.size(), header_bytes + offset * layout.record_size);
      outputs.output->finish_writing();
    }
    if (outputs.index) {
      const std::vector<std::byte> header = formats.index ? npy_index_header(kept_total) : std::vector<std::byte>();
      const std::uint64_t header_bytes = options.output_parts && me != 0 ? 0 : header.size();
      if (me == 0) write_at(*outputs.index, header.data(), header.size(), 0);
      const auto positions = std::as_bytes(sorted.positions);
      write_at(*outputs.index, positions.data(), positions.size(), header_bytes + offset * 8);
      outputs.index->finish_writing();
    }
    report.write_seconds = watch.seconds();
  });
  return finish(communicator, options, report, stats, outputs);
}

}  // namespace rmgsort
