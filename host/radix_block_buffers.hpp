// The buffers of one stripe of the in-place radix pass (host/radix_block_partition.hpp): a partial
// block per bucket, and a pool that lends them, so that the many passes of one sort reuse a few
// buffers rather than allocating (and faulting in) new ones. Included by host/radix_sort.cpp's
// parts only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "host/radix_sort_config.hpp"

namespace rmgsort::radix_sort_detail {

inline constexpr std::size_t kBuckets = std::size_t{1} << radix_config::kDigitBits;

template <class Bits>
struct StripeBuffers {
  static constexpr std::size_t kBlockKeys = radix_config::kBlockBytes / sizeof(Bits);

  Bits* block(std::size_t bucket) { return keys.get() + bucket * kBlockKeys; }

  // Bucket d's keys that do not fill a block yet: block(d)[0, fill[d]).
  std::unique_ptr<Bits[]> keys{new Bits[kBuckets * kBlockKeys]};
  std::array<std::uint32_t, kBuckets> fill{};
  // Bucket d's keys in the stripe: in whole blocks written back, and in block(d).
  std::array<std::uint64_t, kBuckets> count{};
};

// Lends StripeBuffers to the passes of one sort, from any thread. The buffers are never freed
// before the pool, so it holds as many as were ever lent at once (one per stripe of the passes that
// ran at the same time: about the thread count).
template <class Bits>
class StripeBufferPool {
 public:
  std::unique_ptr<StripeBuffers<Bits>> acquire() {
    {
      const std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        auto buffers = std::move(free_.back());
        free_.pop_back();
        return buffers;
      }
    }
    return std::make_unique<StripeBuffers<Bits>>();
  }

  void release(std::unique_ptr<StripeBuffers<Bits>> buffers) {
    const std::lock_guard lock(mutex_);
    free_.push_back(std::move(buffers));
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<StripeBuffers<Bits>>> free_;
};

}  // namespace rmgsort::radix_sort_detail
