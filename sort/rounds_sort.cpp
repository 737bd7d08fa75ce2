#include "sort/rounds_sort.hpp"

#include "app/stopwatch.hpp"

namespace rmgsort {

RoundsReport sort_in_rounds(KeyType type, const std::byte* input, std::byte* partitioned, std::uint64_t count,
                            SortOrder order, std::uint64_t round_capacity,
                            const std::function<void(std::byte* keys, std::uint64_t count)>& sort_round,
                            const std::function<void(std::span<const std::byte> round)>& sorted,
                            const std::function<void()>& on_partitioned,
                            const std::function<void(std::uint64_t done, std::uint64_t total)>& on_rounds,
                            const TopDigitHistogram* top_digits) {
  RoundsReport report;
  const std::size_t width = key_width(type);
  Stopwatch phase;
  const RoundPlan plan = visit_key_type(type, [&]<class T>(T) {
    return partition_into_rounds(reinterpret_cast<const T*>(input), reinterpret_cast<T*>(partitioned), count, order,
                                 round_capacity, &report.partition, top_digits);
  });
  if (on_partitioned) on_partitioned();
  report.partition_seconds = phase.lap();
  if (on_rounds) on_rounds(0, plan.rounds());
  for (std::size_t r = 0; r < plan.rounds(); ++r) {
    std::byte* keys = partitioned + plan.cuts[r] * width;
    const std::uint64_t n = plan.round_keys(r);
    sort_round(keys, n);
    report.round_sort_seconds.push_back(phase.lap());
    sorted(std::span<const std::byte>(keys, n * width));
    report.round_handoff_seconds.push_back(phase.lap());
    report.round_keys.push_back(n);
    if (on_rounds) on_rounds(r + 1, plan.rounds());
  }
  return report;
}

}  // namespace rmgsort
