#!/usr/bin/env bash
# The limits and dispositions a run inherits: writing past `ulimit -f` is an error naming the output
# (not a death by SIGXFSZ that leaves a temporary file), a SIGHUP or SIGINT ignored by whoever started
# the run (nohup, `cmd &` in a script) stays ignored while SIGTERM still ends it, every terminating
# signal (SIGQUIT, SIGALRM, SIGUSR1, ...) removes the temporary output and cuts a regular standard
# output back to what it held, memory denied by `ulimit -v` comes with a hint (and the default
# --host-memory keeps within it), and an empty option value is refused instead of meaning the default.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

IN=$WORK/in
mkdir -p "$IN"
"$RMGSORT" generate -o "$IN/m8.u64" -t u64 --size 8M --seed 31 &&
  "$RMGSORT" generate -o "$IN/u32.bin" -t u32 --count 100003 --seed 32 ||
  { echo "setup failed"; exit 2; }

# limited BLOCKS ARG...: runs ARG... (stdout and stderr as `run` sets them) under `ulimit -f BLOCKS`
# (1024-byte blocks); the limit applies to the files the run writes, not to this script.
limited() {
  local blocks=$1
  shift
  run bash -c 'ulimit -f "$1" && shift && exec "$@"' limited "$blocks" "$@"
}

# files_in DIR: the names in DIR, one line (for messages and comparisons).
files_in() {
  ls -A "$1" | tr '\n' ' '
}

echo "== writing past ulimit -f (1000 KiB)"
# limit_case DESC DIR NAME ARG...: `rmgsort ARG...` (each @OUT@ replaced by DIR/NAME, an existing
# file) under the limit: exit 2 naming the output and EFBIG, the old output untouched, nothing left.
limit_case() {
  local desc=$1 dir=$2 name=$3
  shift 3
  begin "$desc past ulimit -f: exit 2 naming the output and 'File too large', old output kept, no temporary file"
  mkdir -p "$dir"
  printf 'OLD OUTPUT' >"$dir/$name"
  limited 1000 "$RMGSORT" "${@//@OUT@/$dir/$name}"
  expect_rc 2
  expect_error_message
  expect_stderr "$dir/$name: " "File too large"
  [[ "$(cat "$dir/$name")" == "OLD OUTPUT" ]] || fail "the old output changed"
  expect_no_temp "$dir"
  [[ "$(files_in "$dir")" == "$name " ]] || fail "unexpected files in $dir: $(files_in "$dir")"
  end
}
limit_case "sort FILE -o OUT of 8 MiB" "$WORK/lim-sort" o8.u64 sort "$IN/m8.u64" -o @OUT@ -t u64
limit_case "sort FILE -o OUT of 8 MiB on one thread" "$WORK/lim-sort1" o8.u64 \
  sort "$IN/m8.u64" -o @OUT@ -t u64 --threads 1 --gpus none
# A file's size is known: its output is reserved (fallocate) before it is written. A pipe's is not:
# the writes themselves cross the limit.
limit_case "sort of stdin (a file) -o OUT of 8 MiB" "$WORK/lim-stdin" o8.u64 sort -o @OUT@ -t u64 <"$IN/m8.u64"
limit_case "sort of stdin (a pipe) -o OUT of 8 MiB" "$WORK/lim-pipe" o8.u64 sort -o @OUT@ -t u64 \
  < <(cat "$IN/m8.u64")
limit_case "generate -o OUT of 8 MiB" "$WORK/lim-gen" g8.u64 generate -o @OUT@ -t u64 --size 8M
if [[ -d /dev/shm && -w /dev/shm ]]; then
  SHM=$(mktemp -d /dev/shm/rmgsort-e2e.XXXXXX)
  E2E_CLEANUP+=("rm -rf '$SHM'")
  # tmpfs outputs are written through a shared mapping: the file grows by ftruncate.
  limit_case "sort -o OUT on tmpfs (mapped writer)" "$SHM/lim-sort" o8.u64 sort "$IN/m8.u64" -o @OUT@ -t u64
  limit_case "generate -o OUT on tmpfs (mapped writer)" "$SHM/lim-gen" g8.u64 generate -o @OUT@ -t u64 --size 8M
else
  begin "outputs on tmpfs past ulimit -f"
  skip "no writable /dev/shm"
fi

# --unique keeping less than the limit of an input larger than it: the output is not reserved (nor
# grown to the input's size in its own pages) beyond the limit, and what is kept is written.
"$RMGSORT" generate -o "$IN/zeros.u64" -t u64 --size 8M --dist zero --seed 3
for where in "$WORK/lim-unique" ${SHM:+"$SHM/lim-unique"}; do
  mkdir -p "$where"
  begin "sort -u of 8 MiB of equal keys -o OUT under ulimit -f 1000 KiB ($where): one key written, exit 0"
  limited 1000 "$RMGSORT" sort "$IN/zeros.u64" -u -t u64 -o "$where/u.u64" --gpus none
  expect_rc 0
  expect_size "$where/u.u64" 8
  end
  begin "sort -u of 8 MiB of equal keys > FILE under ulimit -f 1000 KiB ($where): one key written, exit 0"
  run bash -c 'ulimit -f 1000 && exec "$@" >"$0"' "$where/stdout.u64" "$RMGSORT" sort "$IN/zeros.u64" -u -t u64 --gpus none
  expect_rc 0
  expect_size "$where/stdout.u64" 8
  end
done

# A stream of 8 MiB over 4M of host memory spills into files larger than 100 KiB: the spilling fails.
begin "sort through spill files past ulimit -f: exit 2 naming the spill directory and 'File too large', nothing left"
dir=$WORK/lim-spill
mkdir -p "$dir/temp"
limited 100 "$RMGSORT" sort -o "$dir/out.u64" -t u64 --gpus none --host-memory 4M -T "$dir/temp" < <(cat "$IN/m8.u64")
expect_rc 2
expect_error_message
expect_stderr "$dir/temp" "File too large"
expect_no_file "$dir/out.u64"
expect_no_temp "$dir"
[[ -z "$(files_in "$dir/temp")" ]] || fail "spill files left: $(files_in "$dir/temp")"
end

# stdout_limit_case DESC ARG...: `rmgsort ARG...` with standard output redirected to a file.
stdout_limit_case() {
  local desc=$1
  shift
  begin "$desc > FILE past ulimit -f: exit 2 naming standard output and 'File too large'"
  local redirected=$WORK/lim-stdout.out
  rm -f "$redirected"
  run bash -c 'ulimit -f 1000 && exec "$@" >"$0"' "$redirected" "$RMGSORT" "$@"
  expect_rc 2
  expect_error_message
  expect_stderr "File too large"
  grep -qE 'rmgsort: (stdout|standard output)' "$WORK/stderr" || fail "the message does not name standard output"
  end
}
stdout_limit_case "sort FILE" sort "$IN/m8.u64" -t u64
stdout_limit_case "generate" generate -o - -t u64 --size 8M

echo "== SIGHUP and SIGINT ignored by whoever started the run"
# Each case runs rmgsort on a FIFO this script feeds: 4096 bytes, then (once the temporary output
# exists) the signal, then the rest of the keys.

# feed_until_temp DIR PID: opens DIR/feed as descriptor 3, writes the first 4096 bytes of the keys
# into it and waits until PID's temporary output exists in DIR. If it never does, fails the case,
# kills PID, ends the case and returns 1.
feed_until_temp() {
  local dir=$1 pid=$2
  exec 3>"$dir/feed"
  head -c 4096 "$IN/u32.bin" >&3
  wait_for_temp "$dir" "$pid" && return 0
  fail "no temporary output file appeared in $dir"
  exec 3>&-
  kill -KILL "$pid" 2>/dev/null
  wait "$pid"
  end
  return 1
}

# signal_case DESC SIGNAL STATUS LAUNCH...: LAUNCH... (a command line ending in rmgsort's, run with
# the FIFO as standard input) sorts the keys of u32.bin; SIGNAL arrives while it waits for more.
# STATUS 0: the run ignores it and completes correctly; otherwise it ends with STATUS, the old
# output untouched and no temporary file left.
signal_case() {
  local desc=$1 signal=$2 status=$3 dir=$WORK/sig-$RANDOM
  shift 3
  begin "$desc"
  mkdir -p "$dir"
  printf 'OLD OUTPUT' >"$dir/out.bin"
  mkfifo "$dir/feed"
  "$@" sort -o "$dir/out.bin" -t u32 <"$dir/feed" >/dev/null 2>"$WORK/stderr" &
  local pid=$!
  feed_until_temp "$dir" "$pid" || return
  kill "-$signal" "$pid"
  if [[ $status -eq 0 ]]; then
    sleep 0.3
    kill -0 "$pid" 2>/dev/null || fail "rmgsort did not survive SIG$signal"
    tail -c +4097 "$IN/u32.bin" >&3 2>/dev/null  # an external writer: a dead reader kills it, not us
  fi
  exec 3>&-
  wait_or_kill "$pid"
  expect_rc "$status"
  if [[ $status -eq 0 ]]; then
    expect_sorted_like u32 "$IN/u32.bin" "$dir/out.bin"
  else
    [[ "$(cat "$dir/out.bin")" == "OLD OUTPUT" ]] || fail "the old output changed"
  fi
  expect_no_temp "$dir"
  [[ "$(files_in "$dir")" == "feed out.bin " ]] || fail "unexpected files in $dir: $(files_in "$dir")"
  end
}

if command -v nohup >/dev/null; then
  signal_case "SIGHUP under nohup: the run survives it and completes, sorted" HUP 0 \
    "${DEFAULT_SIGNALS[@]}" nohup "$RMGSORT"
else
  begin "SIGHUP under nohup"
  skip "no nohup here"
fi
signal_case "SIGHUP under trap '' HUP: the run survives it and completes, sorted" HUP 0 \
  bash -c 'trap "" HUP && exec "$@"' ignore-hup "$RMGSORT"
signal_case "SIGINT under trap '' INT (as a background job of a script): the run survives it, sorted" INT 0 \
  bash -c 'trap "" INT && exec "$@"' ignore-int "$RMGSORT"
signal_case "SIGHUP not ignored: exit 129, temporary file removed, old output untouched" HUP 129 \
  "${DEFAULT_SIGNALS[@]}" "$RMGSORT"
signal_case "SIGINT not ignored: exit 130, temporary file removed, old output untouched" INT 130 \
  "${DEFAULT_SIGNALS[@]}" "$RMGSORT"
signal_case "SIGTERM under trap '' TERM is still handled: exit 143, temporary file removed" TERM 143 \
  bash -c 'trap "" TERM && exec "$@"' ignore-term "$RMGSORT"
signal_case "SIGQUIT (Ctrl-\\) left a temporary output: exit 131, temporary file removed, old output untouched" \
  QUIT 131 "${DEFAULT_SIGNALS[@]}" "$RMGSORT"
signal_case "SIGALRM (timeout -s ALRM) left a temporary output: exit 142, temporary file removed, old output untouched" \
  ALRM 142 "${DEFAULT_SIGNALS[@]}" "$RMGSORT"
signal_case "SIGUSR1 left a temporary output: exit 138, temporary file removed, old output untouched" \
  USR1 138 "${DEFAULT_SIGNALS[@]}" "$RMGSORT"

echo "== --stats of a run that a signal stopped"
# stats_signal_case DESC SIGNAL STATUS STATS COMMAND...: `rmgsort COMMAND... --stats STATS` reads a FIFO
# this script feeds (4096 bytes of keys, then nothing) and is stopped by SIGNAL once its temporary
# output exists: it ends with STATUS, and its statistics (in $dir/stats.json, which held OLD before,
# or on standard output for STATS "-") say so, as one valid JSON object; nothing else is left.
stats_signal_case() {
  local desc=$1 signal=$2 status=$3 stats=$4 dir=$WORK/stats-sig-$RANDOM json
  shift 4
  begin "$desc"
  mkdir -p "$dir"
  printf 'OLD OUTPUT' >"$dir/out.bin"
  printf 'OLD' >"$dir/stats.json"
  mkfifo "$dir/feed"
  [[ $stats == - ]] || stats=$dir/stats.json
  "${DEFAULT_SIGNALS[@]}" "$RMGSORT" "$@" -o "$dir/out.bin" -t u32 --stats "$stats" <"$dir/feed" \
    >"$dir/stdout" 2>"$WORK/stderr" &
  local pid=$!
  feed_until_temp "$dir" "$pid" || return
  kill "-$signal" "$pid"
  wait_or_kill "$pid"
  exec 3>&-
  expect_rc "$status"
  [[ "$(cat "$dir/out.bin")" == "OLD OUTPUT" ]] || fail "the old output changed"
  if [[ $stats == - ]]; then json=$dir/stdout; else json=$dir/stats.json; fi
  python3 - "$json" "$status" "SIG$signal" "$1" <<'PY' || fail "statistics: $(head -c 400 "$json")"
import json, sys
path, status, signal, command = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
text = open(path).read()
stats = json.loads(text)  # one object, nothing after it
assert text.count("\n") == 1 and text.endswith("\n"), "one line"
assert stats["status"] == "error" and stats["exit_code"] == status, (stats["status"], stats["exit_code"])
assert stats["error"] == "stopped by signal " + signal and stats["signal"] == signal, stats["error"]
assert stats["command"] == command and stats["schema"] == 1 and stats["command_line"], stats
PY
  expect_no_temp "$dir"
  local left
  left=$(files_in "$dir")
  [[ $left == "feed out.bin stats.json stdout " ]] || fail "unexpected files in $dir: $left"
  end
}

stats_signal_case "sort --stats FILE, SIGTERM: exit 143, the file replaced by statistics saying so" \
  TERM 143 file sort
stats_signal_case "sort --stats FILE, SIGINT: exit 130, the file replaced by statistics saying so" \
  INT 130 file sort
stats_signal_case "sort --stats FILE, SIGHUP: exit 129, the file replaced by statistics saying so" \
  HUP 129 file sort
stats_signal_case "sort --stats -, SIGTERM: exit 143, the statistics on standard output" TERM 143 - sort
stats_signal_case "merge --stats FILE, SIGTERM: exit 143, the file replaced by statistics saying so" \
  TERM 143 file merge -

echo "== a signal while the keys go to a regular standard output"
begin "SIGTERM left a regular stdout grown by the preallocation: exit 143, the file holds OLD again"
dir=$WORK/sig-stdout
mkdir -p "$dir/temp"
"$RMGSORT" generate -o "$dir/big.u64" -t u64 --size 160M --seed 33 || fail "setup failed"
printf 'OLD' >"$dir/so.out"
"${DEFAULT_SIGNALS[@]}" "$RMGSORT" sort -t u64 --gpus none --threads 1 --host-memory 4M -T "$dir/temp" \
  "$dir/big.u64" >>"$dir/so.out" 2>"$WORK/stderr" &
pid=$!
for ((i = 0; i < 3000; i++)); do  # until the output grows (up to 30 s)
  [[ $(stat -c %s "$dir/so.out") -gt 3 ]] && break
  sleep 0.01
done
[[ $(stat -c %s "$dir/so.out") -gt 3 ]] || fail "the output never grew"
kill -TERM "$pid"
wait_or_kill "$pid"
expect_rc 143
[[ "$(cat "$dir/so.out")" == "OLD" ]] || fail "stdout holds $(stat -c %s "$dir/so.out") bytes, not OLD"
expect_no_temp "$dir/temp"
rm -f "$dir/big.u64" "$dir/so.out"
end

echo "== empty option values"
# empty_value NAME ARG...: `rmgsort ARG...` (one of them empty) is refused before anything is read
# or written: exit 2, "rmgsort: NAME: empty value", nothing on stdout, nothing created.
empty_value() {
  local name=$1
  shift
  begin "${name} '' ($1): exit 2 with '$name: empty value', nothing read or created"
  local dir=$WORK/empty
  rm -rf "$dir"
  mkdir -p "$dir"
  cd "$dir" || exit 2
  rmg "$@"
  cd "$WORK" || exit 2
  expect_rc 2
  expect_error_message
  expect_stderr "rmgsort: $name: empty value"
  expect_stdout_empty
  [[ -z "$(files_in "$dir")" ]] || fail "files created: $(files_in "$dir")"
  end
}
EMPTY_CASE_FILE=$WORK/empty-case.out
empty_value --host-memory sort "$IN/u32.bin" -o "$EMPTY_CASE_FILE" -t u32 --host-memory ''
empty_value --gpu-memory sort "$IN/u32.bin" -o "$EMPTY_CASE_FILE" -t u32 --gpu-memory ''
empty_value --temp-dir sort "$IN/u32.bin" -o "$EMPTY_CASE_FILE" -t u32 -T ''
empty_value --stats sort "$IN/u32.bin" -o "$EMPTY_CASE_FILE" -t u32 --stats ''
empty_value --output sort "$IN/u32.bin" -o '' -t u32
empty_value INPUT sort '' -o "$EMPTY_CASE_FILE" -t u32
empty_value --type sort "$IN/u32.bin" -o "$EMPTY_CASE_FILE" -t ''
empty_value --gpus sort "$IN/u32.bin" -o "$EMPTY_CASE_FILE" -t u32 --gpus ''
empty_value --threads sort "$IN/u32.bin" -o "$EMPTY_CASE_FILE" -t u32 --threads ''
empty_value --progress sort "$IN/u32.bin" -o "$EMPTY_CASE_FILE" -t u32 --progress ''
empty_value --output generate -o '' -t u32 --count 10
empty_value --count generate -o "$EMPTY_CASE_FILE" -t u32 --count ''
empty_value --size generate -o "$EMPTY_CASE_FILE" -t u32 --size ''
empty_value --dist generate -o "$EMPTY_CASE_FILE" -t u32 --count 10 --dist ''
empty_value --seed generate -o "$EMPTY_CASE_FILE" -t u32 --count 10 --seed ''
empty_value --threads generate -o "$EMPTY_CASE_FILE" -t u32 --count 10 --threads ''
empty_value FILE check '' -t u32
empty_value --input check "$IN/u32.bin" -t u32 --input ''
empty_value --type check "$IN/u32.bin" -t ''

echo "== memory denied by ulimit -v"
# A 2 GiB input (sparse: nothing to read from disk) sorted in memory with --host-memory 8G needs two
# 2 GiB buffers; the address space is limited to 1 GiB, so the first one cannot be had.
begin "sort in memory under ulimit -v: exit 2, 'cannot allocate' with a hint naming --host-memory and ulimit -v, nothing left"
dir=$WORK/ulimit-v
mkdir -p "$dir"
truncate -s 2G "$dir/sparse.u64"
printf 'OLD OUTPUT' >"$dir/out.u64"
run bash -c 'ulimit -v 1048576 && exec "$@"' limited-memory \
  "$RMGSORT" sort "$dir/sparse.u64" -o "$dir/out.u64" -t u64 --gpus none --host-memory 8G --threads 2
expect_rc 2
expect_error_message
expect_stderr "cannot allocate" \
  "(lower --host-memory below the process's memory limit, \`ulimit -v\`, or free memory)"
[[ "$(cat "$dir/out.u64")" == "OLD OUTPUT" ]] || fail "the old output changed"
expect_no_temp "$dir"
rm -f "$dir/sparse.u64"
end

# Without --host-memory the default keeps within the address space `ulimit -v` leaves (as GNU sort's
# buffer does): 384 MiB of keys under a 600 MB limit, more than the limit leaves for them, go through
# spill files instead of failing to allocate.
begin "sort under ulimit -v with the default --host-memory: within the limit, spilled, sorted"
"$RMGSORT" generate -o "$dir/k.u64" -t u64 --size 384M --seed 33 || fail "generate failed"
# (Beside what the limit leaves, rmgsort keeps back a stack per hardware thread and 128 MiB: those
# are added, so that the figures hold on a machine of any size.)
limit_kib=$((600000 + $(getconf _NPROCESSORS_ONLN) * 8192 + 131072))
run bash -c 'ulimit -v "$1" && shift && exec "$@"' limited-memory "$limit_kib" \
  "$RMGSORT" sort "$dir/k.u64" -o "$dir/k.sorted" -t u64 --gpus none --threads 2 --stats "$dir/k.json" -T "$dir"
expect_rc 0
expect_stderr_empty
# The same keys sorted in memory (no limit): the same bytes; and check's multiset against the input.
"$RMGSORT" sort "$dir/k.u64" -o "$dir/k.ref" -t u64 --gpus none --host-memory 2G || fail "the in-memory sort failed"
expect_same "$dir/k.sorted" "$dir/k.ref"
rmg check "$dir/k.sorted" -t u64 --input "$dir/k.u64"
expect_rc 0
python3 - "$dir/k.json" <<'PY' || fail "--stats: the default --host-memory does not keep within ulimit -v"
import json, sys
stats = json.load(open(sys.argv[1]))
limit = stats["host_memory_limit_bytes"]
assert 0 < limit <= 600000 * 1024 * 3 // 4, limit
assert stats["spilled"] is True, stats["spilled"]
PY
expect_no_temp "$dir"
rm -f "$dir/k.u64" "$dir/k.sorted" "$dir/k.ref"
end

summary
