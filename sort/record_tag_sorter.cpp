#include "sort/record_tag_sorter.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstring>

#include "host/record_tags.hpp"
#include "report/stopwatch.hpp"

namespace rmgsort {
namespace {

// Records per task of the gathers below: enough to amortise a task, few enough to balance.
constexpr std::uint64_t kGatherGrain = std::uint64_t{1} << 14;

// The user's size of the engine's records.
std::size_t user_record_size(const RecordLayout& layout, PositionSource positions) {
  return layout.record_size - (positions == PositionSource::appended ? 8 : 0);
}

}  // namespace

std::uint64_t RecordTagSorter::host_bytes(std::uint64_t keys) const { return record_tag_bytes(keys); }

std::uint64_t RecordTagSorter::output_bytes(std::uint64_t keys) const {
  const std::uint64_t records = keys * user_record_size(layout_, positions_);
  if (positions_ != PositionSource::appended) return records;
  return (records + 7) / 8 * 8 + 8 * keys;  // the positions after the records, aligned
}

void RecordTagSorter::allocate(std::uint64_t keys) {
  keys_ = keys;
  tags_ = HostBuffer(host_bytes(keys));
}

HostBuffer& RecordTagSorter::next_output(std::uint64_t count) {
  HostBuffer& output = outputs_[std::size_t(next_)];
  next_ ^= 1;
  if (output.capacity() < output_bytes(count)) output = HostBuffer(output_bytes(keys_));
  return output;
}

SortedRound RecordTagSorter::sort(const std::byte* records, std::uint64_t count, SortOrder order,
                                  const TagSort& sort_tags) {
  RMGSORT_EXPECTS(count <= keys_, "a record sort of at most the records allocated for");
  auto* tags = tags_.as<std::uint64_t>();
  Stopwatch step;
  const TagPlan plan = build_record_tags(records, count, layout_, order, tags);
  seconds_.build += step.lap();
  sort_tags(tags, count, plan.index_bits);
  seconds_.sort += step.lap();
  refine_record_tags(tags, count, plan, records, layout_, order);
  seconds_.refine += step.lap();
  ++sorts_;
  if (!plan.exact) ++inexact_sorts_;
  SortedRound sorted = gather(records, count, plan);
  seconds_.gather += step.lap();
  return sorted;
}

SortedRound RecordTagSorter::gather(const std::byte* records, std::uint64_t count, const TagPlan& plan) {
  auto* tags = tags_.as<std::uint64_t>();
  HostBuffer& output = next_output(count);
  SortedRound sorted;
  const std::size_t size = user_record_size(layout_, positions_);
  sorted.records = {output.data(), count * size};
  if (positions_ != PositionSource::appended) {
    gather_records(tags, count, plan, records, layout_.record_size, output.data());
    if (positions_ == PositionSource::sort_input) {
      tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, kGatherGrain), [&](const auto& range) {
        for (std::uint64_t j = range.begin(); j < range.end(); ++j) tags[j] = tag_position(tags[j], plan);
      });
      sorted.positions = {tags, count};
    }
    return sorted;
  }
  // Each record leaves without the position the spill pass appended; the positions follow the
  // records in the same buffer.
  auto* positions = reinterpret_cast<std::uint64_t*>(output.data() + (count * size + 7) / 8 * 8);
  RMGSORT_EXPECTS(output.capacity() >= (count * size + 7) / 8 * 8 + 8 * count, "room for the positions");
  const std::size_t wide = layout_.record_size;
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, kGatherGrain), [&](const auto& range) {
    for (std::uint64_t j = range.begin(); j < range.end(); ++j) {
      const std::byte* record = records + tag_position(tags[j], plan) * wide;
      std::memcpy(output.data() + j * size, record, size);
      std::memcpy(&positions[j], record + size, 8);
    }
  });
  sorted.positions = {positions, count};
  return sorted;
}

Json RecordTagSorter::stats() const {
  return {
      {"sorts", sorts_},
      {"sorts_with_ties_refined", inexact_sorts_},
      {"build_seconds", seconds_.build},
      {"tag_sort_seconds", seconds_.sort},
      {"refine_seconds", seconds_.refine},
      {"gather_seconds", seconds_.gather},
  };
}

}  // namespace rmgsort
