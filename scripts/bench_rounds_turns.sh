#!/usr/bin/env bash
# rmgsort sort of a file larger than --gpu-memory (partitioned into rounds in host memory, each
# sorted on the GPUs) from DIR to DIR, `cp` of the same file measured in each turn as the baseline,
# and, when $BEFORE names another rmgsort binary, that one too: the contenders take turns REPEATS
# times (rmgsort's two going first in turn), and the first turn checks that both wrote the same
# bytes. Prints a markdown table: wall seconds, the ratio to that turn's `cp`, the rounds and the
# phases from --stats (the read includes its wait for the output's pages when the rounds are
# partitioned into them: output_pages_reserve_waited_seconds). Nothing here is a test.
# Usage: [BEFORE=BINARY] scripts/bench_rounds_turns.sh [COUNT] [TYPE] [DIR] [GPU_MEMORY] [REPEATS]
#   defaults: 2147483648 u64 /dev/shm 2G 3 (16 GiB of u64 keys in 34 rounds on one GPU)
# Needs host memory for the keys four times over (the input and output files, the keys and the copy)
# and room in DIR for three files of the keys' size. Binaries: $RMGSORT (default build/app/rmgsort).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rmgsort=${RMGSORT:-$root/build/app/rmgsort}
before=${BEFORE:-}
count=${1:-2147483648}
type=${2:-u64}
dir=${3:-/dev/shm}
gpu_memory=${4:-2G}
repeats=${5:-3}
in="$dir/rmgsort-bench-rounds.$type"
sorted_file="$dir/rmgsort-bench-rounds-sorted.$type"
first_sorted="$dir/rmgsort-bench-rounds-first.$type"
copy="$dir/rmgsort-bench-rounds-copy.$type"
work=$(mktemp -d)
trap 'rm -rf "$in" "$sorted_file" "$first_sorted" "$copy" "$work"' EXIT

now() { date +%s.%N; }
since() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.3f", e - s }'; }

"$rmgsort" generate -o "$in" -t "$type" --count "$count" --dist uniform --seed 8 --progress never
bytes=$(stat -c %s "$in")
# Twice the keys (the input and the partition) and a margin: the rounds path, not spill files.
host_memory=${HOST_MEMORY:-$((bytes * 3))}
echo "# rmgsort sort of $count $type keys ($((bytes >> 20)) MiB) in $dir ($(stat -f -c %T "$dir")), --gpu-memory $gpu_memory, $(date -u +%F)"
echo "| turn | contender | seconds | / cp | rounds | read s | reserve waited s | partition s | sort s | write s | in output's pages |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for turn in $(seq 1 "$repeats"); do
  rm -f "$copy"
  start=$(now)
  cp "$in" "$copy"
  cp_s=$(since "$start")
  rm -f "$copy"
  echo "| $turn | cp | $cp_s | 1.00x | | | | | | | |"
  contenders="after ${before:+before}"
  ((turn % 2 == 0)) && contenders="${before:+before} after"  # each goes first in turn
  for contender in $contenders; do
    binary=$rmgsort
    [[ $contender == before ]] && binary=$before
    rm -f "$sorted_file"
    start=$(now)
    "$binary" sort "$in" -t "$type" -o "$sorted_file" --gpus all --gpu-memory "$gpu_memory" --host-memory "$host_memory" \
      --progress never --stats "$work/stats.json"
    seconds=$(since "$start")
    python3 - "$work/stats.json" "$turn" "$contender" "$seconds" "$cp_s" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
turn, name, seconds, cp_s = sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
phases = stats["phases_seconds"]
f = lambda value: "" if value is None else f"{value:.2f}"
print(f"| {turn} | rmgsort ({name}) | {seconds:.3f} | {seconds / cp_s:.2f}x | {stats['rounds']} | {f(phases['read'])} | "
      f"{f(stats.get('output_pages_reserve_waited_seconds'))} | {f(phases['partition'])} | {f(phases['sort'])} | "
      f"{f(phases['write'])} | {stats.get('sorted_in_output_file')} |")
PY
    if ((turn == 1)) && [[ -n $before ]]; then
      if [[ -e $first_sorted ]]; then
        cmp -s "$first_sorted" "$sorted_file" || { echo "the two binaries' outputs differ" >&2; exit 1; }
        rm -f "$first_sorted"
      else
        mv "$sorted_file" "$first_sorted"
      fi
    fi
  done
done
"$rmgsort" check "$sorted_file" -t "$type" --progress never >/dev/null && echo "The last output is sorted (rmgsort check)."
