#!/usr/bin/env bash
# Inputs larger than --host-memory, sorted through spill files on the CPU (--gpus none): many rounds,
# partitions of partitions, skew (all keys equal, one value filling most of the input, zipf 2.0),
# every key type in both orders, stdin to stdout, --verify, the --stats fields, and that nothing is
# left in --temp-dir: after success, after running out of space there or on the output's file
# system (small tmpfs mounts; root only), and after SIGTERM in the middle.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TEMP=$WORK/temp
mkdir -p "$TEMP"

stat_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$WORK/stats.json" "$1"; }

expect_temp_empty() {
  local left
  left=$(find "$1" -mindepth 1 | head -5)
  [[ -z $left ]] || fail "left in the temporary directory: $left"
}

# spill_case TYPE DIST COUNT HOST_MEMORY [ORDER]: sorts through spill files and checks everything.
spill_case() {
  local type=$1 dist=$2 count=$3 memory=$4 order=${5:-}
  begin "$type $dist n=$count --host-memory $memory ${order:-ascending}: spilled, sorted, temp dir empty"
  rmg generate -o "$WORK/in" -t "$type" --count "$count" --dist "$dist" --seed 21
  rmg sort "$WORK/in" -o "$WORK/out" -t "$type" $order --gpus none --host-memory "$memory" -T "$TEMP" \
    --verify --stats "$WORK/stats.json"
  expect_rc 0
  if [[ $RC -eq 0 ]]; then
    [[ $(stat_of spilled) == True ]] || fail "the stats do not say it spilled"
    local rounds spilled
    rounds=$(stat_of rounds)
    spilled=$(stat_of spilled_bytes)
    ((rounds >= 3)) || fail "expected at least 3 rounds, got $rounds"
    ((spilled >= $(stat -c %s "$WORK/in"))) || fail "spilled $spilled bytes, less than the input"
  fi
  rmg check "$WORK/out" -t "$type" $order --input "$WORK/in"
  expect_rc 0
  expect_temp_empty "$TEMP"
  end
}

echo "== every key type, both orders, several distributions"
for type in u32 u64 i32 i64 f32 f64; do
  for dist in uniform zipf:2.0 zero special bits:10 sorted; do
    spill_case "$type" "$dist" 200003 256K
    spill_case "$type" "$dist" 200003 256K -r
  done
done

echo "== skew and depth"
spill_case u64 zipf:1.0 1000000 128K            # rounds that overflow and are partitioned again
spill_case u32 bits:1 300000 64K                # two values, each far larger than a round
spill_case f64 normal 500000 64K -r
begin "one value fills most of the input: one round of it, copied through"
python3 - "$WORK/in" <<'PY'
import random, struct, sys
random.seed(5)
keys = [7] * 180000 + [random.getrandbits(32) for _ in range(20000)]
random.shuffle(keys)
open(sys.argv[1], "wb").write(struct.pack(f"<{len(keys)}I", *keys))
PY
rmg sort "$WORK/in" -o "$WORK/out" -t u32 --gpus none --host-memory 128K -T "$TEMP" --stats "$WORK/stats.json"
expect_rc 0
rmg check "$WORK/out" -t u32 --input "$WORK/in"
expect_rc 0
expect_temp_empty "$TEMP"
end

begin "a run of nested partitions reports its depth"
rmg generate -o "$WORK/in" -t u64 --count 1000000 --dist uniform --seed 3
rmg sort "$WORK/in" -o "$WORK/out" -t u64 --gpus none --host-memory 64K -T "$TEMP" --stats "$WORK/stats.json"
expect_rc 0
[[ $RC -ne 0 ]] || (($(stat_of spill_levels) >= 2)) || fail "expected at least 2 levels, got $(stat_of spill_levels)"
rmg check "$WORK/out" -t u64 --input "$WORK/in"
expect_rc 0
expect_temp_empty "$TEMP"
end

echo "== streams"
begin "stdin to stdout, longer than half of --host-memory: spilled, sorted"
rmg generate -o "$WORK/in" -t i64 --count 400000 --dist normal --seed 8
run "$RMGSORT" sort -t i64 --gpus none --host-memory 512K -T "$TEMP" --verify --stats "$WORK/stats.json" \
  < <(cat "$WORK/in")
expect_rc 0
cp "$WORK/stdout" "$WORK/out"
[[ $RC -ne 0 || $(stat_of spilled) == True ]] || fail "the stats do not say it spilled"
[[ $RC -ne 0 || $(stat_of keys) == 400000 ]] || fail "the stats count $(stat_of keys) keys"
rmg check "$WORK/out" -t i64 --input "$WORK/in"
expect_rc 0
expect_temp_empty "$TEMP"
end

begin "stdin that ends inside a key, found while spilling: exit 2, message, nothing left"
rmg generate -o "$WORK/in" -t u32 --count 300000 --dist uniform --seed 8
run "$RMGSORT" sort -o "$WORK/fresh.out" -t u32 --gpus none --host-memory 256K -T "$TEMP" \
  < <(cat "$WORK/in"; printf 'xy')
expect_rc 2
expect_stderr "stdin: 1200002 bytes are not a whole number of u32 keys"
[[ ! -e $WORK/fresh.out ]] || fail "an output was created"
expect_temp_empty "$TEMP"
end

echo "== --host-memory too small even for spilling"
begin "--host-memory 8K: exit 2, message names the file and the minimum, no output"
rmg sort "$WORK/in" -o "$WORK/fresh.out" -t u32 --gpus none --host-memory 8K -T "$TEMP"
expect_rc 2
expect_error_message
expect_stderr "$WORK/in" "--host-memory" "too small"
[[ ! -e $WORK/fresh.out ]] || fail "an output was created"
end

echo "== out of space (small tmpfs mounts)"
MNT=$WORK/mnt
mkdir -p "$MNT"
begin "no space left in --temp-dir: exit 2, message names --temp-dir, old output kept, temp dir empty"
if [[ $EUID -ne 0 ]] || ! mount -t tmpfs -o size=1m tmpfs "$MNT" 2>/dev/null; then
  skip "cannot mount a tmpfs here (needs root)"
else
  E2E_CLEANUP+=("umount '$MNT'")
  rmg generate -o "$WORK/in" -t u64 --count 1000000 --dist uniform --seed 3
  printf 'OLD OUTPUT' >"$WORK/old.out"
  rmg sort "$WORK/in" -o "$WORK/old.out" -t u64 --gpus none --host-memory 2M -T "$MNT"
  expect_rc 2
  expect_error_message
  expect_stderr "--temp-dir $MNT" "No space left on device"
  [[ "$(cat "$WORK/old.out")" == "OLD OUTPUT" ]] || fail "the old output changed"
  expect_temp_empty "$MNT"
  end
  begin "no space left for the output while spilling: exit 2, message names the output, temp dir empty"
  rmg sort "$WORK/in" -o "$MNT/out" -t u64 --gpus none --host-memory 2M -T "$TEMP"
  expect_rc 2
  expect_stderr "$MNT/out" "No space left on device"
  expect_temp_empty "$MNT"
  expect_temp_empty "$TEMP"
  end
  umount "$MNT"
fi
begin "--temp-dir on a read-only file system: exit 2, message names --temp-dir and the cause, old output kept"
if [[ $EUID -ne 0 ]] || ! mount -t tmpfs -o size=1m,ro tmpfs "$MNT" 2>/dev/null; then
  skip "cannot mount a tmpfs here (needs root)"
else
  E2E_CLEANUP+=("umount '$MNT'")
  printf 'OLD OUTPUT' >"$WORK/old.out"
  rmg sort "$WORK/in" -o "$WORK/old.out" -t u64 --gpus none --host-memory 2M -T "$MNT"
  expect_rc 2
  expect_error_message
  expect_stderr "--temp-dir $MNT" "cannot create a spill file" "Read-only file system"
  [[ "$(cat "$WORK/old.out")" == "OLD OUTPUT" ]] || fail "the old output changed"
  end
  umount "$MNT"
fi

echo "== signals"
begin "SIGTERM while spilling a stalled stdin: exit 143, spill files removed, old output untouched"
dir=$WORK/sig
mkdir -p "$dir/temp"
printf 'OLD OUTPUT' >"$dir/out.bin"
mkfifo "$dir/feed"
rmg generate -o "$WORK/in" -t u32 --count 100000 --dist uniform --seed 8
"${DEFAULT_SIGNALS[@]}" "$RMGSORT" sort -o "$dir/out.bin" -t u32 --gpus none --host-memory 64K -T "$dir/temp" \
  <"$dir/feed" 2>"$WORK/stderr" &
pid=$!
exec 3>"$dir/feed"
cat "$WORK/in" >&3  # more than half of --host-memory: the spill files exist; then the stream stalls
appeared=0
for ((i = 0; i < 2000; i++)); do
  # Spill files have no name: the spill has begun once rmgsort holds a file in the directory.
  if find /proc/"$pid"/fd -lname "$dir/temp/*" 2>/dev/null | grep -q .; then appeared=1; break; fi
  sleep 0.01
done
((appeared)) || fail "no spill file appeared"
kill -TERM "$pid"
for ((i = 0; i < 2000; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.01; done
kill -0 "$pid" 2>/dev/null && { fail "rmgsort did not exit"; kill -KILL "$pid"; }
wait "$pid"
RC=$?
exec 3>&-
expect_rc 143
expect_temp_empty "$dir/temp"
[[ "$(cat "$dir/out.bin")" == "OLD OUTPUT" ]] || fail "the old output changed"
[[ $(find "$dir" -mindepth 1 -maxdepth 1 | wc -l) -eq 3 ]] || fail "unexpected files in $dir: $(ls -A "$dir")"
end

summary
