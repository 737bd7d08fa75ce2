// The finished prefix of a radix sort's first parallel pass (host/radix_sort.hpp, SortedPrefixHook):
// that pass leaves value-disjoint buckets in order, so once buckets 0..d are sorted, the keys before
// bucket d + 1 are final, and a writer may write them while later buckets are still being sorted.
// The buckets are taken in ascending order, so that the prefix grows at about the sort's own pace.
// Included by host/radix_sort.cpp only.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <vector>

namespace rmgsort::radix_sort_detail {

// Buckets marked finished in any order; tells the hook the end of their leading run each time it
// grows. BUCKET_BEGIN holds kBuckets + 1 offsets, the last one the range's size.
class FinishedPrefix {
 public:
  FinishedPrefix(const std::size_t* bucket_begin, std::size_t buckets, const std::function<void(std::size_t)>& hook)
      : bucket_begin_(bucket_begin), done_(buckets, false), hook_(hook) {}

  // Bucket D is sorted and in its final form. The hook is called under the lock, so its calls do
  // not overlap and their values grow; and what the finishing threads stored before their finish()
  // happens before the hook hears of it.
  void finish(std::size_t d) {
    const std::lock_guard lock(mutex_);
    done_[d] = true;
    while (next_ < done_.size() && done_[next_]) ++next_;
    const std::size_t end = bucket_begin_[next_];
    if (end > told_) {
      told_ = end;
      hook_(end);
    }
  }

 private:
  const std::size_t* bucket_begin_;
  std::vector<bool> done_;
  std::size_t next_ = 0;  // the first bucket not finished
  std::size_t told_ = 0;  // the last end the hook heard
  const std::function<void(std::size_t)>& hook_;
  std::mutex mutex_;
};

// Calls sort_bucket(d) for every d in [0, buckets) on up to `threads` threads, each taking the
// lowest bucket not yet taken, then finish(d). Each call is isolated (tbb::this_task_arena::isolate):
// a thread waiting inside a bucket's nested parallel work takes only that work, never another
// bucket loop whose buckets would keep its own, lower bucket unfinished until they were all done.
template <class SortBucket, class Finish>
void for_each_bucket_in_order(std::size_t buckets, std::size_t threads, const SortBucket& sort_bucket,
                              const Finish& finish) {
  std::atomic<std::size_t> next{0};
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, std::max<std::size_t>(threads, 1), 1),
      [&](const tbb::blocked_range<std::size_t>&) {
        for (std::size_t d = next.fetch_add(1); d < buckets; d = next.fetch_add(1)) {
          tbb::this_task_arena::isolate([&] { sort_bucket(d); });
          finish(d);
        }
      },
      tbb::simple_partitioner());
}

}  // namespace rmgsort::radix_sort_detail
