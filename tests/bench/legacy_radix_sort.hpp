// The out-of-place parallel MSD radix sort that host/radix_sort.cpp was until 2026-11-24 (one
// buffer as large as the keys), kept compiled in the benchmarks only: the baseline that
// scripts/bench_cpu_sort.sh measures the in-place sort against in the same run.
#pragma once

#include <cstddef>
#include <functional>

#include "core/key_order.hpp"

namespace rmgsort::legacy {

// Sorts keys[0, n) in `order`; `scratch` holds n keys. Runs on the current oneTBB arena.
template <class T>
void radix_sort(T* keys, std::size_t n, SortOrder order, T* scratch, const std::function<void(std::size_t)>& sorted = {});

}  // namespace rmgsort::legacy
