#!/usr/bin/env bash
# rmgsort merge's two methods (app/merge_method.hpp) in the same run: COUNT records (default 256M u64
# keys: 2 GiB) cut into K sorted runs (made by `rmgsort sort` of consecutive slices) for each K in KS
# (default "2 8 64 256 512"), merged into DIR (default /dev/shm) by `merge --method merge` (the k-way
# merge) and `merge --method sort` (sort's machinery on the runs' concatenation, on the GPUs where
# sort's plan takes them: GPUS, default all, is merge's --gpus), and by `merge` (--method auto), whose
# choice (--stats method) is printed beside them; `cat` of the runs times the read alone. Each timing
# is the best of REPEATS (default 3); the outputs are checked once per K (rmgsort check --original,
# and the methods' outputs equal byte for byte). GNU `sort -m` is left out: it merges lines of text,
# not binary records. Prints a table; nothing here is a test.
# Usage: scripts/bench_merge.sh [COUNT] [TYPE] [RECORD_SIZE] [DIR]
#   TYPE: a key type (default u64); RECORD_SIZE: bytes per record (default: the key's width; the
#   key at offset 0), e.g. `scripts/bench_merge.sh 40M bytes:10 100` for Sort Benchmark records.
# Binaries: $RMGSORT (default build/app/rmgsort, else build-cpu-only/app/rmgsort; scripts/gpu_host_run.sh
# sets it on a GPU host). Memory: the runs, their concatenation and the output in DIR, and rmgsort's own.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rmgsort=${RMGSORT:-$root/build/app/rmgsort}
[[ -x $rmgsort ]] || rmgsort=$root/build-cpu-only/app/rmgsort
count=${1:-256M}
type=${2:-u64}
record_size=${3:-0}
dir=${4:-/dev/shm}
ks=${KS:-2 8 64 256 512}
gpus=${GPUS:-all}
repeats=${REPEATS:-3}
work=$(mktemp -d "$dir/rmgsort-bench-merge.XXXXXX")
trap 'rm -rf "$work"' EXIT

layout=(-t "$type")
if [[ $record_size == 0 ]]; then
  case $type in bytes:*) record_size=${type#bytes:} ;; *32) record_size=4 ;; *) record_size=8 ;; esac
else
  layout+=(--record-size "$record_size")
fi
"$rmgsort" generate -o "$work/all" "${layout[@]}" --count "$count" --seed 11
bytes=$(stat -c %s "$work/all")
records=$((bytes / record_size))

# best_of CMD...: "WALL CPU" of the fastest of REPEATS runs of CMD (its output discarded): wall-clock
# seconds, and the CPU seconds (user + system) it took, which a machine shared with other work
# disturbs less.
best_of() {
  local best="" times
  for ((r = 0; r < repeats; r++)); do
    times=$({ TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } 2>&1)
    best=$(awk -v b="$best" -v t="$times" 'BEGIN {
      split(t, x, " "); split(b, y, " ");
      if (b == "" || x[1] < y[1]) printf "%s %.3f", x[1], x[2] + x[3]; else print b }')
  done
  echo "$best"
}
wall() { echo "${1% *}"; }
cpu() { echo "${1#* }"; }

threads=$(nproc)
gib=$(awk -v b="$bytes" 'BEGIN { printf "%.2f", b / 2^30 }')
echo "# rmgsort merge: $records records of $record_size bytes ($type key), $gib GiB, in $dir, $threads CPUs," \
  "--gpus $gpus"
echo
echo "| runs | cat runs s | merge method s | merge CPU s | sort method s | sort CPU s | merge / sort (wall) |" \
  "auto chose | auto s |"
echo "|---:|---:|---:|---:|---:|---:|---:|:---|---:|"
for k in $ks; do
  rm -f "$work"/run.* "$work/concat"
  per=$(((records + k - 1) / k))
  # Consecutive slices of PER records, each sorted into a run.
  for ((i = 0; i < k; i++)); do
    dd if="$work/all" of="$work/slice" bs="$record_size" skip=$((i * per)) count="$per" status=none
    "$rmgsort" sort "$work/slice" -o "$(printf '%s/run.%05d' "$work" "$i")" "${layout[@]}" --gpus none
  done
  rm -f "$work/slice"
  runs=("$work"/run.*)
  cat "${runs[@]}" >"$work/concat"
  cat_s=$(best_of cat "${runs[@]}")
  merge=("$rmgsort" merge "${runs[@]}" "${layout[@]}" -T "$dir" --gpus "$gpus")
  merge_s=$(best_of "${merge[@]}" -o "$work/merged" --method merge)
  "$rmgsort" check "$work/merged" "${layout[@]}" --original "$work/concat" >/dev/null
  sort_s=$(best_of "${merge[@]}" -o "$work/sorted" --method sort)
  cmp -s "$work/merged" "$work/sorted" || { echo "bench_merge.sh: the methods differ for $k runs" >&2; exit 1; }
  auto_s=$(best_of "${merge[@]}" -o "$work/auto")
  "${merge[@]}" -o "$work/auto" --stats "$work/auto.json" >/dev/null 2>&1
  chose=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["method"])' "$work/auto.json")
  cmp -s "$work/merged" "$work/auto" || { echo "bench_merge.sh: auto differs for $k runs" >&2; exit 1; }
  rm -f "$work/merged" "$work/sorted" "$work/auto" "$work/auto.json"
  ratio=$(awk -v m="$(wall "$merge_s")" -v s="$(wall "$sort_s")" 'BEGIN { printf "%.2f", m / s }')
  echo "| $k | $(wall "$cat_s") | $(wall "$merge_s") | $(cpu "$merge_s") | $(wall "$sort_s") | $(cpu "$sort_s") |" \
    "$ratio | $chose | $(wall "$auto_s") |"
done
