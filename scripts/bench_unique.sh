#!/usr/bin/env bash
# What --unique costs: `rmgsort sort IN -o OUT -t TYPE --unique` against the same sort without
# --unique, in the same turn (the baseline), and, when $BEFORE names another rmgsort binary, its
# --unique too; the contenders take turns REPEATS times. The keys are uniform over DIST (default
# bits:28 for 2^28 distinct values: ~1/e of 2^28 keys are duplicates), so that the records --unique
# keeps have to close up throughout. Prints a markdown table: wall seconds, the ratio to the sort
# without --unique, the sort and write phases (--stats; --unique is timed with the write) and the
# duplicates dropped. The --unique outputs are compared with each other and checked in order.
# Usage: scripts/bench_unique.sh [WORK_DIR (/dev/shm)] [LOG2_KEYS (28)] [TYPE (u64)] [REPEATS (3)] [DIST (bits:28)]
# Binaries: $RMGSORT (default build/app/rmgsort), $BEFORE. $GPUS is --gpus (default none; "0" or
# "0,1" sorts on GPUs), $THREADS --threads when set; $OPTIONS more options for every sort (e.g.
# "--gpu-memory 2G" for rounds).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rmgsort=${RMGSORT:-$root/build/app/rmgsort}
before=${BEFORE:-}
work=$(mktemp -d "${1:-/dev/shm}/rmgsort-unique-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
log2=${2:-28}
type=${3:-u64}
repeats=${4:-3}
dist=${5:-bits:28}
options=(--gpus "${GPUS:-none}")
[[ -n ${THREADS:-} ]] && options+=(--threads "$THREADS")
read -r -a extra <<<"${OPTIONS:-}"
options+=("${extra[@]}")

echo "# --unique, 2^$log2 $type keys ($dist) in $(dirname "$work"), $(date -u +%Y-%m-%d), $(nproc) cores, --gpus ${GPUS:-none}${THREADS:+, --threads $THREADS}${OPTIONS:+, $OPTIONS}"
"$rmgsort" generate -o "$work/in" -t "$type" --count $((1 << log2)) --dist "$dist" --seed 11
cat "$work/in" >/dev/null

row() {  # STATS.json -> "wall | sort / write | dropped"
  python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); p = d["phases_seconds"]; dropped = d.get("duplicates_dropped")
print("%.3f | %.2f / %.2f | %s" % (d["wall_seconds"], p["sort"], p["write"], "" if dropped is None else dropped))' "$1"
}

echo
echo "| turn | contender | seconds | / without --unique | sort / write s | duplicates dropped |"
echo "|---|---|---|---|---|---|"
for turn in $(seq 1 "$repeats"); do
  rm -f "$work/plain"
  "$rmgsort" sort "$work/in" -o "$work/plain" -t "$type" "${options[@]}" --stats "$work/plain.json"
  IFS='|' read -r plain_seconds plain_phases _ <<<"$(row "$work/plain.json")"
  echo "| $turn | without --unique | $plain_seconds | 1.00x | $plain_phases | |"
  contenders="${before:+before} after"
  (( turn % 2 == 0 )) && contenders="after ${before:+before}"  # each goes first in turn
  for contender in $contenders; do
    binary=$rmgsort
    [[ $contender == before ]] && binary=$before
    rm -f "$work/$contender"
    "$binary" sort "$work/in" -o "$work/$contender" -t "$type" "${options[@]}" --unique --stats "$work/$contender.json"
    IFS='|' read -r seconds phases dropped <<<"$(row "$work/$contender.json")"
    echo "| $turn | --unique ($contender) | $seconds | $(python3 -c "print('%.2fx' % ($seconds / $plain_seconds))") | $phases | $dropped |"
  done
  "$rmgsort" check "$work/after" -t "$type" >/dev/null || { echo "bench: the --unique output is out of order" >&2; exit 1; }
  if [[ -n $before ]] && ! cmp -s "$work/before" "$work/after"; then
    echo "bench: the two --unique outputs differ" >&2
    exit 1
  fi
done
