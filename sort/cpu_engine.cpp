#include "sort/cpu_engine.hpp"

#include <limits>
#include <utility>

#include "core/record_pair.hpp"
#include "host/pair_sort.hpp"
#include "host/radix_sort.hpp"
#include "host/tag_sort.hpp"

namespace rmgsort {

CpuEngine::CpuEngine(const RecordLayout& layout, PositionSource positions)
    : layout_(layout),
      pairs_(positions != PositionSource::appended && sorted_as_pairs(layout, positions == PositionSource::sort_input)),
      positions_wanted_(positions == PositionSource::sort_input) {
  const bool by_keys = layout.is_bare_key() && positions == PositionSource::none;
  if (!by_keys && !pairs_) tag_sorter_.emplace(layout, positions);
}

std::uint64_t CpuEngine::round_keys() const { return std::numeric_limits<std::uint64_t>::max(); }

std::uint64_t CpuEngine::host_bytes_beside(std::uint64_t keys) const {
  if (pairs_) return pair_sort_bytes(keys) + (positions_wanted_ ? keys * sizeof(std::uint64_t) : 0);
  if (tag_sorter_) return tag_sorter_->host_bytes(keys) + keys * sizeof(std::uint64_t);
  return radix_sort_scratch_bytes(layout_.key_type, keys);
}

bool CpuEngine::report_to(Progress& progress) {
  if (pairs_ || tag_sorter_) return false;
  progress_ = &progress;
  return true;
}

bool CpuEngine::hand_prefixes_to(SortedPrefixSink sink) {
  if (!hands_prefixes()) return false;
  prefix_sink_ = std::move(sink);
  return true;
}

std::uint64_t CpuEngine::output_bytes(std::uint64_t keys) const {
  return tag_sorter_ ? tag_sorter_->output_bytes(keys) : 0;
}

void CpuEngine::allocate(std::uint64_t keys) {
  scratch_keys_ = keys;
  if (pairs_) {
    scratch_ = HostBuffer(pair_sort_bytes(keys));
    if (positions_wanted_) positions_ = HostBuffer(keys * sizeof(std::uint64_t));
  } else if (tag_sorter_) {
    tag_sorter_->allocate(keys);
    scratch_ = HostBuffer(keys * sizeof(std::uint64_t));
  }
}

SortedRound CpuEngine::sort(std::byte* records, std::uint64_t count, SortOrder order) {
  RMGSORT_EXPECTS(count <= scratch_keys_, "the engine was allocated for the keys (allocate() first)");
  if (tag_sorter_) {
    return tag_sorter_->sort(records, count, order, [&](std::uint64_t* tags, std::uint64_t n, int index_bits) {
      sort_tags(tags, n, index_bits, scratch_.as<std::uint64_t>());
    });
  }
  if (pairs_) {
    auto* positions = positions_wanted_ ? positions_.as<std::uint64_t>() : nullptr;
    sort_records_as_pairs(records, count, layout_, order, scratch_.data(), positions);
    if (!positions_wanted_) return SortedRound{{records, count * layout_.record_size}, {}};
    return SortedRound{{records, count * layout_.record_size}, {positions, count}};
  }
  SortedKeysHook placed;
  if (progress_ != nullptr)
    placed = [progress = progress_, width = layout_.record_size](std::size_t keys) { progress->advance(keys * width); };
  visit_key_type(layout_.key_type, [&]<class T>(T) {
    radix_sort(reinterpret_cast<T*>(records), count, order, placed, prefix_sink_);
  });
  return SortedRound{{records, count * layout_.record_size}, {}};
}

}  // namespace rmgsort
