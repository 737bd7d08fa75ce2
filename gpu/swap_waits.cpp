#include "gpu/swap_waits.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "core/error.hpp"

namespace rmgsort {
namespace {

// The transfers of one side of one GPU (those writing into it, or those reading from it) in plan
// order, which is the order of their offsets on that GPU; `offset` reads that offset.
struct Side {
  std::vector<std::size_t> transfers;
  std::size_t next = 0;  // the first transfer that may overlap the next sort (sorts come in order)
};

// Adds to `last` (stream -> transfer) every transfer of `side` overlapping the sort, keeping each
// stream's last. A transfer may overlap two neighbouring sorts: `next` stays on the last one seen.
template <class Offset>
void overlapping(Side& side, std::span<const KeyTransfer> transfers, const BucketSort& sort, Offset offset,
                 std::map<std::pair<int, int>, std::size_t>& last) {
  const auto transfer = [&](std::size_t i) -> const KeyTransfer& { return transfers[side.transfers[i]]; };
  std::size_t i = side.next;
  while (i < side.transfers.size() && offset(transfer(i)) + transfer(i).keys <= sort.offset) ++i;
  side.next = i;
  for (; i < side.transfers.size() && offset(transfer(i)) < sort.offset + sort.keys; ++i) {
    const KeyTransfer& t = transfer(i);
    std::size_t& latest = last.try_emplace({t.src_gpu, t.dst_gpu}, side.transfers[i]).first->second;
    latest = std::max(latest, side.transfers[i]);  // a GPU's transfers to itself are on both sides
  }
}

}  // namespace

SwapWaits swap_waits(std::span<const KeyTransfer> transfers, const std::vector<std::vector<BucketSort>>& sorts) {
  const std::size_t g = sorts.size();
  std::vector<Side> into(g), from(g);
  for (std::size_t t = 0; t < transfers.size(); ++t) {
    into[std::size_t(transfers[t].dst_gpu)].transfers.push_back(t);
    from[std::size_t(transfers[t].src_gpu)].transfers.push_back(t);
  }
  const auto dst_offset = [](const KeyTransfer& t) { return t.dst_offset; };
  const auto src_offset = [](const KeyTransfer& t) { return t.src_offset; };
  const auto check_order = [&](const Side& side, auto offset) {
    for (std::size_t k = 1; k < side.transfers.size(); ++k)
      RMGSORT_EXPECTS(offset(transfers[side.transfers[k - 1]]) < offset(transfers[side.transfers[k]]),
                      "the swap plan lists each GPU's transfers in the order of their offsets on it");
  };
  for (std::size_t j = 0; j < g; ++j) {
    check_order(into[j], dst_offset);
    check_order(from[j], src_offset);
  }

  SwapWaits waits;
  waits.awaited.assign(transfers.size(), false);
  waits.of_sort.resize(g);
  for (std::size_t j = 0; j < g; ++j) {
    for (const BucketSort& sort : sorts[j]) {
      std::map<std::pair<int, int>, std::size_t> last;  // per stream (src, dst)
      overlapping(into[j], transfers, sort, dst_offset, last);
      overlapping(from[j], transfers, sort, src_offset, last);
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
