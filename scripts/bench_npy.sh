#!/usr/bin/env bash
# A .npy file against the same raw file (issue 13's target: the .npy sort costs at most 1.02x the
# raw one): COUNT u64 keys (default 2G = 2e9, uniform) generated twice with the same seed, as
# DIR/…u64 and DIR/….npy (the same data after a 128-byte header), each sorted REPEATS times
# (default 3) in turn, file to file in DIR (default /dev/shm), with every GPU; the median of each
# and their ratio in one table. Both outputs are checked (rmgsort check). Nothing here is a test.
# Usage: scripts/bench_npy.sh [COUNT] [REPEATS] [DIR]
# Binary: $RMGSORT (default build/app/rmgsort; scripts/gpu_host_run.sh sets it on a GPU host).
# Memory: both inputs and one output in DIR (24 bytes a key: each run's output is removed before the
# next run, so two outputs never coexist), and the sort's own.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rmgsort=${RMGSORT:-$root/build/app/rmgsort}
count=${1:-2G}
repeats=${2:-3}
dir=${3:-/dev/shm}
raw="$dir/rmgsort-bench-npy.u64"
npy="$dir/rmgsort-bench-npy.npy"
sorted_file="$dir/rmgsort-bench-npy.out"
trap 'rm -f "$raw" "$npy" "$sorted_file" "$sorted_file.npy"' EXIT

"$rmgsort" generate -o "$raw" -t u64 --count "$count" --seed 11 --progress never
"$rmgsort" generate -o "$npy" -t u64 --count "$count" --seed 11 --progress never
seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }'; }
median() { tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
raw_times=() npy_times=()
for ((r = 0; r < repeats; ++r)); do
  rm -f "$sorted_file.npy"
  raw_times+=("$(seconds "$rmgsort" sort "$raw" -o "$sorted_file" -t u64 --progress never)")
  ((r < repeats - 1)) || "$rmgsort" check "$sorted_file" -t u64 --input "$raw" >/dev/null
  rm -f "$sorted_file"
  npy_times+=("$(seconds "$rmgsort" sort "$npy" -o "$sorted_file.npy" --progress never)")
done
"$rmgsort" check "$sorted_file.npy" --input "$npy" >/dev/null
raw_s=$(echo "${raw_times[*]}" | median)
npy_s=$(echo "${npy_times[*]}" | median)
echo "## .npy against raw, $(date -u +%Y-%m-%d)"
echo
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
machine="no GPU"
[[ ${gpus:-0} -gt 0 ]] && machine="$gpus x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
echo "Machine: $machine, $(nproc) CPU threads; $count u64 keys, uniform, $dir to $dir; median of $repeats runs each, alternating."
echo
echo "| input | seconds (runs) | ratio to raw |"
echo "|---|---|---|"
echo "| raw u64 | $raw_s (${raw_times[*]}) | 1.000 |"
echo "| .npy <u8 | $npy_s (${npy_times[*]}) | $(awk -v a="$npy_s" -v b="$raw_s" 'BEGIN { printf "%.3f", a / b }') |"
