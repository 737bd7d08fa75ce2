#include "gpu/swap_waits.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace rmgsort {
namespace {

bool overlaps(std::uint64_t offset, std::uint64_t keys, const BucketSort& sort) {
  return offset < sort.offset + sort.keys && sort.offset < offset + keys;
}

}  // namespace

SwapWaits swap_waits(std::span<const KeyTransfer> transfers, const std::vector<std::vector<BucketSort>>& sorts) {
  SwapWaits waits;
  waits.awaited.assign(transfers.size(), false);
  waits.of_sort.resize(sorts.size());
  for (std::size_t j = 0; j < sorts.size(); ++j) {
    const int gpu = int(j);
    for (const BucketSort& sort : sorts[j]) {
      // The last transfer of each stream that the sort depends on.
      std::map<std::pair<int, int>, std::size_t> last;
      for (std::size_t t = 0; t < transfers.size(); ++t) {
        const KeyTransfer& transfer = transfers[t];
        const bool writes_into = transfer.dst_gpu == gpu && overlaps(transfer.dst_offset, transfer.keys, sort);
        const bool reads_from = transfer.src_gpu == gpu && overlaps(transfer.src_offset, transfer.keys, sort);
        if (writes_into || reads_from) last[{transfer.src_gpu, transfer.dst_gpu}] = t;
      }
      std::vector<std::size_t> indices;
      for (const auto& [stream, t] : last) {
        indices.push_back(t);
        waits.awaited[t] = true;
      }
      std::sort(indices.begin(), indices.end());
      waits.of_sort[j].push_back(std::move(indices));
    }
  }
  return waits;
}

}  // namespace rmgsort
