#include "host/round_classifier.hpp"

#include <algorithm>
#include <bit>
#include <utility>

#include "core/error.hpp"

namespace rmgsort {

// Greedy packing, in key order, of leaves (digits of at most a round's keys, which join the open
// bucket) and runs (one value of more than a round's keys, a bucket of its own). Positions count
// the keys placed so far. Invariant: placed - round_begin <= capacity, and every cut lies above the
// previous one, so no round is empty or over capacity.
template <class Bits>
class RoundClassifier<Bits>::Packer {
 public:
  explicit Packer(std::uint64_t capacity) : capacity_(capacity) {}

  // `low`: the lowest key the leaf's digit can hold (above every key of the leaves before it).
  std::uint32_t add_leaf(std::uint64_t keys, Bits low) {
    if (keys == 0) return current();  // no key will ever ask; any valid bucket will do
    if (placed_ + keys - round_begin_ > capacity_) {
      // keys <= capacity, so placed_ > round_begin_: the round ending here is not empty.
      cut_at(placed_);
      bucket_open_ = false;
    }
    if (!bucket_open_) open_bucket(low);
    placed_ += keys;
    return current();
  }

  // The run fills the open round, then whole rounds; its last part stays open for what follows.
  std::uint32_t add_run(std::uint64_t keys, Bits low) {
    open_bucket(low);
    while (placed_ + keys - round_begin_ > capacity_) cut_at(round_begin_ + capacity_);
    placed_ += keys;
    bucket_open_ = false;  // the next leaf starts a bucket of its own
    return current();
  }

  BucketPlan<Bits> finish() {
    if (placed_ != 0) plan_.rounds.cuts.push_back(placed_);
    plan_.begin.push_back(placed_);
    if (!plan_.low.empty()) plan_.low.front() = 0;  // the first bucket takes every key below the second
    return std::move(plan_);
  }

 private:
  std::uint32_t current() const { return plan_.low.empty() ? 0 : std::uint32_t(plan_.low.size() - 1); }
  void open_bucket(Bits low) {
    RMGSORT_EXPECTS(plan_.low.size() < kToTable, "more scatter buckets than route entries can name");
    plan_.begin.push_back(placed_);
    plan_.low.push_back(low);
    bucket_open_ = true;
  }
  void cut_at(std::uint64_t position) {
    plan_.rounds.cuts.push_back(position);
    round_begin_ = position;
  }

  std::uint64_t capacity_;
  BucketPlan<Bits> plan_;
  std::uint64_t placed_ = 0, round_begin_ = 0;
  bool bucket_open_ = false;
};

template <class Bits>
RoundClassifier<Bits>::RoundClassifier(std::vector<std::uint64_t> top_digit_counts, Bits differing, Bits common,
                                       std::uint64_t round_capacity)
    : capacity_(round_capacity) {
  RMGSORT_EXPECTS(top_digit_counts.size() == kRootDigits, "the root histogram has one count per top digit");
  DigitTable<Bits> root;
  root.shift = kKeyBits - kDigitBits;
  root.width = kDigitBits;
  root.differing = differing;
  root.common = common;
  root.counts = std::move(top_digit_counts);
  root.route.assign(kRootDigits, 0);
  tables_.push_back(std::move(root));
}

template <class Bits>
std::vector<std::uint32_t> RoundClassifier<Bits>::add_children(const std::vector<std::uint32_t>& counted) {
  std::vector<std::uint32_t> children;
  for (const std::uint32_t parent : counted) {
    for (std::size_t digit = 0; digit < tables_[parent].digits(); ++digit) {
      const DigitTable<Bits>& p = tables_[parent];
      const std::uint64_t keys = p.counts[digit];
      if (keys <= capacity_) continue;
      // The digit's keys can differ only where the parent's keys differ, below the parent's digit.
      const Bits below_parent = p.shift == 0 ? Bits(0) : Bits((Bits(1) << p.shift) - 1);
      const Bits below = p.differing & below_parent;
      if (below == 0) continue;  // one value: a run
      DigitTable<Bits> child;
      const int top = int(std::bit_width(below));
      // 16 bits, unless fewer bits differ, or fewer keys need splitting than 2^16 digits (a child
      // never has more digits than twice its keys, so tables stay O(keys) however small the capacity).
      child.width = std::min({kDigitBits, top, int(std::bit_width(keys))});
      child.shift = top - child.width;
      // Above the child's digit: the parent's prefix and digit, then bits every parent key shares.
      const Bits shared = below_parent & ~Bits((Bits(1) << top) - 1);
      child.prefix = Bits(p.prefix | (Bits(digit) << p.shift) | (p.common & shared));
      child.counts.assign(child.digits(), 0);
      child.route.assign(child.digits(), 0);
      RMGSORT_EXPECTS(tables_.size() < kToTable, "more digit tables than route entries can name");
      const auto index = std::uint32_t(tables_.size());
      tables_[parent].route[digit] = kToTable | index;
      tables_.push_back(std::move(child));  // (invalidates `p`, not used after this)
      children.push_back(index);
    }
  }
  return children;
}

template <class Bits>
void RoundClassifier<Bits>::route_digits(std::uint32_t index, Packer& packer) {
  for (std::size_t digit = 0; digit < tables_[index].digits(); ++digit) {
    const std::uint32_t entry = tables_[index].route[digit];
    if (entry & kToTable) {
      route_digits(entry & ~kToTable, packer);  // depth <= key bits: at most 64 levels
      continue;
    }
    const DigitTable<Bits>& table = tables_[index];
    const std::uint64_t keys = table.counts[digit];
    const Bits low = Bits(table.prefix | (Bits(digit) << table.shift));
    tables_[index].route[digit] = keys > capacity_ ? packer.add_run(keys, low) : packer.add_leaf(keys, low);
  }
}

template <class Bits>
BucketPlan<Bits> RoundClassifier<Bits>::plan() {
  Packer packer(capacity_);
  route_digits(0, packer);
  return packer.finish();
}

template <class Bits>
TopDigitRouter<Bits>::TopDigitRouter(const std::vector<std::uint32_t>& root_route) : root_route_(root_route.data()) {
  RMGSORT_EXPECTS(root_route.size() == std::size_t{1} << 16, "the root routes 2^16 top digits");
  for (std::size_t byte = 0; byte < 256; ++byte) {
    const auto first = root_route.begin() + std::ptrdiff_t(byte * 256);
    const bool one_bucket = std::all_of(first, first + 256, [&](std::uint32_t entry) { return entry == *first; });
    top_byte_[byte] = one_bucket && !(*first & kToTable) ? *first : kToTable;
  }
}

template <class Bits>
SplitterRouter<Bits>::SplitterRouter(const std::vector<Bits>& bucket_low) {
  const std::size_t buckets = std::max<std::size_t>(bucket_low.size(), 1);
  const std::size_t leaves = std::bit_ceil(buckets);
  levels_ = std::countr_zero(leaves);
  first_leaf_ = 2 * leaves - buckets;
  // Leaf l's lowest key: pads first (0), then the buckets'.
  const auto leaf_low = [&](std::size_t leaf) {
    return leaf < leaves - buckets || bucket_low.empty() ? Bits(0) : bucket_low[leaf - (leaves - buckets)];
  };
  tree_.assign(2 * leaves, 0);
  // Node n at depth d covers leaves [(n - 2^d) * span, + span), span = leaves >> d; it sends a key
  // right when the key is at least the lowest key of its right half.
  for (std::size_t node = 1, depth_begin = 1, span = leaves; node < leaves; ++node) {
    if (node == 2 * depth_begin) {
      depth_begin = node;
      span /= 2;
    }
    tree_[node] = leaf_low((node - depth_begin) * span + span / 2);
  }
}

template class RoundClassifier<std::uint32_t>;
template class RoundClassifier<std::uint64_t>;
template class TopDigitRouter<std::uint32_t>;
template class TopDigitRouter<std::uint64_t>;
template class SplitterRouter<std::uint32_t>;
template class SplitterRouter<std::uint64_t>;

}  // namespace rmgsort
