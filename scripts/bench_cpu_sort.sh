#!/usr/bin/env bash
# CPU sort targets, measured in one run on this machine (prints a table; nothing here is a test):
#  1. 2^LOG2 (default 28) uniform u32 keys in memory: radix_sort vs tbb::parallel_sort of the same keys.
#  2. A 2^26-key u32 file: `rmgsort sort --gpus none` end to end vs reading the file, sorting it with
#     tbb::parallel_sort and writing it (cpu_sort_bench file-baseline), both from the page cache.
# Usage: scripts/bench_cpu_sort.sh [WORK_DIR] [LOG2_KEYS]
# Binaries: $RMGSORT and $BENCH_DIR (default build/app/rmgsort, build/tests/bench), as set by gpu_host_run.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rmgsort=${RMGSORT:-$root/build/app/rmgsort}
bench=${CPU_SORT_BENCH:-$(dirname "$rmgsort")/../tests/bench/cpu_sort_bench}
[[ -x $bench ]] || bench=$(command -v cpu_sort_bench)
work=$(mktemp -d "${1:-${TMPDIR:-/tmp}}/rmgsort-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
log2=${2:-28}

echo "# CPU sort benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
memory=$("$bench" memory "$log2" 2)
echo "# $memory"

"$rmgsort" generate -o "$work/in.u32" -t u32 --count $((1 << 26)) --dist uniform --seed 7
cat "$work/in.u32" >/dev/null  # both contenders read from the page cache
best() { sort -g | head -1; }
baseline=$(for _ in 1 2 3; do "$bench" file-baseline "$work/in.u32" "$work/baseline.u32" | cut -d= -f2; done | best)
ours=$(for _ in 1 2 3; do
  "$rmgsort" sort "$work/in.u32" -o "$work/ours.u32" -t u32 --gpus none --stats "$work/stats.json"
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wall_seconds"])' "$work/stats.json"
done | best)
cmp -s "$work/baseline.u32" "$work/ours.u32" || { echo "bench: outputs differ" >&2; exit 1; }
echo "# rmgsort phases (last run): $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["phases_seconds"])' "$work/stats.json")"

tbb_s=$(sed -E 's/.*tbb_parallel_sort_s=([0-9.]+).*/\1/' <<<"$memory")
radix_s=$(sed -E 's/.*radix_sort_s=([0-9.]+).*/\1/' <<<"$memory")
printf '\n| %-60s | %10s | %10s | %7s | %6s |\n' "case" "baseline s" "rmgsort s" "speedup" "target"
printf '|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..62})" "------------" "------------" "---------" "--------"
printf '| %-60s | %10.3f | %10.3f | %6.2fx | %6s |\n' "2^$log2 u32 in memory: tbb::parallel_sort vs radix_sort" \
  "$tbb_s" "$radix_s" "$(python3 -c "print($tbb_s/$radix_s)")" ">= 5x"
printf '| %-60s | %10.3f | %10.3f | %6.2fx | %6s |\n' "2^26 u32 file: read+parallel_sort+write vs sort --gpus none" \
  "$baseline" "$ours" "$(python3 -c "print($baseline/$ours)")" ">= 3x"
