#!/usr/bin/env bash
# A reader that closes its pipe early (`rmgsort sort ... | head -c 16`) is normal: rmgsort ends
# quietly, killed by SIGPIPE as the shell expects (status 141 under `set -o pipefail`, nothing on
# standard error), with nothing committed and no temporary left; --stats FILE records exit_code 141
# and why. For every output that can be a pipe (sort's -o -, --index-output -, --stats -; generate's
# output; merge's; check's line) and on every path (in memory, through spill files, a .npy output). Started
# with SIGPIPE ignored, rmgsort reports the closed pipe as an error (exit 2), as GNU sort does.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python
set -o pipefail

P=$WORK/p
mkdir -p "$P" "$P/temp"
# 16 MiB: many times any pipe's buffer (at most 1 MiB unprivileged), so the writer meets the closed
# pipe whenever the reader leaves.
"$RMGSORT" generate -o "$P/in.u64" -t u64 --size 16M --seed 7 &&
  "$RMGSORT" generate -o "$P/in.npy" -t u64 --size 16M --seed 8 || { echo "setup failed"; exit 2; }

# piped ARGS...: runs `rmgsort ARGS... | head -c 16` under pipefail with stderr in $WORK/stderr;
# $RC is the pipeline's status (rmgsort's: head succeeds).
piped() {
  "$RMGSORT" "$@" 2>"$WORK/stderr" | head -c 16 >"$WORK/stdout"
  RC=$?
}

# closed_pipe ARGS...: runs rmgsort ARGS... with standard output a pipe whose read end is closed
# before it starts (no race with a reader), stderr in $WORK/stderr; $RC as a shell reports it.
closed_pipe() {
  python3 - "$RMGSORT" "$@" 2>"$WORK/stderr" <<'PY'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
code = subprocess.run(sys.argv[1:], stdout=w, stdin=subprocess.DEVNULL).returncode
sys.exit(128 - code if code < 0 else code)  # -13 (killed by SIGPIPE) as a shell shows it: 141
PY
  RC=$?
}

echo "== sort"
begin "sort | head -c 16: status 141, nothing on stderr, 16 bytes read"
piped sort "$P/in.u64" -t u64
expect_rc 141
expect_stderr_empty
expect_size "$WORK/stdout" 16
end

begin "sort -o - of stdin | head -c 16: status 141, nothing on stderr"
"$RMGSORT" sort -t u64 -o - <"$P/in.u64" 2>"$WORK/stderr" | head -c 16 >/dev/null
RC=$?
expect_rc 141
expect_stderr_empty
end

begin "sort through spill files (--host-memory 4M) | head -c 16: status 141, no spill file left"
piped sort "$P/in.u64" -t u64 --host-memory 4M -T "$P/temp" --gpus none
expect_rc 141
expect_stderr_empty
[[ -z $(ls -A "$P/temp") ]] || fail "left in --temp-dir: $(ls -A "$P/temp")"
end

begin "sort of a .npy file | head -c 16: status 141"
piped sort "$P/in.npy"
expect_rc 141
expect_stderr_empty
end

begin "--index-output - | head -c 16 with -o FILE: status 141, the output not committed, no temporary"
piped sort "$P/in.u64" -t u64 -o "$P/out.u64" --index-output -
expect_rc 141
expect_stderr_empty
expect_no_file "$P/out.u64"
expect_no_temp "$P"
end

begin "--stats - to a closed pipe with -o FILE: status 141, the output not committed"
closed_pipe sort "$P/in.u64" -t u64 -o "$P/out.u64" --stats -
expect_rc 141
expect_stderr_empty
expect_no_file "$P/out.u64"
expect_no_temp "$P"
end

begin "--stats FILE of a run whose reader closed the pipe: status error, exit_code 141, why"
piped sort "$P/in.u64" -t u64 --stats "$P/stats.json"
expect_rc 141
expect_stderr_empty
why=$(python3 - "$P/stats.json" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
assert stats["status"] == "error", stats["status"]
assert stats["exit_code"] == 141, stats["exit_code"]
assert "standard output" in stats["error"] and "the reader closed the pipe" in stats["error"], stats["error"]
PY
) || fail "stats: $why"
end

echo "== merge"
"$RMGSORT" sort "$P/in.u64" -t u64 -o "$P/sorted1.u64" --gpus none &&
  "$RMGSORT" generate -t u64 --size 16M --seed 9 | "$RMGSORT" sort -t u64 -o "$P/sorted2.u64" --gpus none ||
  { echo "setup failed"; exit 2; }

begin "merge | head -c 16: status 141, nothing on stderr"
piped merge "$P/sorted1.u64" "$P/sorted2.u64" -t u64
expect_rc 141
expect_stderr_empty
end

begin "merge in passes (--host-memory 4M) with --stats FILE | head -c 16: 141, exit_code 141, nothing left"
piped merge "$P/sorted1.u64" "$P/sorted2.u64" "$P/sorted1.u64" -t u64 --host-memory 4M -T "$P/temp" \
  --stats "$P/merge-stats.json"
expect_rc 141
expect_stderr_empty
[[ -z $(ls -A "$P/temp") ]] || fail "left in --temp-dir: $(ls -A "$P/temp")"
why=$(python3 - "$P/merge-stats.json" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
assert stats["status"] == "error" and stats["exit_code"] == 141, (stats["status"], stats["exit_code"])
PY
) || fail "stats: $why"
end

echo "== generate and check"
begin "generate -o - | head -c 16: status 141, nothing on stderr"
piped generate -o - -t u64 --size 16M
expect_rc 141
expect_stderr_empty
end

begin "check to a closed pipe: status 141, nothing on stderr"
closed_pipe check "$P/in.u64" -t u64
expect_rc 141
expect_stderr_empty
end

begin "check to a reader that left (| true): status 141 whenever the line met the closed pipe"
"$RMGSORT" check "$P/in.u64" -t u64 2>"$WORK/stderr" | true
RC=$?
# The line may reach the pipe before `true` leaves (then check ends as usual: 1, unsorted).
[[ $RC -eq 141 || $RC -eq 1 ]] || fail "exit status $RC, expected 141 (or 1 had the reader still been there)"
expect_stderr_empty
end

echo "== SIGPIPE inherited ignored"
begin "started with SIGPIPE ignored: the closed pipe is an error, exit 2, named"
bash -c 'trap "" PIPE; exec "$0" sort "$1" -t u64 2>"$2"' "$RMGSORT" "$P/in.u64" "$WORK/stderr" | head -c 16 >/dev/null
RC=$?
expect_rc 2
expect_stderr "rmgsort: standard output: write failed: Broken pipe" "the reader closed the pipe early"
end

summary
