#include "gpu/partition_planner.hpp"

#include <algorithm>
#include <bit>
#include <numeric>
#include <string>

#include "core/error.hpp"

namespace rmgsort {
namespace {

// The smallest and largest radix value a bucket can hold.
std::uint64_t lowest_radix(std::uint64_t prefix, int consumed_bits, int key_bits) {
  return consumed_bits == 0 ? 0 : prefix << (key_bits - consumed_bits);
}
std::uint64_t highest_radix(std::uint64_t prefix, int consumed_bits, int key_bits) {
  const int free_bits = key_bits - consumed_bits;
  const std::uint64_t below = free_bits == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << free_bits) - 1;
  return lowest_radix(prefix, consumed_bits, key_bits) | below;
}

}  // namespace

std::vector<std::uint64_t> equal_chunks(std::uint64_t n, std::size_t gpus) {
  RMGSORT_EXPECTS(gpus > 0, "at least one GPU");
  const std::uint64_t chunk = (n + gpus - 1) / gpus;
  std::vector<std::uint64_t> chunks;
  for (std::size_t i = 0; i < gpus; ++i) {
    const std::uint64_t begin = std::min(n, chunk * i);
    chunks.push_back(std::min(n, begin + chunk) - begin);
  }
  return chunks;
}

std::size_t PartitionPlanner::max_spanning_buckets(int gpus, int key_bits, int digit_bits) {
  const std::size_t passes = std::size_t(key_bits / digit_bits);
  return std::size_t(gpus - 1) * (passes - 1) + 1;
}

PartitionPlanner::PartitionPlanner(std::span<const std::uint64_t> chunk_keys, const PlannerConfig& config)
    : config_(config), chunk_keys_(chunk_keys.begin(), chunk_keys.end()) {
  RMGSORT_EXPECTS(!chunk_keys_.empty(), "at least one GPU");
  RMGSORT_EXPECTS(config.key_bits == 32 || config.key_bits == 64, "32- or 64-bit keys");
  RMGSORT_EXPECTS(config.digit_bits > 0 && config.key_bits % config.digit_bits == 0, "digits divide the key");
  total_keys_ = std::accumulate(chunk_keys_.begin(), chunk_keys_.end(), std::uint64_t{0});
  max_chunk_ = *std::max_element(chunk_keys_.begin(), chunk_keys_.end());
  epsilon_ = std::uint64_t(double(max_chunk_) * config.epsilon_fraction);
  if (total_keys_ > 0) {
    buckets_.push_back(Bucket{0, 0, total_keys_});
    counts_ = chunk_keys_;
  }
  place_boundaries();
  if (config.always_first_pass && total_keys_ > 0 && spanning_buckets_.empty()) {
    spanning_buckets_ = {0};
    spanning_ = {SpanningBucket{{}, config.key_bits - config.digit_bits}};
    for (std::uint64_t keys : chunk_keys_) spanning_[0].on_gpu.push_back(GpuRange{0, keys});
  }
}

void PartitionPlanner::place_boundaries() {
  const std::size_t g = chunk_keys_.size();
  std::vector<std::uint64_t> starts(buckets_.size() + 1, 0);  // starts[b]: global position of bucket b
  for (std::size_t b = 0; b < buckets_.size(); ++b) starts[b + 1] = starts[b] + buckets_[b].total;

  boundaries_.assign(g + 1, total_keys_);
  boundaries_[0] = 0;
  spanning_buckets_.clear();
  std::uint64_t ideal = 0;
  for (std::size_t j = 1; j < g; ++j) {
    ideal += chunk_keys_[j - 1];
    if (ideal == 0 || ideal >= total_keys_) {
      boundaries_[j] = ideal;
      continue;
    }
    // The bucket b holding position `ideal`: starts[b] <= ideal < starts[b + 1].
    const std::size_t b = std::size_t(std::upper_bound(starts.begin(), starts.end(), ideal) - starts.begin()) - 1;
    const std::uint64_t left = ideal - starts[b], right = starts[b + 1] - ideal;
    if (left == 0) {
      boundaries_[j] = ideal;
    } else if (std::min(left, right) <= epsilon_) {
      boundaries_[j] = left <= right ? starts[b] : starts[b + 1];  // the smaller move
    } else {
      boundaries_[j] = ideal;  // inside bucket b: it spans, or it is one value split evenly
      if (buckets_[b].consumed_bits < config_.key_bits &&
          (spanning_buckets_.empty() || spanning_buckets_.back() != b))
        spanning_buckets_.push_back(b);
    }
    RMGSORT_EXPECTS(boundaries_[j] >= boundaries_[j - 1], "GPU boundaries in order");
  }
  for (std::size_t j = 0; j < g; ++j)
    RMGSORT_EXPECTS(boundaries_[j + 1] - boundaries_[j] <= buffer_keys(), "a GPU receives at most its buffer");

  // Each spanning bucket's part on every GPU, in that GPU's bucket-ordered buffer.
  spanning_.clear();
  std::vector<std::uint64_t> offset(g, 0);
  std::size_t next = 0;
  for (std::size_t b = 0; b < buckets_.size() && next < spanning_buckets_.size(); ++b) {
    if (b == spanning_buckets_[next]) {
      SpanningBucket span{{}, config_.key_bits - buckets_[b].consumed_bits - config_.digit_bits};
      for (std::size_t i = 0; i < g; ++i) span.on_gpu.push_back(GpuRange{offset[i], count(b, int(i))});
      spanning_.push_back(std::move(span));
      ++next;
    }
    for (std::size_t i = 0; i < g; ++i) offset[i] += count(b, int(i));
  }
}

void PartitionPlanner::refine(std::span<const std::vector<std::uint64_t>> histograms) {
  const std::size_t g = chunk_keys_.size();
  const std::size_t digits = std::size_t{1} << config_.digit_bits;
  RMGSORT_EXPECTS(!spanning_.empty(), "refine() after partitioning is complete");
  RMGSORT_EXPECTS(histograms.size() == spanning_.size() * g, "one histogram per spanning bucket and GPU");

  std::vector<Bucket> buckets;
  std::vector<std::uint64_t> counts;
  std::size_t s = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    if (s < spanning_buckets_.size() && spanning_buckets_[s] == b) {
      for (std::size_t i = 0; i < g; ++i) {
        const auto& histogram = histograms[s * g + i];
        RMGSORT_EXPECTS(histogram.size() == digits, "histograms have 2^digit_bits counts");
        const std::uint64_t sum = std::accumulate(histogram.begin(), histogram.end(), std::uint64_t{0});
        if (sum != count(b, int(i)))
          throw Error("partition planner: the histogram of spanning bucket " + std::to_string(s) + " on GPU " +
                      std::to_string(i) + " counts " + std::to_string(sum) + " keys, but the GPU holds " +
                      std::to_string(count(b, int(i))) + " keys of it");
      }
      for (std::size_t d = 0; d < digits; ++d) {
        Bucket child{(buckets_[b].prefix << config_.digit_bits) | d, buckets_[b].consumed_bits + config_.digit_bits, 0};
        for (std::size_t i = 0; i < g; ++i) child.total += histograms[s * g + i][d];
        if (child.total == 0) continue;
        buckets.push_back(child);
        for (std::size_t i = 0; i < g; ++i) counts.push_back(histograms[s * g + i][d]);
      }
      ++s;
    } else {
      buckets.push_back(buckets_[b]);
      for (std::size_t i = 0; i < g; ++i) counts.push_back(count(b, int(i)));
    }
  }
  buckets_ = std::move(buckets);
  counts_ = std::move(counts);
  ++passes_done_;
  place_boundaries();
}

std::vector<KeyTransfer> PartitionPlanner::swap_plan() const {
  RMGSORT_EXPECTS(done(), "the swap is planned once partitioning is complete");
  const std::size_t g = chunk_keys_.size();
  std::vector<KeyTransfer> transfers;
  std::vector<std::uint64_t> local(g, 0);  // next unsent key of each source GPU
  std::uint64_t position = 0;              // global position of the next piece
  int dst = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    for (std::size_t i = 0; i < g; ++i) {
      std::uint64_t keys = count(b, int(i));
      while (keys > 0) {
        while (boundaries_[std::size_t(dst) + 1] <= position) ++dst;
        const std::uint64_t take = std::min(keys, boundaries_[std::size_t(dst) + 1] - position);
        const KeyTransfer next{int(i), dst, local[i], position - boundaries_[std::size_t(dst)], take};
        KeyTransfer* last = transfers.empty() ? nullptr : &transfers.back();
        if (last && last->src_gpu == next.src_gpu && last->dst_gpu == next.dst_gpu &&
            last->src_offset + last->keys == next.src_offset && last->dst_offset + last->keys == next.dst_offset) {
          last->keys += take;  // one GPU holds consecutive pieces whole: one copy
        } else {
          transfers.push_back(next);
        }
        local[i] += take;
        position += take;
        keys -= take;
      }
    }
  }
  return transfers;
}

std::vector<BucketSort> PartitionPlanner::sort_plan(int gpu) const {
  RMGSORT_EXPECTS(done(), "sorts are planned once partitioning is complete");
  const int key_bits = config_.key_bits;
  const std::uint64_t lo = boundaries_[std::size_t(gpu)], hi = boundaries_[std::size_t(gpu) + 1];
  const std::uint64_t small = std::uint64_t(double(max_chunk_) * config_.small_bucket_fraction);

  // Buckets (or their parts) on this GPU, fusing runs of small neighbours of one pass.
  struct Group {
    BucketSort sort;
    std::uint64_t first_prefix, last_prefix;
    int consumed_bits;
  };
  std::vector<Group> groups;
  std::uint64_t start = 0;
  for (const Bucket& bucket : buckets_) {
    const std::uint64_t end = start + bucket.total;
    if (end > lo && start < hi) {
      const std::uint64_t keys = std::min(end, hi) - std::max(start, lo);
      Group* last = groups.empty() ? nullptr : &groups.back();
      if (last && last->consumed_bits == bucket.consumed_bits && last->sort.keys + keys <= small) {
        last->sort.keys += keys;
        last->last_prefix = bucket.prefix;
      } else {
        groups.push_back(Group{BucketSort{std::max(start, lo) - lo, keys, 0}, bucket.prefix, bucket.prefix,
                               bucket.consumed_bits});
      }
    }
    start = end;
  }

  std::vector<BucketSort> sorts;
  std::size_t real_sorts = 0;
  for (Group& group : groups) {
    // Buckets whose bits are all consumed are single values in order: fused or not, only copied.
    // Otherwise the fused keys share every bit above the highest one in which the prefixes differ.
    if (group.consumed_bits < key_bits) {
      group.sort.end_bit = std::min(key_bits, key_bits - group.consumed_bits +
                                                  int(std::bit_width(group.first_prefix ^ group.last_prefix)));
      ++real_sorts;
    }
    sorts.push_back(group.sort);
  }
  if (real_sorts > config_.max_bucket_sorts) {
    // Too many launches: one sort of the whole chunk over the bits in which its keys can differ.
    const Group& first = groups.front();
    const Group& last = groups.back();
    const std::uint64_t differing = lowest_radix(first.first_prefix, first.consumed_bits, key_bits) ^
                                    highest_radix(last.last_prefix, last.consumed_bits, key_bits);
    return {BucketSort{0, hi - lo, int(std::bit_width(differing))}};
  }
  return sorts;
}

}  // namespace rmgsort
