#!/usr/bin/env bash
# The spill in memory, before and after, in the same run: COUNT records of 100 bytes with a bytes:10
# key (the gensort layout) in DIR (default /dev/shm), sorted by the CPU (`--gpus none`) with
# --host-memory HOST_MEMORY (default 2G: for 10M records the plan keeps the spill in memory, 7
# rounds), by two binaries in turn, REPEAT times each (default 3). Prints a table of each run's wall
# seconds, spill pass (read, classify, write the spill), sorts, the rest (rounds read back and the
# output written) and peak resident memory, then each binary's median and best; every output is
# checked. Nothing here is a test.
# Usage: scripts/bench_spill_memory.sh BEFORE_BINARY AFTER_BINARY [COUNT] [REPEAT] [DIR]
set -euo pipefail
before=$1
after=$2
count=${3:-10M}
repeat=${4:-3}
dir=${5:-/dev/shm}
host_memory=${HOST_MEMORY:-2G}
in="$dir/rmgsort-bench-spill-memory.in"
output="$dir/rmgsort-bench-spill-memory.out"
stats=$(mktemp)
times=$(mktemp)
rows=$(mktemp)
trap 'rm -f "$in" "$output" "$stats" "$times" "$rows"' EXIT

"$after" generate -o "$in" -t bytes:10 --record-size 100 --count "$count" --seed 7
echo "# $count records of 100 bytes, bytes:10, $dir to $dir, --gpus none --host-memory $host_memory; $(nproc) cores, $(date -u +%F)"
echo "| binary | wall s | spill pass s | sorts s | rounds read + write s | rounds | spill in memory | peak RSS MiB |"
echo "|---|---|---|---|---|---|---|---|"
for ((i = 0; i < repeat; i++)); do
  for which in before after; do
    binary=$before
    [[ $which == after ]] && binary=$after
    /usr/bin/time -f "%e %M" -o "$times" "$binary" sort "$in" -o "$output" -t bytes:10 --record-size 100 --gpus none \
      --host-memory "$host_memory" --stats "$stats"
    "$after" check "$output" -t bytes:10 --record-size 100 --input "$in" >/dev/null
    python3 - "$stats" "$times" "$which" <<'PY' | tee -a "$rows"
import json, sys
s = json.load(open(sys.argv[1])); wall, rss = open(sys.argv[2]).read().split()[-2:]
p = s["phases_seconds"]
print(f"| {sys.argv[3]} | {float(wall):.2f} | {p['partition']:.2f} | {p['sort']:.2f} | {p['write']:.2f} | "
      f"{s['rounds']} | {s['plan']['spill_in_memory']} | {int(rss) / 1024:.0f} |")
PY
  done
done
python3 - "$rows" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    runs.setdefault(cells[0], []).append([float(c) for c in cells[1:5]])
print()
print("| binary | statistic | wall s | spill pass s | sorts s | rounds read + write s |")
print("|---|---|---|---|---|---|")
for name, values in runs.items():
    for label, f in (("median", statistics.median), ("best", min)):
        print(f"| {name} | {label} of {len(values)} | " + " | ".join(f"{f(v[i] for v in values):.2f}" for i in range(4)) + " |")
PY
