#!/usr/bin/env bash
# rmgsort sort of a file larger than the GPUs' memory (--gpu-memory forces the rounds), from a
# file in DIR to an output in DIR, beside `cp` of the same file measured in the same run. Prints a
# markdown table: wall time, the ratio to cp, and the phase split from --stats (read, partition,
# GPU sorts of the rounds, the writing the sorts did not hide). Nothing here is a test.
# Usage: scripts/bench_out_of_core.sh [COUNT] [TYPE] [DIR] [GPU_MEMORY]
#   defaults: 8G u64 /dev/shm 8G (8e9 keys = 64 GB: at least 4 rounds on 4 GPUs of 8 GiB each)
# Needs host memory for the input, the output and twice the keys (partitioning buffer): 4x the file.
# Binaries: $RMGSORT (default build/app/rmgsort; scripts/device_run.sh sets it on the GPU machine).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rmgsort=${RMGSORT:-$root/build/app/rmgsort}
count=${1:-8G}
type=${2:-u64}
dir=${3:-/dev/shm}
gpu_memory=${4:-8G}
in="$dir/rmgsort-bench-ooc.$type"
out="$dir/rmgsort-bench-ooc-sorted.$type"
copy="$dir/rmgsort-bench-ooc-copy.$type"
stats=$(mktemp)
trap 'rm -f "$in" "$out" "$copy" "$stats"' EXIT

seconds_of() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.3f", e - s }'; }

"$rmgsort" generate -o "$in" -t "$type" --count "$count" --dist uniform --seed 8
bytes=$(stat -c %s "$in")
# cp first (it also touches the memory the output will take), then remove its copy.
start=$(date +%s.%N); cp "$in" "$copy"; end=$(date +%s.%N)
cp_s=$(seconds_of "$start" "$end")
rm -f "$copy"
host_memory=$((bytes * 3))  # the lent machines' memory grows as it is touched: the default reads low
start=$(date +%s.%N)
"$rmgsort" sort "$in" -o "$out" -t "$type" --gpus all --gpu-memory "$gpu_memory" --host-memory "$host_memory" \
  --stats "$stats"
end=$(date +%s.%N)
wall_s=$(seconds_of "$start" "$end")
"$rmgsort" check "$out" -t "$type" >/dev/null

python3 - "$stats" "$bytes" "$cp_s" "$wall_s" "$dir" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
size, cp_s, wall_s, where = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
phases = stats["phases_seconds"]
gpu = stats.get("gpu") or {}
print(f"# rmgsort sort of {size / 1e9:.1f} GB of {stats['key_type']} in {where}, engine {stats['engine']}, "
      f"GPUs {stats['gpus_selected']}, {stats['rounds']} rounds of at most {gpu.get('round_keys_planned', '?')} keys")
print("| step | seconds | GB/s |")
print("|---|---|---|")
def row(name, s):
    print(f"| {name} | {s:.3f} | {size / s / 1e9 if s > 0 else 0:.2f} |")
row("cp FILE COPY (same run)", cp_s)
row("read", phases["read"])
row("partition into rounds (CPU)", phases["partition"])
row("page-locking the partition buffer and GPU allocation", phases["gpu_allocate"])
row("sort of every round (GPUs, host memory to host memory)", phases["sort"])
row("write, beyond what the sorts hid", phases["write"])
row("**wall, end to end**", wall_s)
print(f"\nwall / cp = **{wall_s / cp_s:.2f}x** (target: at most 1.5x)")
print("round keys: " + ", ".join(str(k) for k in stats["round_keys"]))
print("round sort seconds: " + ", ".join(f"{s:.3f}" for s in stats["round_sort_seconds"]))
print("GPU device ms per round: " + ", ".join(f"{s:.1f}" for s in gpu.get("device_ms_per_sort", [])))
PY
