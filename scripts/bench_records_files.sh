#!/usr/bin/env bash
# Sort Benchmark records end to end: COUNT records of 100 bytes with a bytes:10 key (rmgsort
# generate's gensort layout) in DIR (default /dev/shm), sorted by `rmgsort sort -t bytes:10
# --record-size 100` into DIR with --gpu-memory small enough for at least ROUNDS rounds (default 4),
# beside `cp` of the same file in the same run. Prints a table; nothing here is a test. The output is
# checked (rmgsort check --input).
# Usage: scripts/bench_records_files.sh [COUNT] [ROUNDS] [DIR]   (default 300M records: 30 GB)
# Binaries: $RMGSORT (default build/app/rmgsort; scripts/gpu_host_run.sh sets it on a GPU host).
# Memory: the input and the output in DIR, and rmgsort's --host-memory (HOST_MEMORY, default: what
# /proc/meminfo says is available less both files and 8 GiB).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rmgsort=${RMGSORT:-$root/build/app/rmgsort}
count=${1:-300M}
rounds=${2:-4}
dir=${3:-/dev/shm}
in="$dir/rmgsort-bench-records.in"
sorted_file="$dir/rmgsort-bench-records.out"
copy="$dir/rmgsort-bench-records.copy"
stats=$(mktemp)
trap 'rm -f "$in" "$sorted_file" "$copy" "$stats"' EXIT

"$rmgsort" generate -o "$in" -t bytes:10 --record-size 100 --count "$count" --seed 7
bytes=$(stat -c %s "$in")
records=$((bytes / 100))
start=$(date +%s.%N); cp "$in" "$copy"; end=$(date +%s.%N)
cp_s=$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')
rm -f "$copy"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
available=$(($(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) * 1024))
host_memory=${HOST_MEMORY:-$((available - bytes - (8 << 30)))}
args=(-t bytes:10 --record-size 100 --host-memory "$host_memory" --stats "$stats")
if [[ ${gpus:-0} -gt 0 ]]; then
  # Each GPU holds its share of a round's tags (8 bytes each) twice, and a little more: a round of
  # records / ROUNDS tags spread over every GPU.
  gpu_memory=$(( records / rounds * 8 * 23 / 10 / gpus + (64 << 20) ))
  args+=(--gpus all --gpu-memory "$gpu_memory")
fi
start=$(date +%s.%N); "$rmgsort" sort "$in" -o "$sorted_file" "${args[@]}"; end=$(date +%s.%N)
sort_s=$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')
"$rmgsort" check "$sorted_file" -t bytes:10 --record-size 100 --input "$in" >/dev/null
python3 - "$stats" "$cp_s" "$sort_s" "$bytes" "$dir" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); cp_s, sort_s, gb, where = float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]) / 1e9, sys.argv[5]
p = s["phases_seconds"]
print(f"# Sort Benchmark records: {s['records']} x 100 bytes ({gb:.1f} GB), bytes:10 keys, {where} to {where}")
print(f"engine {s['engine']}, GPUs {s['gpus_selected']}, {s['rounds']} rounds, path {s['plan']['path']}, "
      f"spill in memory: {s['plan']['spill_in_memory']}")
print("| step | seconds | ratio to cp |")
print("|---|---|---|")
print(f"| cp FILE COPY (same run, baseline) | {cp_s:.2f} | 1.00 |")
print(f"| **rmgsort sort, wall** | **{sort_s:.2f}** | **{sort_s / cp_s:.2f}** |")
for name, key in [("  spill pass (read, classify, write)", "partition"), ("  sorts (tags, GPUs, gather)", "sort"),
                  ("  write not hidden", "write")]:
    print(f"| {name} | {p[key]:.2f} | |")
PY
