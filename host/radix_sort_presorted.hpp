// Inputs already in order, or in reverse order, found by one read that stops at the first keys out
// of both orders (so on other inputs it costs next to nothing). tbb::parallel_sort makes the same
// check; a radix sort would otherwise move such keys through all its passes. Included by
// host/radix_sort.cpp only.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <utility>

namespace rmgsort::radix_sort_detail {

enum class Presorted { no, ascending, descending };

// Whether key(i) never decreases (ascending) or never increases (descending) over [0, n); key
// returns the radix bits of keys[i]. `parts` tasks check a part each (and its first key against
// the previous part's last), each giving up once every task together has seen both orders broken.
template <class Key>
Presorted find_presorted(std::size_t n, std::size_t parts, const Key& key) {
  if (n < 2) return Presorted::ascending;
  std::atomic<bool> ascending{true}, descending{true};
  constexpr std::size_t kPoll = 1024;  // keys between two looks at the other tasks' findings
  tbb::parallel_for(std::size_t{0}, parts, [&](std::size_t p) {
    const std::size_t begin = std::max<std::size_t>(n * p / parts, 1), end = n * (p + 1) / parts;
    bool up = true, down = true;
    for (std::size_t chunk = begin; chunk < end; chunk += kPoll) {
      if (!ascending.load(std::memory_order_relaxed)) up = false;
      if (!descending.load(std::memory_order_relaxed)) down = false;
      if (!up && !down) return;
      auto previous = key(chunk - 1);
      for (std::size_t i = chunk; i < std::min(chunk + kPoll, end); ++i) {
        const auto current = key(i);
        up &= previous <= current;
        down &= previous >= current;
        previous = current;
      }
      if (!up) ascending.store(false, std::memory_order_relaxed);
      if (!down) descending.store(false, std::memory_order_relaxed);
    }
  });
  if (ascending.load()) return Presorted::ascending;
  return descending.load() ? Presorted::descending : Presorted::no;
}

// Reverses keys[0, n) in parallel.
template <class Bits>
void reverse_in_parallel(Bits* keys, std::size_t n, std::size_t grain) {
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n / 2, grain), [&](const auto& r) {
    for (std::size_t i = r.begin(); i < r.end(); ++i) std::swap(keys[i], keys[n - 1 - i]);
  });
}

}  // namespace rmgsort::radix_sort_detail
