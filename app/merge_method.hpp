// Which way rmgsort merge makes its output: the k-way merge (sort/merge_inputs.hpp), or the sort of
// the inputs' concatenation by sort's machinery (app/merge_by_sort.hpp), whose stable order is the
// same. --method merge or sort chooses; --method auto (the default) follows this rule, in order:
//   1. an input is a stream (a pipe, standard input): merge. The sort method must know where each
//      input ends in memory to check its order, and the merge reads a stream once, in bounded memory.
//   2. the concatenation does not fit sort's in-memory paths under --host-memory (sort's plan is the
//      spill path): merge. It reads and writes every record once; sort's spill path reads the inputs
//      twice and writes and reads its spill files.
//   3. sort's plan takes the GPUs (--gpus, and inputs large enough that sort/small_input.hpp does not
//      send them to the CPU): sort. On one H200, 2 runs of 512e6 u64 keys: merge 3.50 s, sort on
//      the GPU 2.17 s (bench_results/2026-11-24-merge-methods-h200.md): the fewest runs sort faster.
//   4. the CPU: sort from kSortFromRunsOnCpu inputs on, merge below.
#pragma once

#include <cstddef>
#include <string>

#include "app/commands.hpp"
#include "sort/sort_plan.hpp"

namespace rmgsort {

// The inputs from which sorting their concatenation on the CPU beats merging them. Measured with
// scripts/bench_merge.sh (bench_results/2026-11-24-merge-sort-cpu-2core.md, 2 threads), CPU seconds
// merge / sort: 64M u64 keys, 8 runs 1.42 / 2.29, 64 runs 2.24 / 2.22, 256 runs 3.02 / 2.39, 512 runs
// 3.72 / 2.34; 6M 100-byte records, 64 runs 1.09 / 1.28, 256 runs 1.46 / 1.34 (16M u64 keys, wall:
// 64 runs 0.55 / 0.71, 512 runs 1.18 / 0.78). The methods cross between 64 and 256 runs.
inline constexpr std::size_t kSortFromRunsOnCpu = 256;

struct MethodChoice {
  MergeMethod method = MergeMethod::merge;  // merge or sort
  std::string because;                       // the rule's reason, or "--method merge" / "--method sort"
};

// The choice for --method auto over INPUTS inputs, when one is a stream (STREAM_INPUT, its name) or,
// else, given the plan sort would follow (SORT_PLAN: null when sort's machinery refused the inputs,
// which the merge then names in its own error, or takes).
[[nodiscard]] MethodChoice choose_merge_method(std::size_t inputs, const std::string& stream_input,
                                               const SortPlan* sort_plan);

[[nodiscard]] const char* merge_method_name(MergeMethod method);  // "auto", "merge", "sort"

}  // namespace rmgsort
