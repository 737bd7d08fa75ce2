#!/usr/bin/env bash
# The spill path within its bounds, by design: skewed inputs (heavy values, several levels of
# partitions) need few descriptors, whatever their skew (`ulimit -n 40` is enough), spill files never
# have a name that could outlive the run (SIGKILL leaves nothing in --temp-dir), and the peak
# resident memory stays within --host-memory (5 %, and the program's own footprint) for uniform,
# zipf and all-equal inputs, as files and as streams. Every output equals the in-memory sort's.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

TEMP=$WORK/temp
mkdir -p "$TEMP"

expect_temp_empty() {
  local left
  left=$(find "$1" -mindepth 1 | head -5)
  [[ -z $left ]] || fail "left in the temporary directory: $left"
}

# reference TYPE INPUT OUTPUT: the in-memory CPU sort of INPUT.
reference() {
  "$RMGSORT" sort "$2" -o "$3" -t "$1" --gpus none 2>"$WORK/ref.stderr" || {
    echo "the in-memory reference sort failed: $(cat "$WORK/ref.stderr")" >&2
    exit 2
  }
}

echo "== descriptors and the cleanup registry"
rmg generate -o "$WORK/zipf.u64" -t u64 --dist zipf:1.0 --size 2M --seed 1
reference u64 "$WORK/zipf.u64" "$WORK/zipf.ref"

begin "skewed stream with heavy values (2 MB zipf:1.0, --host-memory 102400): no registry overflow, sorted"
run "$RMGSORT" sort -t u64 --host-memory 102400 --gpus none -T "$TEMP" --stats "$WORK/stats.json" \
  < <(cat "$WORK/zipf.u64")
expect_rc 0
expect_same "$WORK/stdout" "$WORK/zipf.ref"
expect_temp_empty "$TEMP"
end

begin "skewed file, --host-memory 102400, ulimit -n 40: spill files bounded by depth, not rounds"
run bash -c 'ulimit -n 40 && exec "$@"' _ "$RMGSORT" sort "$WORK/zipf.u64" -o "$WORK/out" -t u64 \
  --host-memory 102400 --gpus none -T "$TEMP"
expect_rc 0
expect_same "$WORK/out" "$WORK/zipf.ref"
expect_temp_empty "$TEMP"
end

begin "skewed stream, --host-memory 102400, ulimit -n 40: sorted"
run bash -c 'ulimit -n 40 && exec "$@"' _ "$RMGSORT" sort -t u64 --host-memory 102400 --gpus none -T "$TEMP" \
  < <(cat "$WORK/zipf.u64")
expect_rc 0
expect_same "$WORK/stdout" "$WORK/zipf.ref"
expect_temp_empty "$TEMP"
end

begin "uniform file of many levels (--host-memory 64K), ulimit -n 40: sorted, a permutation"
rmg generate -o "$WORK/in" -t u32 --count 2000000 --dist uniform --seed 4
reference u32 "$WORK/in" "$WORK/ref"
run bash -c 'ulimit -n 40 && exec "$@"' _ "$RMGSORT" sort "$WORK/in" -o "$WORK/out" -t u32 \
  --host-memory 64K --gpus none -T "$TEMP" --stats "$WORK/stats.json"
expect_rc 0
expect_same "$WORK/out" "$WORK/ref"
rmg check "$WORK/out" -t u32 --input "$WORK/in"
expect_rc 0
expect_temp_empty "$TEMP"
end

echo "== spill files have no name"

# spill_fds PID DIR: how many of PID's descriptors are files in DIR.
spill_fds() {
  local n=0 fd target
  for fd in /proc/"$1"/fd/*; do
    target=$(readlink "$fd" 2>/dev/null) || continue
    [[ $target == "$2"/* ]] && n=$((n + 1))
  done
  echo "$n"
}

begin "SIGKILL while spilling a stalled stdin: nothing left in --temp-dir, no spill file ever named there"
dir=$WORK/kill
mkdir -p "$dir/temp"
mkfifo "$dir/feed"
rmg generate -o "$WORK/in" -t u32 --count 100000 --dist uniform --seed 8
"${DEFAULT_SIGNALS[@]}" "$RMGSORT" sort -o "$dir/out.bin" -t u32 --gpus none --host-memory 64K -T "$dir/temp" \
  <"$dir/feed" 2>"$WORK/stderr" &
pid=$!
exec 3>"$dir/feed"
cat "$WORK/in" >&3  # more than half of --host-memory: spilling has begun; then the stream stalls
open_files=0
for ((i = 0; i < 2000; i++)); do
  open_files=$(spill_fds "$pid" "$dir/temp")
  ((open_files > 0)) && break
  sleep 0.01
done
((open_files > 0)) || fail "rmgsort holds no file in --temp-dir while spilling"
((open_files == 1)) || fail "$open_files spill files open during the first pass, expected one"
named=$(find "$dir/temp" -mindepth 1 | head -3)
[[ -z $named ]] || fail "a spill file has a name in --temp-dir: $named"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
exec 3>&-
expect_temp_empty "$dir/temp"
end

# Records wider than a spill chunk's least (4 KiB): the least --host-memory the error names sorts them,
# and so does every size above it (the chunks once grew with --host-memory and left no room for a
# round, and were once narrower than a record: an internal error).
echo "== records wider than a page, at and above the least --host-memory named"
for size in 4097 65536; do
  rmg generate -o "$WORK/wide" -t u64 --record-size "$size" --count 300 --seed 3
  "$RMGSORT" sort "$WORK/wide" -o "$WORK/wide.ref" -t u64 --record-size "$size" --gpus none
  rmg sort "$WORK/wide" -o "$WORK/out" -t u64 --record-size "$size" --gpus none --host-memory 1K
  least=$(sed -n 's/.*give it at least .*(\([0-9]*\) bytes).*/\1/p' "$WORK/stderr")
  for memory in "$least" $((least + least / 3)) $((least * 2)) $((least * 3)); do
    begin "$size-byte records, --host-memory $memory (the least named: ${least:-none}): spilled, sorted"
    [[ -n $least ]] || fail "no least --host-memory named: $(cat "$WORK/stderr")"
    rmg sort "$WORK/wide" -o "$WORK/out" -t u64 --record-size "$size" --gpus none --host-memory "$memory" \
      -T "$TEMP" --stats "$WORK/stats.json"
    expect_rc 0
    grep -q '"path": *"spill"' "$WORK/stats.json" 2>/dev/null || fail "it did not spill"
    expect_same "$WORK/out" "$WORK/wide.ref"
    expect_temp_empty "$TEMP"
    end
  done
  begin "$size-byte records, --host-memory one byte under the least named: refused, exit 2"
  rmg sort "$WORK/wide" -o "$WORK/out" -t u64 --record-size "$size" --gpus none --host-memory $((least - 1))
  expect_rc 2
  expect_stderr "is too small to sort through spill files; give it at least" "($least bytes)"
  end
done

echo "== peak memory within --host-memory"
if [[ ! -x /usr/bin/time ]]; then
  echo "/usr/bin/time is missing (Debian package 'time'): skipping the memory cases"
  summary
fi

# peak_kib ARGS...: runs ARGS (stdin as given) under /usr/bin/time -v; prints the peak resident KiB.
peak_kib() {
  /usr/bin/time -v -o "$WORK/time.txt" "$@" >"$WORK/stdout" 2>"$WORK/stderr"
  RC=$?
  awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt"
}

LIMIT=16M
LIMIT_KIB=16384

# The program's own footprint on the spill path: its code and libraries (the code pages a run
# touches count as resident), its threads, a few bytes per round. Measured per key type and source
# kind, as they run different code: the peak of spilling 128 KiB of keys with --host-memory 32K
# (which also counts those 32 KiB, and a sample of at most the input's 128 KiB).
# Threads and code pages make it vary by a few hundred KiB from run to run: the larger of two runs.
# base_kib TYPE DIST file|stream
base_kib() {
  local most=0 peak i
  rmg generate -o "$WORK/small" -t "$1" --dist "$2" --size 128K --seed 1
  for i in 1 2; do
    if [[ $3 == file ]]; then
      peak=$(peak_kib "$RMGSORT" sort "$WORK/small" -o "$WORK/small.out" -t "$1" --host-memory 32K --gpus none -T "$TEMP")
    else
      peak=$(peak_kib "$RMGSORT" sort -t "$1" --host-memory 32K --gpus none -T "$TEMP" < <(cat "$WORK/small"))
    fi
    [[ $RC -eq 0 ]] || { echo "the footprint run failed: $(cat "$WORK/stderr")" >&2; exit 2; }
    ((peak > most)) && most=$peak
  done
  echo "$most"
}

# levels: the spill levels of the last run with --stats "$WORK/stats.json".
levels() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["spill_levels"])' "$WORK/stats.json"; }

# memory_case TYPE DIST SIZE: as a file and as a stream, spilled with --host-memory $LIMIT; peak
# resident memory <= LIMIT x 1.05 + the program's footprint; the output equals the in-memory sort's.
memory_case() {
  local type=$1 dist=$2 size=$3 peak allowed base kind
  rmg generate -o "$WORK/in" -t "$type" --dist "$dist" --size "$size" --seed 7
  reference "$type" "$WORK/in" "$WORK/ref"
  for kind in file stream; do
    base=$(base_kib "$type" "$dist" "$kind")
    allowed=$((LIMIT_KIB * 105 / 100 + base))
    begin "$type $dist $size $kind, --host-memory $LIMIT: peak resident memory within the limit, sorted"
    if [[ $kind == file ]]; then
      peak=$(peak_kib "$RMGSORT" sort "$WORK/in" -o "$WORK/stdout" -t "$type" --host-memory "$LIMIT" --gpus none \
        -T "$TEMP" --stats "$WORK/stats.json")
    else
      peak=$(peak_kib "$RMGSORT" sort -t "$type" --host-memory "$LIMIT" --gpus none -T "$TEMP" \
        --stats "$WORK/stats.json" < <(cat "$WORK/in"))
    fi
    expect_rc 0
    grep -q '"spilled": *true' "$WORK/stats.json" 2>/dev/null || fail "it did not spill"
    ((peak <= allowed)) || fail "peak $peak KiB, allowed $allowed KiB ($LIMIT_KIB x 1.05 + the program's $base)"
    expect_same "$WORK/stdout" "$WORK/ref"
    expect_temp_empty "$TEMP"
    echo "    (peak $peak KiB, allowed $allowed, the program alone $base; $(levels) levels)"
    end
  done
}

memory_case u64 uniform 256M
memory_case u64 zipf:1.0 256M
memory_case i32 zipf:1.0 256M
memory_case u64 zero 256M

summary
