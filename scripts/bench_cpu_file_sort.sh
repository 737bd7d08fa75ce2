#!/usr/bin/env bash
# The CPU sort end to end, file to file (issue 17's figure: 2^30 u64 keys, /dev/shm to /dev/shm, >= 8x
# the baseline): `rmgsort sort IN -o OUT -t TYPE --gpus none` against `cpu_sort_bench file-baseline`
# (read, tbb::parallel_sort, write), and, when $BEFORE names another rmgsort binary, that one too, in
# the same run, the contenders taking turns REPEATS times (rmgsort's two going first in turn). Prints
# a markdown table: wall seconds, the speed-up over the baseline of that turn, rmgsort's read / sort /
# write phases (--stats; the write is what the sort did not hide) and the bytes written while the
# sort still ran. Outputs are compared.
# Usage: scripts/bench_cpu_file_sort.sh [WORK_DIR (/dev/shm)] [LOG2_KEYS (30)] [TYPE (u64)] [REPEATS (3)]
# Binaries: $RMGSORT (default build/app/rmgsort), $CPU_SORT_BENCH (default next to it), $BEFORE.
# $THREADS, when set, is rmgsort's --threads (the baseline takes every core).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rmgsort=${RMGSORT:-$root/build/app/rmgsort}
bench=${CPU_SORT_BENCH:-$(dirname "$rmgsort")/../tests/bench/cpu_sort_bench}
before=${BEFORE:-}
work=$(mktemp -d "${1:-/dev/shm}/rmgsort-file-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
log2=${2:-30}
type=${3:-u64}
repeats=${4:-3}
threads=()
[[ -n ${THREADS:-} ]] && threads=(--threads "$THREADS")

echo "# CPU file sort, 2^$log2 $type keys in $(dirname "$work"), $(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)${THREADS:+, rmgsort --threads $THREADS}"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$rmgsort" generate -o "$work/in" -t "$type" --count $((1 << log2)) --dist uniform --seed 7
cat "$work/in" >/dev/null

phases() {  # STATS.json -> "read / sort / write | written_while_sorting GiB"
  python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); p = d["phases_seconds"]
print("%.2f / %.2f / %.2f | %.2f" % (p["read"], p["sort"], p["write"], d.get("written_while_sorting_bytes", 0) / 2**30))' "$1"
}
wall() { python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["wall_seconds"])' "$1"; }

echo
echo "| turn | contender | seconds | speed-up | read / sort / write s | written while sorting GiB |"
echo "|---|---|---|---|---|---|"
for turn in $(seq 1 "$repeats"); do
  baseline=$("$bench" file-baseline "$work/in" "$work/baseline" "$type" | cut -d= -f2)
  echo "| $turn | read + tbb::parallel_sort + write | $baseline | 1.00x | | |"
  contenders="${before:+before} after"
  (( turn % 2 == 0 )) && contenders="after ${before:+before}"  # each goes first in turn
  for contender in $contenders; do
    binary=$rmgsort
    [[ $contender == before ]] && binary=$before
    rm -f "$work/out"
    "$binary" sort "$work/in" -o "$work/out" -t "$type" --gpus none "${threads[@]}" --stats "$work/stats.json"
    cmp -s "$work/baseline" "$work/out" || { echo "bench: $contender's output differs from the baseline's" >&2; exit 1; }
    seconds=$(wall "$work/stats.json")
    echo "| $turn | rmgsort ($contender) | $seconds | $(python3 -c "print('%.2fx' % ($baseline / $seconds))") | $(phases "$work/stats.json") |"
  done
  rm -f "$work/baseline" "$work/out"
done
echo
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
