#!/usr/bin/env bash
# rmgsort sort of a file already in the page cache, end to end, on every GPU (or the CPU where
# there is none), beside `cat FILE > /dev/null` measured in the same run. Prints a table with the
# wall time split into read, GPU allocation, sort and write (from --stats). Nothing here is a test.
# Usage: scripts/bench_file_sort.sh [COUNT] [TYPE] [DIR]   (default 4G u32 in /dev/shm: 16 GB)
# Binaries: $RMGSORT (default build/app/rmgsort; scripts/gpu_host_run.sh sets it on a GPU host).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rmgsort=${RMGSORT:-$root/build/app/rmgsort}
count=${1:-4G}
type=${2:-u32}
dir=${3:-/dev/shm}
in="$dir/rmgsort-bench-file.$type"
sorted_file="$dir/rmgsort-bench-file-sorted.$type"
stats=$(mktemp)
trap 'rm -f "$in" "$sorted_file" "$stats"' EXIT

"$rmgsort" generate -o "$in" -t "$type" --count "$count" --dist uniform --seed 5
bytes=$(stat -c %s "$in")
cat "$in" >/dev/null
start=$(date +%s.%N); cat "$in" >/dev/null; end=$(date +%s.%N)
cat_s=$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')
# --host-memory: on virtual machines memory grows as it is touched, so the default reads low.
host_memory=$(( bytes * 3 ))
"$rmgsort" sort "$in" -o "$sorted_file" -t "$type" --gpus all --host-memory "$host_memory" --stats "$stats"
"$rmgsort" check "$sorted_file" -t "$type" --input "$in" >/dev/null
python3 - "$stats" "$cat_s" "$bytes" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); cat_s = float(sys.argv[2]); gb = int(sys.argv[3]) / 1e9
p = s["phases_seconds"]
print(f"# rmgsort sort of a cached {gb:.1f} GB {s['key_type']} file, engine {s['engine']}, GPUs {s['gpus_selected']}")
print("| step | seconds | GB/s |")
print("|---|---|---|")
print(f"| cat FILE > /dev/null (same run) | {cat_s:.3f} | {gb / cat_s:.2f} |")
for name, key in [("read (into page-locked memory, page-locking included)", "read"), ("GPU allocation", "gpu_allocate"),
                  ("sort", "sort"), ("write", "write")]:
    print(f"| {name} | {p[key]:.3f} | {gb / p[key] if p[key] else 0:.2f} |")
print(f"| **wall, end to end** | **{s['wall_seconds']:.3f}** | {gb / s['wall_seconds']:.2f} |")
if s["engine"] == "gpu":
    g = s["gpu"]
    print(f"\nGPU sort: {g['total_seconds'] * 1e3:.1f} ms device time, {g['passes']} pass(es), {g['buckets']} buckets")
    locked = g.get("host_page_locking")
    if locked:
        print(f"page-locked beside the {locked['beside']}: {locked['bytes'] / 1e9:.1f} GB in {locked['seconds']:.3f} s, "
              f"waited {locked['waited_seconds']:.3f} s after it" + (f"; FAILED: {locked['failure']}" if locked["failure"] else ""))
    else:
        print("page-locked before the read (not beside it)")
else:
    print(f"\nCPU because: {s.get('cpu_because')}")
PY
