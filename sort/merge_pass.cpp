#include "sort/merge_pass.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <exception>

#include "core/error.hpp"
#include "host/merge_prefix.hpp"
#include "host/multiway_merge.hpp"
#include "io/host_buffer.hpp"

namespace rmgsort {
namespace {

// Refills the windows that have room, in parallel; rethrows the error of the earliest input.
void refill_windows(std::span<const std::unique_ptr<MergeWindow>> windows) {
  std::vector<std::size_t> wanting;
  for (std::size_t i = 0; i < windows.size(); ++i)
    if (windows[i]->wants_refill()) wanting.push_back(i);
  std::vector<std::exception_ptr> errors(wanting.size());
  tbb::parallel_for(std::size_t{0}, wanting.size(), [&](std::size_t j) {
    try {
      windows[wanting[j]]->refill();
    } catch (...) {
      errors[j] = std::current_exception();
    }
  });
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

// Merges every record of RUNS into SINK, in batches of parts that fill an output buffer.
void merge_round(const MergePassSpec& spec, std::span<const MergeRun> runs, MergeOutputBuffers& buffers,
                 MergeSink& sink) {
  const std::size_t k = runs.size();
  std::uint64_t total = 0;
  for (const MergeRun& run : runs) total += run.count;
  // Parts of at most half a buffer's share per thread (the splitters' bound: twice that), so that a
  // batch keeps every thread busy; one per thread at least, unless the round is small.
  const std::uint64_t part_records = std::max<std::uint64_t>(1, buffers.capacity() / (2 * spec.threads));
  const std::size_t parts = std::max<std::size_t>(merge_parts_for(total, spec.threads),
                                                  std::size_t((total + part_records - 1) / part_records));
  const std::vector<std::uint64_t> cuts = split_runs(spec.layout, spec.order, runs, parts);
  const auto row = [&](std::size_t t) { return std::span<const std::uint64_t>(cuts.data() + t * k, k); };
  std::vector<std::uint64_t> starts(parts + 1, 0);  // each part's first record in the round
  for (std::size_t t = 0; t <= parts; ++t)
    for (std::uint64_t cut : row(t)) starts[t] += cut;
  for (std::size_t first = 0; first < parts;) {
    std::size_t last = first + 1;  // the batch is parts [first, last)
    while (last < parts && starts[last + 1] - starts[first] <= buffers.capacity()) ++last;
    const std::uint64_t records = starts[last] - starts[first];
    if (records > 0) {
      const MergeTarget target = buffers.next(records);
      tbb::parallel_for(first, last, [&](std::size_t t) {
        merge_part(spec.layout, spec.order, runs, row(t), row(t + 1), target, starts[t] - starts[first]);
      });
      sink.append({target.records, records * spec.out_stride},
                  spec.positions ? std::span<const std::uint64_t>(target.positions, records)
                                 : std::span<const std::uint64_t>());
    }
    first = last;
  }
}

}  // namespace

MergeOutputBuffers::MergeOutputBuffers(const MergePassSpec& spec)
    : spec_(spec),
      capacity_(std::max<std::uint64_t>(1, spec.output_buffer_bytes / (spec.out_stride + (spec.positions ? 8 : 0)))) {
  RMGSORT_EXPECTS(spec.out_stride >= spec.layout.record_size && spec.threads > 0, "a merge pass's output layout");
}

MergeTarget MergeOutputBuffers::next(std::uint64_t records) {
  turn_ ^= 1;
  Pair& pair = pairs_[turn_];
  const std::uint64_t wanted = std::max(records, capacity_);
  if (pair.records.size() < wanted * spec_.out_stride) {
    pair.records = HostBuffer(wanted * spec_.out_stride);
    if (spec_.positions) pair.positions = HostBuffer(wanted * 8);
  }
  return {pair.records.data(), spec_.out_stride, spec_.positions ? pair.positions.as<std::uint64_t>() : nullptr};
}

std::uint64_t run_merge_pass(const MergePassSpec& spec, std::span<const std::unique_ptr<MergeWindow>> windows,
                             MergeOutputBuffers& buffers, MergeSink& sink) {
  const std::size_t k = windows.size();
  std::vector<MergeRun> runs(k);
  std::vector<std::uint8_t> ended(k);
  std::uint64_t merged = 0;
  for (;;) {
    refill_windows(windows);
    std::uint64_t left = 0;
    for (std::size_t i = 0; i < k; ++i) {
      runs[i] = windows[i]->run();
      ended[i] = windows[i]->ended() ? 1 : 0;
      left += runs[i].count;
    }
    if (left == 0 && std::all_of(ended.begin(), ended.end(), [](std::uint8_t e) { return e != 0; })) break;
    const std::vector<std::uint64_t> take = mergeable_prefix(spec.layout, spec.order, runs, ended);
    for (std::size_t i = 0; i < k; ++i) runs[i].count = take[i];
    merge_round(spec, runs, buffers, sink);
    for (std::size_t i = 0; i < k; ++i) {
      windows[i]->consume(take[i]);
      merged += take[i];
    }
  }
  return merged;
}

}  // namespace rmgsort
