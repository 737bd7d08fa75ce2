// Sorted runs for the merge tests (multiway_merge_test, merge_prefix_test): random records of a
// layout (tests/host/record_test_layouts.hpp: edge keys, many equal ones) cut into runs of given
// sizes, each run sorted stably in the merge's order; and the reference merge, the stable sort of
// their concatenation (std::stable_sort with compare_ranks, the layout as it is: bare floats by their
// bits, records' NaNs equal), which is what a stable merge of the runs in order must give.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "core/record_layout.hpp"
#include "host/merge_run.hpp"
#include "tests/host/record_test_layouts.hpp"

namespace rmgsort::testing {

struct TestRuns {
  RecordLayout layout;
  std::vector<std::byte> records;      // the runs one after the other, each sorted
  std::vector<std::uint64_t> firsts;   // run i's first record in `records`
  std::vector<std::uint64_t> counts;

  // The runs as the merge reads them: positions counted from their place in the concatenation.
  [[nodiscard]] std::vector<MergeRun> views() const {
    std::vector<MergeRun> runs;
    const std::size_t size = layout.record_size;
    for (std::size_t i = 0; i < counts.size(); ++i)
      runs.push_back({records.data() + firsts[i] * size, counts[i], size, false, firsts[i]});
    return runs;
  }
  [[nodiscard]] std::uint64_t total() const { return records.size() / layout.record_size; }
};

// COUNTS[i] records in run i, from random_records(LAYOUT, total, SEED), each run sorted in ORDER.
inline TestRuns make_runs(const RecordLayout& layout, SortOrder order, const std::vector<std::uint64_t>& counts,
                          std::uint64_t seed) {
  TestRuns runs{layout, {}, {}, counts};
  std::uint64_t total = 0;
  for (std::uint64_t count : counts) {
    runs.firsts.push_back(total);
    total += count;
  }
  const std::vector<std::byte> records = random_records(layout, std::size_t(total), seed);
  const std::size_t size = layout.record_size;
  runs.records.resize(records.size());
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const std::vector<std::byte> run(records.begin() + std::ptrdiff_t(runs.firsts[i] * size),
                                     records.begin() + std::ptrdiff_t((runs.firsts[i] + counts[i]) * size));
    const std::vector<std::uint64_t> order_of = stable_argsort(run, layout, order);
    for (std::size_t j = 0; j < order_of.size(); ++j)
      std::memcpy(runs.records.data() + (runs.firsts[i] + j) * size, run.data() + order_of[j] * size, size);
  }
  return runs;
}

// The stable merge of RUNS: the positions (in their concatenation) in merged order.
inline std::vector<std::uint64_t> reference_merge_positions(const TestRuns& runs, SortOrder order) {
  return stable_argsort(runs.records, runs.layout, order);
}

// The records at POSITIONS of RUNS' concatenation, in that order.
inline std::vector<std::byte> gather(const TestRuns& runs, const std::vector<std::uint64_t>& positions) {
  const std::size_t size = runs.layout.record_size;
  std::vector<std::byte> out(positions.size() * size);
  for (std::size_t j = 0; j < positions.size(); ++j)
    std::memcpy(out.data() + j * size, runs.records.data() + positions[j] * size, size);
  return out;
}

}  // namespace rmgsort::testing
