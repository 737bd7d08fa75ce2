#!/usr/bin/env bash
# Two rmgsort processes at once do not disturb each other: sorting into the same output, both succeed
# and the output is exactly one of the two complete results (never a mixture, never a part); sharing
# one --temp-dir while both spill, both outputs are right. Neither names a file in either directory
# while it runs. On the CPU engine (--gpus none): the files are the same with GPUs.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

ROOT=$(realpath "$WORK")  # as /proc shows the files' directories
OUT_DIR=$ROOT/out
TEMP=$ROOT/temp
mkdir -p "$OUT_DIR" "$TEMP"
# Where the file system has no O_TMPFILE, rmgsort's files have names while it runs (the fallbacks):
# the runs must still not disturb each other, but the directories are not empty meanwhile.
ANONYMOUS=no
python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_TMPFILE | os.O_WRONLY, 0o600))' "$ROOT" 2>/dev/null &&
  ANONYMOUS=yes
echo "files with no name (O_TMPFILE) in $ROOT: $ANONYMOUS"

# listing DIR: every name in DIR, dot files included, on one line.
listing() { ls -A "$1" | LC_ALL=C sort | tr '\n' ' '; }

# reference TYPE INPUT OUTPUT: the in-memory sort of INPUT, alone.
reference() {
  "$RMGSORT" sort "$2" -o "$3" -t "$1" --gpus none 2>"$WORK/ref.stderr" || {
    echo "the reference sort of $2 failed: $(cat "$WORK/ref.stderr")" >&2
    exit 2
  }
}

# wait_for PID DIR: waits (up to 20 s) until PID holds its output or spill file in DIR: one with no
# name, or where there is no O_TMPFILE, a temporary output file or an unlinked spill file.
wait_for() {
  local i
  for ((i = 0; i < 2000; i++)); do
    [[ -n $(find "/proc/$1/fd" -mindepth 1 \( -lname "$2/#* (deleted)" -o -lname "$2/.*rmgsort*" \) \
      -print -quit 2>/dev/null) ]] && return 0
    sleep 0.01
  done
  fail "process $1 holds no file in $2"
  return 1
}

# expect_listing WHEN DIR NAMES: DIR lists NAMES ("a b ", dot files included); while runs are under
# way (WHEN "while ..."), only where files can have no name.
expect_listing() {
  [[ $1 == while* && $ANONYMOUS == no ]] && return
  [[ $(listing "$2") == "$3" ]] || fail "$1, $2 lists '$(listing "$2")', expected '$3'"
}

generate() { "$RMGSORT" generate "$@" || { echo "rmgsort generate $* failed" >&2; exit 2; }; }

echo "== two runs, one output"
generate -o "$WORK/a.u64" -t u64 --size 3M --seed 1
generate -o "$WORK/b.u64" -t u64 --size 2M --seed 2
reference u64 "$WORK/a.u64" "$WORK/a.ref"
reference u64 "$WORK/b.u64" "$WORK/b.ref"
mkfifo "$WORK/fa" "$WORK/fb"
SORTED_FILE=$OUT_DIR/sorted.u64

# Both runs read their whole input, then wait on their stdin with their outputs staged; both inputs
# end at once, so both sort and commit at the same time. The first round creates the output, the
# later ones replace it; the inputs end in either order.
for round in 1 2 3 4 5 6; do
  begin "round $round: two runs sorting into one output at once both succeed; it is one whole result"
  "$RMGSORT" sort -o "$SORTED_FILE" -t u64 --gpus none <"$WORK/fa" 2>"$WORK/stderr.a" &
  pid_a=$!
  "$RMGSORT" sort -o "$SORTED_FILE" -t u64 --gpus none <"$WORK/fb" 2>"$WORK/stderr.b" &
  pid_b=$!
  exec 3>"$WORK/fa" 4>"$WORK/fb"
  cat "$WORK/a.u64" >&3  # returns once all but a pipe's buffer of it is read
  cat "$WORK/b.u64" >&4
  wait_for "$pid_a" "$OUT_DIR"
  wait_for "$pid_b" "$OUT_DIR"
  expected=""
  ((round > 1)) && expected="sorted.u64 "
  expect_listing "while both run" "$OUT_DIR" "$expected"
  if ((round % 2)); then exec 3>&- 4>&-; else exec 4>&- 3>&-; fi
  wait "$pid_a"
  rc_a=$?
  wait "$pid_b"
  rc_b=$?
  [[ $rc_a -eq 0 && $rc_b -eq 0 ]] || fail "exit statuses $rc_a and $rc_b, expected 0 and 0 ($(cat "$WORK/stderr.a" "$WORK/stderr.b"))"
  if cmp -s "$SORTED_FILE" "$WORK/a.ref"; then
    echo "    (the output is the first run's)"
  elif cmp -s "$SORTED_FILE" "$WORK/b.ref"; then
    echo "    (the output is the second run's)"
  else
    fail "$SORTED_FILE ($(stat -c %s "$SORTED_FILE" 2>/dev/null || echo no) bytes) is neither run's whole result"
  fi
  expect_listing "after both" "$OUT_DIR" "sorted.u64 "
  end
done

echo "== two runs, one --temp-dir, both spilling"
generate -o "$WORK/c.u64" -t u64 --size 32M --seed 3
generate -o "$WORK/d.u64" -t u64 --dist zipf:1.0 --size 24M --seed 4
reference u64 "$WORK/c.u64" "$WORK/c.ref"
reference u64 "$WORK/d.u64" "$WORK/d.ref"
mkfifo "$WORK/fc" "$WORK/fd"

begin "two streams spilling into one --temp-dir (--host-memory 4M) at once: both sorted, nothing left there"
touch "$TEMP/.hidden"
"$RMGSORT" sort -o "$OUT_DIR/c.out" -t u64 --gpus none --host-memory 4M -T "$TEMP" \
  --stats "$WORK/c.json" <"$WORK/fc" 2>"$WORK/stderr.c" &
pid_c=$!
"$RMGSORT" sort -o "$OUT_DIR/d.out" -t u64 --gpus none --host-memory 4M -T "$TEMP" \
  --stats "$WORK/d.json" <"$WORK/fd" 2>"$WORK/stderr.d" &
pid_d=$!
exec 3>"$WORK/fc" 4>"$WORK/fd"
# 16 MiB each, far more than half of --host-memory: both have begun spilling, and wait for more.
head -c 16M "$WORK/c.u64" >&3
head -c 16M "$WORK/d.u64" >&4
wait_for "$pid_c" "$TEMP"
wait_for "$pid_d" "$TEMP"
expect_listing "while both spill" "$TEMP" ".hidden "
tail -c +$((16 * 1024 * 1024 + 1)) "$WORK/c.u64" >&3
tail -c +$((16 * 1024 * 1024 + 1)) "$WORK/d.u64" >&4
exec 3>&- 4>&-
wait "$pid_c"
rc_c=$?
wait "$pid_d"
rc_d=$?
[[ $rc_c -eq 0 && $rc_d -eq 0 ]] || fail "exit statuses $rc_c and $rc_d, expected 0 and 0 ($(cat "$WORK/stderr.c" "$WORK/stderr.d"))"
expect_same "$OUT_DIR/c.out" "$WORK/c.ref"
expect_same "$OUT_DIR/d.out" "$WORK/d.ref"
for stats in "$WORK/c.json" "$WORK/d.json"; do
  grep -q '"spilled": *true' "$stats" 2>/dev/null || fail "$stats: the run did not spill"
done
expect_listing "after both" "$TEMP" ".hidden "
expect_listing "after both" "$OUT_DIR" "c.out d.out sorted.u64 "
end

summary
