#!/usr/bin/env bash
# CPU records target (issue 12), measured in one run on this machine (prints a table; nothing here
# is a test): 2^LOG2 (default 27) records of (u64 key, u64 payload) in memory, the CPU engine (pairs) against
# tbb::parallel_sort of the same 16-byte structs by key, every core, each the median of 3 runs; one
# row with uniform keys, one with zipf:1.0 keys (heavy duplicates). "before": the pair sort as it
# was before its one-pass and logarithmic digits, in the same run.
# Usage: scripts/bench_records_cpu.sh [LOG2_RECORDS]
# Binary: $RECORD_SORT_BENCH (default build/tests/bench/record_sort_bench, else on PATH).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${RECORD_SORT_BENCH:-$root/build/tests/bench/record_sort_bench}
[[ -x $bench ]] || bench=$(command -v record_sort_bench)
log2=${1:-27}

echo "# CPU records benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
echo "Load average (1, 5, 15 min) before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
field() { sed -E "s/.* $1=([^ ]+).*/\1/" <<<"$2"; }
printf '\n| %-52s | %10s | %9s | %9s | %15s | %7s | %6s |\n' "case" "baseline s" "before s" "before x" "rmgsort s" \
  "speedup" "target"
printf '|%s|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..54})" "------------" "-----------" "-----------" \
  "-----------------" "---------" "--------"
for dist in uniform zipf:1.0; do
  line=$("$bench" "$log2" "$dist" 3)
  printf '| %-52s | %10.3f | %9.3f | %8.2fx | %15.3f | %6.2fx | %6s |\n' "2^$log2 (u64 key, u64 payload), $dist keys" \
    "$(field tbb_parallel_sort_s "$line")" "$(field before_s "$line")" "$(field before_speedup "$line")" \
    "$(field engine_s "$line")" "$(field speedup "$line")" ">= 5x"
  bytes=$(field extra_bytes_per_record "$line")
done
echo
echo "Baseline: tbb::parallel_sort of the 16-byte structs by key (in place). rmgsort: the CPU engine, in place."
echo "Before: the pair sort before its one-pass and logarithmic digits (tests/bench/stable_radix_sort_before.hpp)."
echo "Memory beside the records: $bytes bytes per record (the pairs and the sort's scratch)."
echo "Load average (1, 5, 15 min) after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
