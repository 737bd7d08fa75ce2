#!/usr/bin/env bash
# --stats FILE|- (one JSON object, schema 1, with status, exit_code, error, start_time, host,
# command_line, version, key_type, keys, bytes, threads, wall_seconds, phases_seconds, throughput,
# peak host and device memory, rounds; "-" refused when the keys go to stdout; written on failure
# too, with what ran; names that are not UTF-8 escaped so that it parses) and --progress
# auto|always|never|lines|json (progress only ever on stderr: one redrawn line of at most 100
# columns, the phase, the rounds done of the rounds planned, bytes, rate, ETA; or lines for a log,
# one per phase end and every 5 s, without carriage returns; or those as JSON objects; each ends
# with one summary line of a run that succeeded; never: nothing on stderr on success; --help lists
# the modes).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

S=$WORK/s
mkdir -p "$S" "$S/temp"
"$RMGSORT" generate -o "$S/in.u64" -t u64 --count 100003 --seed 51 &&
  "$RMGSORT" sort "$S/in.u64" -o "$S/sorted.u64" -t u64 &&
  "$RMGSORT" generate -o "$S/big.u64" -t u64 --count 300007 --seed 53 &&
  "$RMGSORT" sort "$S/big.u64" -o "$S/big-sorted.u64" -t u64 || { echo "setup failed"; exit 2; }

# expect_stats FILE PIN...: FILE ('-': the last stdout) is one JSON object with the required keys and
# the pinned NAME=VALUE members.
expect_stats() {
  local file=$1 why
  shift
  [[ $file == - ]] && file=$WORK/stdout
  why=$(python3 "$KEYS_PY" stats "$file" "$@") || fail "stats $file: $why"
  # Whatever keys.py checks, the file must parse as JSON for any consumer.
  python3 -c 'import json,sys; json.load(sys.stdin)' <"$file" 2>/dev/null || fail "stats $file does not parse as JSON"
}

# expect_progress WANT...: the last stderr holds only progress lines meeting each WANT (keys.py progress).
expect_progress() {
  local why
  why=$(python3 "$KEYS_PY" progress "$WORK/stderr" "$@") || fail "progress: $why"
}

# expect_progress_log lines|json WANT...: the last stderr holds only --progress lines (JSON objects)
# meeting each WANT (progress_log.py).
expect_progress_log() {
  local why
  why=$(python3 "$(dirname "${BASH_SOURCE[0]}")/progress_log.py" "$1" "$WORK/stderr" "${@:2}" 2>&1) ||
    fail "progress $1: $why"
}

# slow_cat FILE [BYTES [SECONDS]]: FILE's first BYTES (2000) bytes, a pause of SECONDS (0.6), the
# rest (a run long enough to draw progress).
slow_cat() {
  local head=${2:-2000}
  head -c "$head" "$1"
  sleep "${3:-0.6}"
  tail -c +$((head + 1)) "$1"
}

# slow_fifo FIFO: makes the FIFO and starts its reader, into FIFO.out: the reader takes the first
# 4096 bytes, pauses 1.5 s (the writer blocks once the pipe, which rmgsort enlarges to 1 MiB, is
# full: a longer output is held among its rounds), then reads the rest. $SLOW_READER is its pid; it
# gives up after 60 s if no writer comes.
slow_fifo() {
  rm -f "$1" "$1.out"
  mkfifo "$1"
  timeout 60 bash -c 'exec <"$0"; head -c 4096; sleep 1.5; cat' "$1" >"$1.out" &
  SLOW_READER=$!
}

echo "== --stats"
begin "--stats FILE with -o FILE: exit 0, nothing on stdout, FILE is one JSON object with the required keys"
rmg sort "$S/in.u64" -o "$S/out" -t u64 --stats "$S/stats.json"
expect_rc 0
expect_stdout_empty
expect_stats "$S/stats.json" key_type=u64 keys=100003 bytes=800024
expect_same "$S/out" "$S/sorted.u64"
end

begin "--stats - with -o FILE: stdout is exactly one JSON object"
rmg sort "$S/in.u64" -o "$S/out" -t u64 --stats -
expect_rc 0
expect_stats - key_type=u64 keys=100003 bytes=800024
[[ $(wc -l <"$WORK/stdout") -eq 1 ]] || fail "stdout has $(wc -l <"$WORK/stdout") lines"
expect_same "$S/out" "$S/sorted.u64"
end

begin "--stats - --threads 1: threads is 1"
rmg sort "$S/in.u64" -o "$S/out" -t u64 --stats - --threads 1
expect_rc 0
expect_stats - threads=1
end

begin "--stats - --threads 2: threads is 2"
rmg sort "$S/in.u64" -o "$S/out" -t u64 --stats - --threads 2
expect_rc 0
expect_stats - threads=2
end

begin "--stats FILE for an f32 sort of stdin through a pipe: keys and bytes counted"
"$RMGSORT" generate -o "$S/in.f32" -t f32 --count 777 --dist special --seed 52
run "$RMGSORT" sort -t f32 -r -o "$S/out" --stats "$S/pipe-stats.json" < <(cat "$S/in.f32")
expect_rc 0
expect_stats "$S/pipe-stats.json" key_type=f32 keys=777 bytes=3108
end

begin "--stats - for an empty input: keys 0, bytes 0, still one valid JSON object"
run "$RMGSORT" sort -t i32 -o "$S/out" --stats - </dev/null
expect_rc 0
expect_stats - key_type=i32 keys=0 bytes=0
end

begin "--stats FILE replaces an existing stats file"
printf 'garbage that is not JSON' >"$S/old-stats.json"
rmg sort "$S/in.u64" -o "$S/out" -t u64 --stats "$S/old-stats.json"
expect_rc 0
expect_stats "$S/old-stats.json" keys=100003
end

begin "--stats, CPU, in memory: peak host memory holds the keys and the sort buffer, no device memory, one round"
rmg sort "$S/in.u64" -o "$S/out" -t u64 --gpus none --stats "$S/stats.json"
expect_rc 0
# The CPU sort holds the keys and a scratch buffer of the same size: at least 2 x 800024 bytes.
expect_stats "$S/stats.json" engine=cpu 'peak_device_memory_bytes=[]' 'peak_host_memory_bytes>1600047' \
  rounds=1 round_keys=[100003] spilled=False 'throughput.read_bytes_per_second>0' \
  'throughput.write_bytes_per_second>0'
end

begin "--stats, CPU, through spill files (--host-memory 256K): many rounds that add up to the keys"
rmg sort "$S/in.u64" -o "$S/out" -t u64 --gpus none --host-memory 256K -T "$S/temp" --stats "$S/stats.json"
expect_rc 0
expect_stats "$S/stats.json" engine=cpu 'peak_device_memory_bytes=[]' 'peak_host_memory_bytes>0' spilled=True \
  'rounds>2' 'spill_levels>0' 'spilled_bytes>800023' 'throughput.write_bytes_per_second>0'
expect_same "$S/out" "$S/sorted.u64"
end

begin "--stats - with the keys on stdout (no -o): exit 2, message names --stats, nothing on stdout"
rmg sort "$S/in.u64" -t u64 --stats -
expect_rc 2
expect_stderr "--stats"
expect_stdout_empty
end

begin "--stats - with -o -: exit 2, message names --stats, nothing on stdout"
run "$RMGSORT" sort -o - -t u64 --stats - <"$S/in.u64"
expect_rc 2
expect_stderr "--stats"
expect_stdout_empty
end

echo "== --stats: schema 1, who and when, failures, names that are not UTF-8"
# stats_member FILE PYTHON-EXPRESSION: prints the expression of the parsed FILE (as `s`).
stats_member() {
  python3 -c 'import datetime, json, sys
s = json.load(open(sys.argv[1], encoding="utf-8"))
print(eval(sys.argv[2]))' "$1" "$2"
}

# expect_failure_stats FILE EXIT_CODE PIN...: FILE is a failed run's statistics: status error, the
# exit code, and as error the message stderr printed (after "rmgsort: "); PINs as keys.py stats.
expect_failure_stats() {
  local file=$1 code=$2 why message
  shift 2
  [[ $file == - ]] && file=$WORK/stdout
  why=$(python3 "$KEYS_PY" stats "$file" status=error exit_code="$code" "$@") || fail "stats $file: $why"
  message=$(head -n 1 "$WORK/stderr")
  why=$(python3 -c 'import json, sys
error = json.load(open(sys.argv[1], encoding="utf-8"))["error"]
sys.exit(0 if "rmgsort: " + error == sys.argv[2] else f"error {error!r} is not what stderr printed: {sys.argv[2]!r}")' \
    "$file" "$message" 2>&1) || fail "$why"
}

begin "--stats of a successful run: schema 1, status ok, exit_code 0, error null, the start time, host and command line"
before=$(date -u +%s)
rmg sort "$S/in.u64" -o "$S/out" -t u64 --gpus none --stats "$S/stats.json"
after=$(date -u +%s)
expect_rc 0
expect_stats "$S/stats.json" schema=1 status=ok exit_code=0 error=None 'host_memory_limit_bytes>0' key_field=None \
  index_output=None "host=$(hostname)" output="$S/out"
given=$(python3 -c 'import sys; print(sys.argv[1:])' "$RMGSORT" sort "$S/in.u64" -o "$S/out" -t u64 --gpus none \
  --stats "$S/stats.json")
[[ $(stats_member "$S/stats.json" 's["command_line"]') == "$given" ]] ||
  fail "command_line $(stats_member "$S/stats.json" 's["command_line"]'), expected $given"
start=$(stats_member "$S/stats.json" 'int(datetime.datetime.strptime(s["start_time"], "%Y-%m-%dT%H:%M:%S.%fZ")
  .replace(tzinfo=datetime.timezone.utc).timestamp())')
((start >= before && start <= after)) ||
  fail "start_time $(stats_member "$S/stats.json" 's["start_time"]') is not between $before and $after"
end

begin "--stats with file names holding bytes 0xff and 0xfe: json.load parses it, os.fsencode gives the names back"
name=$(printf '%s/in\xff\xc3\xa9.u64' "$S")
odd_output=$(printf '%s/out\xfe' "$S")
cp "$S/in.u64" "$name"
rmg sort "$name" -o "$odd_output" -t u64 --stats "$S/stats.json"
expect_rc 0
expect_stats "$S/stats.json" keys=100003
expect_same "$odd_output" "$S/sorted.u64"
python3 - "$S/stats.json" "$name" "$odd_output" <<'PY' || fail "the names did not come back"
import json, os, sys
s = json.load(open(sys.argv[1], encoding="utf-8"))
name, output = os.fsencode(sys.argv[2]), os.fsencode(sys.argv[3])
assert os.fsencode(s["input"]) == name, (s["input"], name)
assert os.fsencode(s["output"]) == output, (s["output"], output)
assert name in [os.fsencode(a) for a in s["command_line"]], s["command_line"]
PY
grep -q '\\udcff' "$S/stats.json" || fail "byte 0xff is not written as \\udcff"
rm -f "$name" "$odd_output"
end

begin "failure: a missing input after --stats is opened: exit 2, stats say why, nothing committed"
rmg sort "$S/missing.u64" -o "$S/new-out" -t u64 --stats "$S/fail.json"
expect_rc 2
expect_failure_stats "$S/fail.json" 2 'error~No such file' input="$S/missing.u64" plan=None engine=None keys=None \
  phases_seconds.read=None 'peak_device_memory_bytes=[]'
expect_no_file "$S/new-out"
expect_no_temp "$S"
end

begin "failure: settings refused before anything is read (-T missing, --gpus 99): sort and merge write stats saying why"
rmg sort "$S/in.u64" -o "$S/new-out" -t u64 -T "$S/no-such-dir" --stats "$S/fail.json"
expect_rc 2
expect_failure_stats "$S/fail.json" 2 'error~--temp-dir '"$S/no-such-dir"': is not usable' input="$S/in.u64" plan=None
rmg sort "$S/in.u64" -o "$S/new-out" -t u64 --gpus 99 --stats "$S/fail.json"
expect_rc 2
expect_failure_stats "$S/fail.json" 2 'error~--gpus' input="$S/in.u64"
rmg merge "$S/sorted.u64" -o "$S/new-out" -t u64 -T "$S/no-such-dir" --stats "$S/fail.json"
expect_rc 2
expect_failure_stats "$S/fail.json" 2 'error~--temp-dir '"$S/no-such-dir"': is not usable'
expect_no_file "$S/new-out"
expect_no_temp "$S"
end

begin "failure: input not whole keys (1001 bytes of u64): stats say why, input_format raw, no plan"
head -c 1001 "$S/in.u64" >"$S/odd.u64"
printf 'garbage' >"$S/fail.json"
rmg sort "$S/odd.u64" -o "$S/new-out" -t u64 --stats "$S/fail.json"
expect_rc 2
expect_failure_stats "$S/fail.json" 2 'error~1001 bytes' input_format=raw key_type=u64 plan=None
expect_no_file "$S/new-out"
end

begin "failure: --host-memory too small for spill files: stats say why, the existing output not replaced"
printf 'previous' >"$S/prev-out"
rmg sort "$S/in.u64" -o "$S/prev-out" -t u64 --gpus none --host-memory 1K -T "$S/temp" --stats "$S/fail.json"
expect_rc 2
expect_failure_stats "$S/fail.json" 2 'error~--host-memory' host_memory_limit_bytes=1024 verified=False
[[ $(cat "$S/prev-out") == previous ]] || fail "the existing output was replaced"
expect_no_temp "$S"
end

begin "failure while writing (-o /dev/full): the phases that ran and the plan are in the stats"
rmg sort "$S/in.u64" -o /dev/full -t u64 --gpus none --stats "$S/fail.json"
expect_rc 2
expect_failure_stats "$S/fail.json" 2 'error~No space left' engine=cpu plan.path=in_memory 'phases_seconds.read>0' \
  phases_seconds.sort=None keys=None 'throughput.read_bytes_per_second>0' 'peak_host_memory_bytes>1600047'
end

begin "failure with --stats -: standard output is the failed run's one JSON object"
rmg sort "$S/missing.u64" -o "$S/new-out" -t u64 --stats -
expect_rc 2
expect_failure_stats - 2 'error~No such file'
[[ $(wc -l <"$WORK/stdout") -eq 1 ]] || fail "stdout has $(wc -l <"$WORK/stdout") lines"
end

begin "failure of a stream: a .npy stream shorter than its header says (to stdout), stats to a file"
{ # a 128-byte version 1.0 header of 1000 u64 keys, and 10 keys
  printf '\x93NUMPY\x01\x00\x76\x00'
  printf "%-117s\n" "{'descr': '<u8', 'fortran_order': False, 'shape': (1000,), }"
  head -c 80 "$S/in.u64"
} >"$S/short.npy"
run "$RMGSORT" sort --stats "$S/fail.json" < <(cat "$S/short.npy")
expect_rc 2
expect_failure_stats "$S/fail.json" 2 input=stdin input_format=npy key_type=u64 output=stdout \
  'error~ends after 80 bytes'
expect_stdout_empty
end

begin "a setting refused before the run starts (-T not a directory): exit 2, statistics say why"
rm -f "$S/fail.json"
rmg sort "$S/in.u64" -o "$S/new-out" -t u64 -T "$S/in.u64" --stats "$S/fail.json"
expect_rc 2
expect_failure_stats "$S/fail.json" 2 'error~--temp-dir '"$S/in.u64"': is not a directory'
end

begin "an option that does not parse (--threads 0) or files that collide (--stats naming the input): no statistics"
rm -f "$S/fail.json"
rmg sort "$S/in.u64" -o "$S/new-out" -t u64 --threads 0 --stats "$S/fail.json"
expect_rc 2
expect_no_file "$S/fail.json"
cp "$S/in.u64" "$S/collide.u64"
rmg sort "$S/collide.u64" -o "$S/new-out" -t u64 --stats "$S/collide.u64"
expect_rc 2
expect_same "$S/collide.u64" "$S/in.u64"
end

begin "failure: --verify finds disorder (exit 1, status error, exit_code 1)"
skip "a --verify failure cannot be provoked from outside without a bug in the sort" \
  "(tests/app/sort_report_test.cpp covers its statistics)"

echo "== --progress"
begin "--progress always, -o FILE, a 0.6 s stdin: progress on stderr, the summary line last, nothing on stdout"
run "$RMGSORT" sort -t u64 -o "$S/out" --progress always < <(slow_cat "$S/in.u64")
expect_rc 0
expect_stdout_empty
[[ -s "$WORK/stderr" ]] || fail "nothing on stderr"
expect_progress "phase:reading stdin" summary
expect_stderr "rmgsort: sorted 781.27 KiB in "
expect_same "$S/out" "$S/sorted.u64"
end

begin "--progress always, a spill sort into a slow FIFO: rounds done of rounds planned, bytes, rate, ETA"
slow_fifo "$S/out.fifo"
rmg sort "$S/big.u64" -o "$S/out.fifo" -t u64 --gpus none --host-memory 1M -T "$S/temp" --progress always \
  --stats "$S/stats.json"
wait "$SLOW_READER"
expect_rc 0
expect_stdout_empty
expect_progress "phase:sorting rounds [" rounds bytes rate eta
expect_stats "$S/stats.json" spilled=True 'rounds>2'
expect_same "$S/out.fifo.out" "$S/big-sorted.u64"
end

begin "--progress always, a slow stdin spilled: the bytes read and the rate while spilling"
run "$RMGSORT" sort -t u64 -o "$S/out" --gpus none --host-memory 256K -T "$S/temp" --progress always \
  < <(slow_cat "$S/in.u64" 300000)
expect_rc 0
expect_stdout_empty
expect_progress "phase:spilling stdin to $S/temp" bytes rate
expect_same "$S/out" "$S/sorted.u64"
end

begin "--progress never, a spill sort into a slow FIFO: nothing on stderr, nothing on stdout"
slow_fifo "$S/out.fifo"
rmg sort "$S/big.u64" -o "$S/out.fifo" -t u64 --gpus none --host-memory 1M -T "$S/temp" --progress never
wait "$SLOW_READER"
expect_rc 0
expect_stderr_empty
expect_stdout_empty
expect_same "$S/out.fifo.out" "$S/big-sorted.u64"
end

begin "--progress always with the keys on stdout: stdout holds exactly the sorted keys, progress on stderr"
run "$RMGSORT" sort -t u64 --progress always < <(slow_cat "$S/in.u64")
expect_rc 0
[[ -s "$WORK/stderr" ]] || fail "nothing on stderr"
expect_same "$WORK/stdout" "$S/sorted.u64"
end

begin "--progress always with --stats -: stdout is exactly the JSON object"
run "$RMGSORT" sort -t u64 -o "$S/out" --progress always --stats - < <(slow_cat "$S/in.u64")
expect_rc 0
[[ -s "$WORK/stderr" ]] || fail "nothing on stderr"
expect_stats - keys=100003
end

begin "--progress never, a 0.6 s stdin: nothing on stderr, nothing on stdout"
run "$RMGSORT" sort -t u64 -o "$S/out" --progress never < <(slow_cat "$S/in.u64")
expect_rc 0
expect_stderr_empty
expect_stdout_empty
expect_same "$S/out" "$S/sorted.u64"
end

begin "--progress auto with stderr not a terminal: nothing on stderr"
run "$RMGSORT" sort -t u64 -o "$S/out" < <(slow_cat "$S/in.u64")
expect_rc 0
expect_stderr_empty
end

begin "--progress never with --stats - and the keys on stdout refused: only the error on stderr"
rmg sort "$S/in.u64" -t u64 --progress never --stats -
expect_rc 2
[[ $(wc -l <"$WORK/stderr") -le 2 ]] || fail "more than the error on stderr"
end

if command -v script >/dev/null; then
  begin "--progress auto with stderr a terminal: progress drawn, exit 0, output correct"
  run script -qec "bash -c 'head -c 2000 \"\$0\"; sleep 0.6; tail -c +2001 \"\$0\"' '$S/in.u64' | '$RMGSORT' sort -t u64 -o '$S/tty-out'" /dev/null
  expect_rc 0
  expect_stdout "rmgsort"
  expect_same "$S/tty-out" "$S/sorted.u64"
  end

  begin "--progress never with stderr a terminal: nothing printed"
  run script -qec "bash -c 'head -c 2000 \"\$0\"; sleep 0.6; tail -c +2001 \"\$0\"' '$S/in.u64' | '$RMGSORT' sort -t u64 -o '$S/tty-out' --progress never" /dev/null
  expect_rc 0
  expect_stdout_empty
  end
else
  begin "--progress auto with stderr a terminal"
  skip "script (util-linux) is not installed"
fi

echo "== --progress lines and json"
begin "--progress lines, in memory on the CPU: a line per phase, the sort's with its percentage, then the summary"
rmg sort "$S/in.u64" -o "$S/out" -t u64 --gpus none --progress lines
expect_rc 0
expect_stdout_empty
expect_progress_log lines "done:reading $S/in.u64" "percent:reading $S/in.u64" done:sorting percent:sorting \
  rate:sorting "done:writing $S/out" summary:sorted lines=4
expect_stderr "rmgsort: sorting 781.27 KiB/781.27 KiB (100%) " "rmgsort: sorted 781.27 KiB in " ") on the CPU"
expect_same "$S/out" "$S/sorted.u64"
end

begin "--progress lines, through spill files: spilling, the sort of the rounds with their count, the summary"
rmg sort "$S/big.u64" -o "$S/out" -t u64 --gpus none --host-memory 1M -T "$S/temp" --progress lines
expect_rc 0
expect_stdout_empty
expect_progress_log lines "done:spilling $S/big.u64 to $S/temp" "done:sorting rounds" rounds "bytes:sorting rounds" \
  summary:sorted
expect_stderr "rmgsort: sorted 2.29 MiB in "
expect_same "$S/out" "$S/big-sorted.u64"
end

begin "--progress lines, a 0.6 s stdin: its bytes and rate (no total), no line before the 5 s are over"
run "$RMGSORT" sort -t u64 -o "$S/out" --progress lines < <(slow_cat "$S/in.u64")
expect_rc 0
expect_stdout_empty
expect_progress_log lines "done:reading stdin" "bytes:reading stdin" "rate:reading stdin" "running:reading stdin=0" \
  summary:sorted
expect_stderr "rmgsort: reading stdin 781.27 KiB "
expect_same "$S/out" "$S/sorted.u64"
end

begin "--progress lines, a stdin that pauses 6.5 s: one line while it runs (at 5 s) with the bytes so far, then its last"
run "$RMGSORT" sort -t u64 -o "$S/out" --progress lines < <(slow_cat "$S/big.u64" 1500000 6.5)
expect_rc 0
expect_progress_log lines "running:reading stdin=1" "done:reading stdin" summary:sorted
expect_stderr "rmgsort: reading stdin 1.00 MiB "
expect_same "$S/out" "$S/big-sorted.u64"
end

begin "--progress lines with the keys on stdout: stdout holds exactly the keys, the lines are on stderr"
run "$RMGSORT" sort -t u64 --progress lines <"$S/in.u64"
expect_rc 0
expect_same "$WORK/stdout" "$S/sorted.u64"
expect_progress_log lines "done:reading stdin" summary:sorted
end

begin "--progress lines with 2>&1 into the keys' file: no line lands among the keys"
run bash -c '"$0" sort -t u64 --progress lines <"$1" >"$2" 2>&1' "$RMGSORT" "$S/in.u64" "$S/mixed.out"
expect_rc 0
expect_same "$S/mixed.out" "$S/sorted.u64"
end

begin "--progress lines, a failed run (-o /dev/full): the phases that ended, no summary"
rmg sort "$S/in.u64" -o /dev/full -t u64 --gpus none --progress lines
expect_rc 2
head -n -1 "$WORK/stderr" >"$S/progress.err"
cp "$S/progress.err" "$WORK/stderr"
expect_progress_log lines "done:reading $S/in.u64" done:sorting no-summary
end

begin "--progress json, in memory on the CPU: each line parses, each phase finished, then the done object"
rmg sort "$S/in.u64" -o "$S/out" -t u64 --gpus none --progress json
expect_rc 0
expect_stdout_empty
expect_progress_log json done:reading done:sorting done:writing "description:reading $S/in.u64" bytes=800024 \
  engine=cpu objects=4
python3 -c 'import json, sys
objects = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
sort = [o for o in objects if o["phase"] == "sorting"][-1]
assert sort["bytes_done"] == sort["bytes_total"] == 800024, sort
assert objects[-1]["phase"] == "done" and objects[-1]["bytes_per_second"] > 0, objects[-1]' "$WORK/stderr" ||
  fail "the sort's object or the done object is not as expected"
expect_same "$S/out" "$S/sorted.u64"
end

begin "--progress json, through spill files: objects in rounds, bytes done within the totals"
rmg sort "$S/big.u64" -o "$S/out" -t u64 --gpus none --host-memory 1M -T "$S/temp" --progress json
expect_rc 0
expect_progress_log json done:spilling done:sorting rounds bytes=2400056 engine=cpu
expect_same "$S/out" "$S/big-sorted.u64"
end

begin "--progress json, a 0.6 s stdin: the total unknown (null), the bytes read"
run "$RMGSORT" sort -t u64 -o "$S/out" --progress json < <(slow_cat "$S/in.u64")
expect_rc 0
expect_progress_log json "description:reading stdin" total-unknown:reading done:reading bytes=800024
expect_same "$S/out" "$S/sorted.u64"
end

begin "--progress json, names that are not UTF-8: every line still parses, the name comes back"
name=$(printf '%s/in\xff.u64' "$S")
cp "$S/in.u64" "$name"
rmg sort "$name" -o "$S/out" -t u64 --progress json
expect_rc 0
expect_progress_log json done:reading bytes=800024
python3 - "$WORK/stderr" "$name" <<'PY' || fail "the name did not come back"
import json, os, sys
first = json.loads(open(sys.argv[1], encoding="utf-8").readline())
assert os.fsencode(first["description"]) == b"reading " + os.fsencode(sys.argv[2]), first
PY
rm -f "$name"
end

begin "--progress json, a failed run (-o /dev/full): the phases that ended, then the failure's object and line"
rmg sort "$S/in.u64" -o /dev/full -t u64 --gpus none --progress json
expect_rc 2
expect_progress_log json done:reading done:sorting no-summary failed=2
expect_stderr "rmgsort: /dev/full: write failed: No space left on device"
end

begin "--progress json, an error before any phase (no output directory): the failure's object alone"
rmg sort "$S/in.u64" -o "$S/no-such-dir/out" -t u64 --progress json
expect_rc 2
expect_progress_log json failed=2 objects=1
rmg sort "$S/in.u64" -o "$S/no-such-dir/out" -t u64 --progress lines
expect_rc 2
[[ $(wc -l <"$WORK/stderr") == 1 && $(head -c 1 "$WORK/stderr") == r ]] || fail "--progress lines wrote more than the error"
end

begin "--progress json, a malformed option value (--host-memory foo): the failure's object alone"
rmg sort "$S/in.u64" -o "$S/out" -t u64 --host-memory foo --progress json
expect_rc 2
expect_progress_log json failed=2 objects=1
end

begin "merge --progress json and lines, both methods: the phases, then the summary of the merged bytes"
"$RMGSORT" sort "$S/in.u64" -o "$S/sorted.u64.copy" -t u64 || fail "sort failed"
for method in merge sort; do
  rmg merge "$S/sorted.u64" "$S/sorted.u64.copy" -t u64 -o "$S/both" --method "$method" --progress json
  expect_rc 0
  expect_progress_log json bytes=1600048 engine=cpu no-failure
  rmg merge "$S/sorted.u64" "$S/sorted.u64.copy" -t u64 -o "$S/both" --method "$method" --progress lines
  expect_rc 0
  expect_progress_log lines summary:merged
done
rm -f "$S/both" "$S/sorted.u64.copy"
end

begin "merge --progress json, an input out of order (exit 1): the failure's object says 1"
rmg merge "$S/sorted.u64" "$S/in.u64" -t u64 -o "$S/merged" --progress json
expect_rc 1
expect_progress_log json no-summary failed=1
expect_no_file "$S/merged"
end

begin "--progress json beside the keys (-o - 2>&1): a failure writes its line only"
run bash -c '"$@" 2>&1' json-beside "$RMGSORT" sort "$S/no-such-input" -t u64 -o - --progress json
expect_rc 2
[[ $(cat "$WORK/stdout") == "rmgsort: $S/no-such-input: "* ]] || fail "not only the error line: $(head -c 300 "$WORK/stdout")"
end

begin "check --progress lines --original: checking, checksumming, the summary of both files' bytes"
rmg check "$S/sorted.u64" -t u64 --original "$S/in.u64" --progress lines
expect_rc 0
expect_stdout "OK $S/sorted.u64: 100003 u64 keys"
expect_progress_log lines "done:checking $S/sorted.u64" "percent:checking $S/sorted.u64" \
  "done:checksumming $S/in.u64" summary:checked lines=3
expect_stderr "rmgsort: checked 1.53 MiB in "
end

begin "check --progress json, FILE disordered (exit 1): each line parses, the done object counts the bytes"
rmg check "$S/in.u64" -t u64 --progress json
expect_rc 1
expect_stdout "FAIL $S/in.u64"
expect_progress_log json done:checking bytes=800024 engine=cpu objects=2 no-failure
end

begin "check --progress lines, FILE a slow pipe: its bytes and rate, no total"
run "$RMGSORT" check - -t u64 --progress lines < <(slow_cat "$S/sorted.u64")
expect_rc 0
expect_progress_log lines "done:checking stdin" "bytes:checking stdin" "rate:checking stdin" summary:checked
end

begin "generate --progress json: each line parses (no summary: generate has none)"
rmg generate -o "$S/gen.u64" -t u64 --count 1000 --progress json
expect_rc 0
expect_progress_log json done:generating no-summary
end

begin "--help lists the choices of -t and --progress (sort, check, generate)"
for command in sort check generate; do
  rmg "$command" --help
  expect_rc 0
  expect_stdout "TYPE:{u32,u64,i32,i64,f32,f64,bytes:N}" "MODE:{auto,always,never,lines,json}"
done
end

# gen_to_fifo ARG...: generate -o a FIFO (drained to /dev/null) with ARG...
gen_to_fifo() {
  rm -f "$S/drain.fifo"
  mkfifo "$S/drain.fifo"
  cat "$S/drain.fifo" >/dev/null &
  local drain=$!
  rmg generate -o "$S/drain.fifo" "$@"
  wait "$drain"
}

begin "generate --progress always (512 MiB into a pipe): progress on stderr, nothing on stdout"
gen_to_fifo -t u64 --size 512M --progress always
expect_rc 0
[[ -s "$WORK/stderr" ]] || fail "nothing on stderr"
expect_stdout_empty
end

begin "generate --progress never (512 MiB into a pipe): nothing on stderr"
gen_to_fifo -t u64 --size 512M --progress never
expect_rc 0
expect_stderr_empty
end

summary
