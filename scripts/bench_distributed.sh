#!/usr/bin/env bash
# Issue 16's benchmark, on a machine with 2 GPUs (and Open MPI's mpirun): the same input sorted by
# one process on both GPUs (--gpus 0,1) and by 2 ranks of one GPU each (mpirun -np 2, --gpus by local
# rank), in DIR (default /dev/shm), alternating, median of REPEATS runs (default 3); the target is
# 2 ranks <= 1.25 x one process. Each rank's phases and the exchange's bandwidth come from --stats
# (its "distributed" member): bytes sent to the other rank over the exchange's seconds, to compare
# with the GPUs' link (NVLink, or PCIe) bandwidth. Both outputs are compared byte for byte. Prints a
# Markdown table (bench_results/). Nothing here is a test. The ranks run with --bind-to none: Open
# MPI binds each rank to one core by default where it starts 2 or fewer, and every thread of a rank
# (the exchange's classification and staging, the GPUs' host work) would share that core.
# Usage: scripts/bench_distributed.sh [REPEATS] [DIR] [CASES]
#   CASES: space-separated TYPE:COUNT (default "u32:4000000000 u64:4000000000")
# Binary: $RMGSORT (default build/app/rmgsort); RMGSORT_EXCHANGE=mpi compares the host-memory exchange.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rmgsort=${RMGSORT:-$root/build/app/rmgsort}
repeats=${1:-3}
dir=${2:-/dev/shm}
cases=${3:-"u32:4000000000 u64:4000000000"}
input="$dir/rmgsort-bench-dist.in"
one="$dir/rmgsort-bench-dist.one"
two="$dir/rmgsort-bench-dist.two"
stats="$dir/rmgsort-bench-dist.json"
trap 'rm -f "$input" "$one" "$two" "$stats"' EXIT
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[[ ${gpus:-0} -ge 2 ]] || { echo "needs 2 GPUs, found ${gpus:-0}" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "needs mpirun (Open MPI)" >&2; exit 1; }

seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }'; }
median() { tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
two_ranks() {
  mpirun --allow-run-as-root --bind-to none -np 2 -x RMGSORT_EXCHANGE bash -c \
    'exec "$0" sort --distributed "$1" -t "$2" -o "$3" --gpus "$OMPI_COMM_WORLD_LOCAL_RANK" --progress never --stats "$4"' \
    "$rmgsort" "$input" "$1" "$two" "$stats"
}
export RMGSORT_EXCHANGE=${RMGSORT_EXCHANGE:-}

echo "## Distributed sort: 2 ranks x 1 GPU against 1 process x 2 GPUs, $(date -u +%Y-%m-%d)"
echo
echo "Machine: $gpus x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) CPU threads, $(hostname);"
echo "$dir to $dir; process wall time (mpirun's start-up included for 2 ranks), median of $repeats runs, alternating."
echo
echo "| case | 1 process s | 2 ranks s | ratio | exchange | exchange s | GB sent per rank | exchange GB/s | splitters s | read s | sort s | write s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for entry in $cases; do
  type=${entry%%:*}
  count=${entry#*:}
  "$rmgsort" generate -o "$input" -t "$type" --count "$count" --seed 5 --progress never
  one_times=() two_times=()
  for ((r = 0; r < repeats; ++r)); do
    one_times+=("$(seconds "$rmgsort" sort "$input" -t "$type" -o "$one" --gpus 0,1 --progress never)")
    two_times+=("$(seconds two_ranks "$type")")
  done
  cmp -s "$one" "$two" || { echo "| $type x $count | the outputs differ |"; continue; }
  one_s=$(echo "${one_times[*]}" | median)
  two_s=$(echo "${two_times[*]}" | median)
  python3 - "$stats" "$type x $count" "$one_s" "$two_s" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
d = s["distributed"]
sent = max(d["exchange_bytes_sent"]) / 1e9
ex = max(d["exchange_seconds"])
one, two = float(sys.argv[3]), float(sys.argv[4])
print(f"| {sys.argv[2]} | {one:.3f} | {two:.3f} | {two / one:.2f} | {d['exchange']} | {ex:.3f} | {sent:.2f} | "
      f"{sent / ex if ex else 0:.1f} | {max(d['splitter_seconds']):.3f} | {max(d['read_seconds']):.3f} | "
      f"{max(d['sort_seconds']):.3f} | {max(d['write_seconds']):.3f} |")
PY
done
