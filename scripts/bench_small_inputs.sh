#!/usr/bin/env bash
# Where the GPUs start to pay: for inputs of growing size, the whole process's wall time (start-up,
# read, sort, write) sorting with every GPU (--gpus all, forced onto the GPUs with an explicit list)
# against the CPU alone (--gpus none), file to file in DIR (default /dev/shm), median of REPEATS
# runs (default 5) each, alternating. The crossover is the size below which the CPU finishes first:
# it sets the default --gpus all's small-input threshold (sort/small_input.hpp). Nothing here is a test.
# Usage: scripts/bench_small_inputs.sh [REPEATS] [DIR] [LAYOUTS]
#   LAYOUTS: space-separated "NAME:SORT-OPTIONS" (default: bare u64 keys, and 16-byte records with
#   a u64 key, and 100-byte records with a bytes:10 key)
# Binary: $RMGSORT (default build/app/rmgsort; scripts/gpu_host_run.sh sets it on a GPU host).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rmgsort=${RMGSORT:-$root/build/app/rmgsort}
repeats=${1:-5}
dir=${2:-/dev/shm}
layouts=${3:-"u64:-t u64|16-byte records:-t u64 --record-size 16|100-byte records:-t bytes:10 --record-size 100"}
input="$dir/rmgsort-bench-small.in"
sorted_file="$dir/rmgsort-bench-small.out"
trap 'rm -f "$input" "$sorted_file"' EXIT
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[[ ${gpus:-0} -gt 0 ]] || { echo "no GPU: nothing to compare" >&2; exit 1; }
gpu_list=$(seq -s, 0 $((gpus - 1)))

seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); awk -v s="$start" -v e="$end" 'BEGIN { printf "%.4f", e - s }'; }
median() { tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "## Small inputs: every GPU against the CPU alone, $(date -u +%Y-%m-%d)"
echo
echo "Machine: $gpus x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) CPU threads; $dir to $dir;"
echo "process wall time (start-up included), median of $repeats runs each, alternating."
echo
echo "| layout | records | bytes | GPUs s (--gpus $gpu_list) | CPU s (--gpus none) | GPUs / CPU |"
echo "|---|---|---|---|---|---|"
IFS='|' read -ra layout_list <<<"$layouts"
for entry in "${layout_list[@]}"; do
  name=${entry%%:*}
  read -ra options <<<"${entry#*:}"
  for count in 1000 100000 1000000 4000000 16000000 64000000 256000000; do
    "$rmgsort" generate -o "$input" "${options[@]}" --count "$count" --seed 3 --progress never
    bytes=$(stat -c %s "$input")
    ((bytes <= 8000000000)) || continue
    gpu_times=() cpu_times=()
    for ((r = 0; r < repeats; ++r)); do
      gpu_times+=("$(seconds "$rmgsort" sort "$input" -o "$sorted_file" "${options[@]}" --gpus "$gpu_list" --progress never)")
      cpu_times+=("$(seconds "$rmgsort" sort "$input" -o "$sorted_file" "${options[@]}" --gpus none --progress never)")
    done
    gpu_s=$(echo "${gpu_times[*]}" | median)
    cpu_s=$(echo "${cpu_times[*]}" | median)
    echo "| $name | $count | $bytes | $gpu_s | $cpu_s | $(awk -v a="$gpu_s" -v b="$cpu_s" 'BEGIN { printf "%.2f", a / b }') |"
  done
done
