#!/usr/bin/env bash
# SIGKILL (and the OOM killer, which sends it) cannot be caught, so what rmgsort creates must not
# outlive it by construction: spill files and the output being written have no name (O_TMPFILE). Each
# case kills rmgsort at one moment (reading a stalled stdin, spilling, sorting rounds, writing a large
# output), found by watching /proc/PID/fd rather than by sleeping; before the kill, and after it,
# --temp-dir and the output's directory list exactly what they listed before the run (dot files
# included), and the existing output is byte-identical. On the CPU engine (--gpus none): the files
# are the same with GPUs.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

ROOT=$(realpath "$WORK")  # as /proc shows the files' directories
OUT_DIR=$ROOT/out
TEMP=$ROOT/temp
SORTED_FILE=$OUT_DIR/out.u64
mkdir -p "$OUT_DIR" "$TEMP"
"$RMGSORT" generate -o "$WORK/old.u64" -t u64 --count 1000 --seed 1 || { echo "generate failed" >&2; exit 2; }
cp "$WORK/old.u64" "$SORTED_FILE"
touch "$OUT_DIR/.hidden" "$TEMP/.hidden"  # dot files are listed too

PID=""
FEEDER=""

# listing DIR: every name in DIR, dot files included, one a line.
listing() { ls -A1 "$1" | LC_ALL=C sort; }

snapshot() {
  listing "$OUT_DIR" >"$WORK/out.before"
  listing "$TEMP" >"$WORK/temp.before"
}

# expect_unchanged WHEN: the output's directory and --temp-dir list what they did at snapshot, and the
# existing output is intact.
expect_unchanged() {
  local dir before
  for dir in "$OUT_DIR:$WORK/out.before" "$TEMP:$WORK/temp.before"; do
    before=${dir#*:}
    dir=${dir%%:*}
    listing "$dir" | cmp -s - "$before" ||
      fail "$1, $dir lists $(listing "$dir" | tr '\n' ' ')where it listed $(tr '\n' ' ' <"$before")"
  done
  expect_same "$SORTED_FILE" "$WORK/old.u64"
}

# unnamed_fd DIR: PID's descriptor (its /proc path) of a file with no name in DIR, if any.
unnamed_fd() { find "/proc/$PID/fd" -mindepth 1 -lname "$1/#* (deleted)" -print -quit 2>/dev/null; }

# unnamed_size_at_least DIR BYTES: PID has a file with no name in DIR of BYTES or more.
unnamed_size_at_least() {
  local fd size
  fd=$(unnamed_fd "$1")
  [[ -n $fd ]] && size=$(stat -L -c %s "$fd" 2>/dev/null) && ((size >= $2))
}

# staged_output: the output rmgsort (PID) writes in $OUT_DIR: the /proc path of its descriptor of a
# file with no name, or else a named temporary file there (which the cases then find listed).
staged_output() {
  local fd
  fd=$(unnamed_fd "$OUT_DIR")
  if [[ -n $fd ]]; then echo "$fd"; else compgen -G "$OUT_DIR/.*rmgsort*" | head -n 1; fi
}

# output_size_at_least BYTES: the staged output holds BYTES or more.
output_size_at_least() {
  local file size
  file=$(staged_output)
  [[ -n $file ]] && size=$(stat -L -c %s "$file" 2>/dev/null) && ((size >= $1))
}

# feed FILE BYTES: a writer of the FIFO $WORK/feed (rmgsort's stdin) that sends BYTES of FILE (all
# of it for "all") and then holds the FIFO open, so that rmgsort waits for more.
feed() {
  rm -f "$WORK/feed"
  mkfifo "$WORK/feed"
  if [[ $2 == all ]]; then
    cat "$1" >"$WORK/feed" 2>/dev/null &
  else
    { head -c "$2" "$1"; sleep 600; } >"$WORK/feed" 2>/dev/null &
  fi
  FEEDER=$!
}

stop_feeder() {
  [[ -n $FEEDER ]] || return 0
  local sleeper
  sleeper=$(pgrep -P "$FEEDER" -x sleep)
  [[ -n $sleeper ]] && kill -KILL "$sleeper" 2>/dev/null
  kill -KILL "$FEEDER" 2>/dev/null
  wait "$FEEDER" 2>/dev/null
  FEEDER=""
}
E2E_CLEANUP+=('stop_feeder' '[[ -n $PID ]] && kill -KILL $PID')

# poll CONDITION...: polls CONDITION every 10 ms (up to 60 s) while rmgsort (PID) runs. 0: it holds;
# 1: rmgsort ended first; 2: time ran out (a failure).
poll() {
  local i
  for ((i = 0; i < 6000; i++)); do
    "$@" && return 0
    kill -0 "$PID" 2>/dev/null || return 1
    [[ $(awk '{print $3}' "/proc/$PID/stat" 2>/dev/null) == Z ]] && return 1
    sleep 0.01
  done
  return 2
}

# sigkill_case DESC LAUNCH CONDITION...: runs LAUNCH (which starts rmgsort as PID), stops it once
# CONDITION holds, checks that nothing is named meanwhile and kills it with SIGKILL. A run that ends before its moment is caught (a fast machine, a
# short phase) is not a verdict: it is tried again, up to three times.
sigkill_case() {
  local desc=$1 launch=$2 attempt status
  shift 2
  begin "SIGKILL $desc: nothing new in the output's directory or --temp-dir, the old output intact"
  for attempt in 1 2 3; do
    snapshot
    "$launch"
    poll "$@"
    status=$?
    if [[ $status -eq 0 ]]; then
      kill -STOP "$PID"  # held at its moment while the directories are looked at
      expect_unchanged "while it runs"
      kill -KILL "$PID"
      { wait "$PID"; } 2>/dev/null
      RC=$?
      PID=""
      stop_feeder
      expect_rc 137
      expect_unchanged "after SIGKILL"
      end
      return
    fi
    [[ $status -eq 2 ]] && { kill -KILL "$PID"; fail "the moment did not come within 60 s"; }
    { wait "$PID"; } 2>/dev/null
    PID=""
    stop_feeder
    [[ $status -eq 2 ]] && { end; return; }
    echo "    (attempt $attempt: rmgsort ended before the moment came; once more)"
    cp "$WORK/old.u64" "$SORTED_FILE"
  done
  fail "rmgsort ended before the moment came, three times"
  end
}

SMALL=$WORK/small.u64
SPILL_IN=$WORK/spill.u64
STREAM_IN=$WORK/stream.u64
MEMORY_IN=$WORK/memory.u64
"$RMGSORT" generate -o "$SMALL" -t u64 --size 4M --seed 2 || { echo "generate failed" >&2; exit 2; }

launch_reading() {
  feed "$SMALL" 1M
  "$RMGSORT" sort -o "$SORTED_FILE" -t u64 --gpus none -T "$TEMP" <"$WORK/feed" 2>"$WORK/stderr" &
  PID=$!
}
launch_reading_new() {
  feed "$SMALL" 1M
  "$RMGSORT" sort -o "$OUT_DIR/new.u64" -t u64 --gpus none -T "$TEMP" <"$WORK/feed" 2>"$WORK/stderr" &
  PID=$!
}
# The feeder is past its 1 MiB (rmgsort has read all of it but a pipe's buffer) once it sleeps, and
# the output is staged.
reading_moment() { [[ -n $(pgrep -P "$FEEDER" -x sleep) && -n $(staged_output) ]]; }

echo "== the file system"
if ! python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_TMPFILE | os.O_WRONLY, 0o600))' "$ROOT" 2>/dev/null; then
  echo "the file system of $ROOT does not take files with no name (O_TMPFILE): rmgsort writes a named"
  echo "temporary file there, which SIGKILL leaves (README); skipping"
  exit 77
fi
echo "$ROOT takes files with no name (O_TMPFILE)"

echo "== SIGKILL at each moment of a run"
sigkill_case "while reading a stalled stdin (1 MiB read)" launch_reading reading_moment
sigkill_case "while reading a stalled stdin into a new output" launch_reading_new reading_moment

# Spilling: the issue's measurement, 384 MiB of u64 with --host-memory 48M, killed once the spill
# file holds 16 MiB.
"$RMGSORT" generate -o "$SPILL_IN" -t u64 --size 384M --seed 3 || { echo "generate failed" >&2; exit 2; }
launch_spilling() {
  "$RMGSORT" sort "$SPILL_IN" -o "$SORTED_FILE" -t u64 --gpus none --host-memory 48M -T "$TEMP" 2>"$WORK/stderr" &
  PID=$!
}
sigkill_case "while spilling 384 MiB with --host-memory 48M (16 MiB spilled)" launch_spilling \
  unnamed_size_at_least "$TEMP" $((16 << 20))
rm -f "$SPILL_IN"

# Sorting rounds: a stream (its output is not preallocated) of 64 MiB with --host-memory 8M; the
# output has grown (a round is written) while the spill file is still open (rounds remain).
"$RMGSORT" generate -o "$STREAM_IN" -t u64 --size 64M --seed 4 || { echo "generate failed" >&2; exit 2; }
launch_rounds() {
  feed "$STREAM_IN" all
  "$RMGSORT" sort -o "$SORTED_FILE" -t u64 --gpus none --host-memory 8M -T "$TEMP" <"$WORK/feed" 2>"$WORK/stderr" &
  PID=$!
}
rounds_moment() { output_size_at_least 1 && holds_unnamed_file "$PID" "$TEMP"; }
sigkill_case "while sorting rounds (a 64 MiB stream with --host-memory 8M, a round written)" launch_rounds rounds_moment
rm -f "$STREAM_IN"

# Writing: 256 MiB sorted in memory; the output grows (preallocated, then written) only once the
# sorted keys are written.
"$RMGSORT" generate -o "$MEMORY_IN" -t u64 --size 256M --seed 5 || { echo "generate failed" >&2; exit 2; }
launch_writing() {
  "$RMGSORT" sort "$MEMORY_IN" -o "$SORTED_FILE" -t u64 --gpus none -T "$TEMP" 2>"$WORK/stderr" &
  PID=$!
}
sigkill_case "while writing a 256 MiB output" launch_writing output_size_at_least 1
rm -f "$MEMORY_IN"

summary
