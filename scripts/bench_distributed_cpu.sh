#!/usr/bin/env bash
# The distributed sort's phases on the CPU path, on one machine: the same input sorted by one
# process (rmgsort sort --gpus none), by -np 1 and by -np 2 (mpirun ... sort --distributed), for each binary
# given (e.g. a build of main kept aside, and this tree's), alternating, median of REPEATS runs
# (default 3). The phases come from --stats' "distributed" member (the slowest rank's); wall is the
# process's, mpirun's start-up included. Every output is compared byte for byte with the one
# process's. Prints a Markdown table (bench_results/). Nothing here is a test. The ranks run with
# --bind-to none (Open MPI binds each rank to one core by default where it starts 2 or fewer, and a
# rank's threads would then share that core) and share the machine's threads (--threads nproc/np),
# as ranks on machines of their own would have each its own.
# Usage: scripts/bench_distributed_cpu.sh [REPEATS] [DIR] [CASES]
#   DIR: where the files go (default /dev/shm); CASES: space-separated TYPE:COUNT[:RECORD_SIZE]
#   (default "u64:30000000 u32:50000000 u64:15000000:16")
# Binaries: $RMGSORT_BINARIES, space-separated NAME=PATH (default this=build-cpu-only/app/rmgsort).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binaries=${RMGSORT_BINARIES:-this=$root/build-cpu-only/app/rmgsort}
repeats=${1:-3}
dir=${2:-/dev/shm}
cases=${3:-"u64:30000000 u32:50000000 u64:15000000:16"}
input="$dir/rmgsort-bench-dcpu.in"
one="$dir/rmgsort-bench-dcpu.one"
output="$dir/rmgsort-bench-dcpu.out"
stats="$dir/rmgsort-bench-dcpu.stats"
rows="$dir/rmgsort-bench-dcpu.rows"
trap 'rm -f "$input" "$one" "$output" "$stats".* "$rows"' EXIT
command -v mpirun >/dev/null || { echo "needs mpirun (Open MPI)" >&2; exit 1; }
first_binary=${binaries%% *}
first_binary=${first_binary#*=}

seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }'; }

echo "## Distributed sort on the CPU: one process against -np 1 and -np 2, $(date -u +%Y-%m-%d)"
echo
echo "Machine: $(nproc) CPU threads, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'),"
echo "$(free -g | awk '/^Mem:/ { print $2 }') GiB; files in $dir; load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "Median of $repeats runs, alternating; phases in seconds, the slowest rank's; wall: the process's, mpirun's start-up included."
echo
echo "| case | binary | run | wall s | splitters s (levels) | classify s | exchange s (rounds) | read s | sort s | write s |"
echo "|---|---|---|---|---|---|---|---|---|---|"
: >"$rows"
for entry in $cases; do
  IFS=: read -r type count record <<<"$entry"
  record_args=()
  [[ -n ${record:-} ]] && record_args=(--record-size "$record")
  name="$type x $count${record:+ (records of $record bytes)}"
  "$first_binary" generate -o "$input" -t "$type" --count "$count" "${record_args[@]}" --seed 5 --progress never
  for ((r = 0; r < repeats; ++r)); do
    for binary in $binaries; do
      label=${binary%%=*}
      path=${binary#*=}
      wall=$(seconds "$path" sort "$input" -t "$type" "${record_args[@]}" -o "$one" --gpus none --progress never)
      echo "$name|$label|1 process|$wall|-" >>"$rows"
      for np in 1 2; do
        wall=$(seconds mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" "$path" sort --distributed "$input" -t "$type" \
          "${record_args[@]}" -o "$output" --threads "$(( $(nproc) / np > 0 ? $(nproc) / np : 1 ))" --gpus none --progress never --stats "$stats.$r")
        cmp -s "$one" "$output" || { echo "$name: $label -np $np differs from one process" >&2; exit 1; }
        echo "$name|$label|-np $np|$wall|$stats.$r" >>"$rows"
        python3 - "$stats.$r" >>"$rows" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["distributed"]
get = lambda k: max(d.get(k, [0]) or [0])
print(f"#{get('splitter_seconds')} {d['splitter_levels']} {get('classify_seconds')} {get('exchange_seconds')} "
      f"{max(d['exchange_rounds'])} {get('read_seconds')} {get('sort_seconds')} {get('write_seconds')}")
PY
      done
    done
  done
done
python3 - "$rows" <<'PY'
import statistics, sys
rows, order = {}, []
lines = open(sys.argv[1]).read().split("\n")
for i, line in enumerate(lines):
    if not line or line.startswith("#"):
        continue
    case, label, run, wall, stats = line.split("|")
    key = (case, label, run)
    if key not in rows:
        rows[key] = {"wall": [], "phases": []}
        order.append(key)
    rows[key]["wall"].append(float(wall))
    if stats != "-":
        rows[key]["phases"].append([float(x) for x in lines[i + 1][1:].split()])
med = statistics.median
for key in order:
    case, label, run = key
    r = rows[key]
    cells = [f"{med(r['wall']):.2f}"]
    if r["phases"]:
        p = list(zip(*r["phases"]))
        cells += [f"{med(p[0]):.2f} ({int(p[1][0])})", f"{med(p[2]):.2f}", f"{med(p[3]):.2f} ({int(med(p[4]))})",
                  f"{med(p[5]):.2f}", f"{med(p[6]):.2f}", f"{med(p[7]):.2f}"]
    else:
        cells += ["-"] * 6
    print(f"| {case} | {label} | {run} | " + " | ".join(cells) + " |")
PY
