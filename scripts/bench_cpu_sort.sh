#!/usr/bin/env bash
# CPU sort targets, measured in one run on this machine (prints tables; nothing here is a test):
#  1. 2^LOG2 (default 26) keys in memory, u32, u64 and f64 of five distributions: rmgsort's radix
#     sort (in place), the out-of-place radix sort it replaced (legacy: the baseline), tbb::parallel_sort
#     and std::sort of the same keys (cpu_sort_bench table), best of REPEATS (default 3) runs.
#  2. 2^26-key u32 and 2^25-key u64 files: `rmgsort sort --gpus none` end to end vs reading the file,
#     sorting it with tbb::parallel_sort and writing it (cpu_sort_bench file-baseline), both from the
#     page cache, best of 3.
# Usage: scripts/bench_cpu_sort.sh [WORK_DIR] [LOG2_KEYS] [REPEATS]
# Binaries: $RMGSORT and $BENCH_DIR (default build/app/rmgsort, build/tests/bench), as set by gpu_host_run.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rmgsort=${RMGSORT:-$root/build/app/rmgsort}
bench=${CPU_SORT_BENCH:-$(dirname "$rmgsort")/../tests/bench/cpu_sort_bench}
[[ -x $bench ]] || bench=$(command -v cpu_sort_bench)
work=$(mktemp -d "${1:-${TMPDIR:-/tmp}}/rmgsort-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
log2=${2:-26}
repeats=${3:-3}

echo "# CPU sort benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
"$bench" table "$log2" "$repeats"
echo
echo "# load average after the table: $(cut -d' ' -f1-3 /proc/loadavg)"

best() { sort -g | head -1; }
file_case() {  # TYPE LOG2
  local type=$1 keys=$((1 << $2)) baseline ours
  "$rmgsort" generate -o "$work/in.$type" -t "$type" --count "$keys" --dist uniform --seed 7
  cat "$work/in.$type" >/dev/null  # both contenders read from the page cache
  baseline=$(for _ in 1 2 3; do "$bench" file-baseline "$work/in.$type" "$work/baseline.$type" "$type" | cut -d= -f2; done | best)
  ours=$(for _ in 1 2 3; do
    "$rmgsort" sort "$work/in.$type" -o "$work/ours.$type" -t "$type" --gpus none --stats "$work/stats.json"
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wall_seconds"])' "$work/stats.json"
  done | best)
  cmp -s "$work/baseline.$type" "$work/ours.$type" || { echo "bench: outputs differ ($type)" >&2; exit 1; }
  local phases
  phases=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["phases_seconds"])' "$work/stats.json")
  printf '| %-60s | %10.3f | %10.3f | %6.2fx |\n' "2^$2 $type file: read+parallel_sort+write vs sort --gpus none" \
    "$baseline" "$ours" "$(python3 -c "print($baseline/$ours)")"
  phase_lines+=("# rmgsort phases, 2^$2 $type (last run): $phases")
  rm -f "$work"/*."$type"
}
phase_lines=()
printf '| %-60s | %10s | %10s | %7s |\n' "case" "baseline s" "rmgsort s" "speedup"
printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..62})" "------------" "------------" "---------"
file_case u32 26
file_case u64 25
printf '%s\n' "${phase_lines[@]}"
