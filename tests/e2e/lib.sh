# Shared helpers of the end-to-end tests; sourced by every tests/e2e/*_test.sh.
#
# A test script is `bash tests/e2e/<topic>_test.sh /path/to/rmgsort`. It works in a private
# directory ($WORK, removed on exit), groups its assertions into cases (begin ... end), prints
# "PASS name", "FAIL name" (with the reasons) or "SKIP name (why)" for each, then a last line
# "N passed, M failed", and exits 0 when no case failed, 1 otherwise (77 when the script as a
# whole cannot run here: ctest counts that as skipped).

set -u

if [[ $# -lt 1 || ! -x "$1" ]]; then
  echo "usage: $0 /path/to/rmgsort (got '${1:-}', which is not an executable)" >&2
  exit 2
fi
RMGSORT=$(realpath "$1")
E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KEYS_PY="$E2E_DIR/keys.py"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rmgsort-e2e.XXXXXX") || { echo "cannot create a work directory" >&2; exit 2; }
E2E_CLEANUP=()  # commands run (in reverse order) before $WORK is removed: umounts, kills

e2e_cleanup() {
  local i
  for ((i = ${#E2E_CLEANUP[@]} - 1; i >= 0; i--)); do eval "${E2E_CLEANUP[i]}" >/dev/null 2>&1 || true; done
  rm -rf "$WORK"
}
trap e2e_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# PY: a python3 with numpy, the independent reference of the records and .npy tests (Debian:
# python3-numpy; the python3 on PATH may be another install without it). Exits 77 (the script is
# skipped) where there is none.
# require_tmpfs_shm: a fresh directory in /dev/shm as $SHM, removed at the end; skips the script
# (77) where /dev/shm is not a writable tmpfs.
require_tmpfs_shm() {
  if [[ ! -d /dev/shm || ! -w /dev/shm ]] || [[ $(stat -f -c %T /dev/shm) != tmpfs ]]; then
    echo "no writable tmpfs at /dev/shm; skipping"
    exit 77
  fi
  SHM=$(mktemp -d /dev/shm/rmgsort-e2e.XXXXXX)
  E2E_CLEANUP+=("rm -rf '$SHM'")
}

# pipeline_ref_agrees ARGS...: tests/e2e/pipeline_ref.py check ARGS... agrees (after require_numpy_python).
pipeline_ref_agrees() {
  local why
  why=$("$PY" "$E2E_DIR/pipeline_ref.py" check "$@" 2>&1) || fail "not the reference: $why"
}

# stat_of FILE MEMBER: a top-level member of a --stats JSON file (empty when absent or null; after
# require_numpy_python or require_python).
stat_of() {
  "$PY" -c 'import json,sys; v = json.load(open(sys.argv[1])).get(sys.argv[2]); print("" if v is None else v)' \
    "$1" "$2" 2>/dev/null
}

require_numpy_python() {
  PY=""
  local candidate
  for candidate in python3 /usr/bin/python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import numpy' 2>/dev/null; then PY=$candidate; return; fi
  done
  echo "numpy (python3-numpy) is needed by this test; skipping"
  exit 77
}

PASSED=0
FAILED=0
SKIPPED=0
CASE_NAME=""
CASE_FAILED=0

begin() {
  CASE_NAME="$1"
  CASE_FAILED=0
}

# Records a failed assertion of the current case.
fail() {
  CASE_FAILED=1
  echo "    FAIL: $*"
}

end() {
  if [[ $CASE_FAILED -eq 0 ]]; then
    PASSED=$((PASSED + 1))
    echo "PASS $CASE_NAME"
  else
    FAILED=$((FAILED + 1))
    echo "FAIL $CASE_NAME"
    if [[ -s "$WORK/stderr" ]]; then
      echo "    last stderr:"
      head -c 2000 "$WORK/stderr" | sed 's/^/      | /'
    fi
  fi
  CASE_NAME=""
}

skip() {
  SKIPPED=$((SKIPPED + 1))
  echo "SKIP $CASE_NAME ($*)"
  CASE_NAME=""
}

# count_verdicts FILE: echoes an independent reference's "PASS ..." and "FAIL ..." lines from FILE
# and counts them as cases.
count_verdicts() {
  local line
  while IFS= read -r line; do
    echo "$line"
    case $line in
      PASS\ *) PASSED=$((PASSED + 1)) ;;
      FAIL\ *) FAILED=$((FAILED + 1)) ;;
    esac
  done <"$1"
}

# Comparisons with an independent Python reference, queued and run in one batch (one interpreter
# start for many cases): the script defines ref() (its reference, whose "verify MANIFEST" prints a
# PASS or FAIL line per queued line and exits 0 or 1) and MANIFEST (an empty file).
# expect_ref ARGS...: queue one comparison, as a line of ARGS.
expect_ref() { echo "$*" >>"$MANIFEST"; }
# flush_ref: run the queued comparisons and count their verdicts as cases.
flush_ref() {
  [[ -s $MANIFEST ]] || return 0
  local rc=0
  ref verify "$MANIFEST" >"$WORK/verified" 2>&1 || rc=$?
  # Exit 1: some comparison failed (its lines say which); anything else: the reference itself failed.
  [[ $rc -le 1 ]] || echo "FAIL the reference comparison itself failed (exit $rc)" >>"$WORK/verified"
  count_verdicts "$WORK/verified"
  : >"$MANIFEST"
}

summary() {
  echo
  [[ $SKIPPED -gt 0 ]] && echo "($SKIPPED skipped)"
  echo "$PASSED passed, $FAILED failed"
  [[ $FAILED -eq 0 ]] && exit 0
  exit 1
}

# run ARGS...: runs ARGS with stdout in $WORK/stdout and stderr in $WORK/stderr; $RC is its exit code.
# Standard input is /dev/null unless redirected by the caller (run ... < file).
run() {
  "$@" >"$WORK/stdout" 2>"$WORK/stderr"
  RC=$?
}

# rmg ARGS...: run "$RMGSORT" ARGS...
rmg() {
  run "$RMGSORT" "$@"
}

expect_rc() {
  [[ $RC -eq $1 ]] || fail "exit status $RC, expected $1"
}

# expect_stderr TEXT...: stderr contains every TEXT (fixed strings).
expect_stderr() {
  local text
  for text in "$@"; do
    grep -qF -- "$text" "$WORK/stderr" || fail "stderr lacks '$text'"
  done
}

expect_stdout() {
  local text
  for text in "$@"; do
    grep -qF -- "$text" "$WORK/stdout" || fail "stdout lacks '$text' (stdout: $(head -c 300 "$WORK/stdout"))"
  done
}

expect_stdout_empty() {
  [[ ! -s "$WORK/stdout" ]] || fail "stdout is not empty ($(stat -c %s "$WORK/stdout") bytes)"
}

expect_stderr_empty() {
  [[ ! -s "$WORK/stderr" ]] || fail "stderr is not empty: $(head -c 300 "$WORK/stderr" | cat -v)"
}

# An error message: one line on stderr, "rmgsort: ..." (CLI11 usage errors add a hint line).
expect_error_message() {
  head -n 1 "$WORK/stderr" | grep -q '^rmgsort: ' || fail "stderr does not start with 'rmgsort: '"
}

expect_no_file() {
  [[ ! -e "$1" && ! -L "$1" ]] || fail "$1 exists but should not"
}

# expect_same FILE1 FILE2: byte-identical.
expect_same() {
  cmp -s -- "$1" "$2" || fail "$1 and $2 differ ($(cmp -- "$1" "$2" 2>&1 | head -n 1))"
}

expect_size() {
  local size
  size=$(stat -c %s -- "$1" 2>/dev/null || echo missing)
  [[ "$size" == "$2" ]] || fail "$1 has size $size, expected $2"
}

# expect_no_temp DIR: no temporary output file (".NAME.rmgsort-XXXXXX") is left in DIR.
expect_no_temp() {
  local left
  left=$(find "$1" -maxdepth 1 -name '.*rmgsort*' 2>/dev/null)
  [[ -z "$left" ]] || fail "temporary file(s) left in $1: $left"
}

# expect_sorted_like TYPE INPUT OUTPUT [desc]: OUTPUT is INPUT sorted, per the independent reference.
expect_sorted_like() {
  local why
  why=$(python3 "$KEYS_PY" expect-sorted "$@" 2>&1) || fail "$3 is not $2 sorted (${4:-asc}ending): $why"
}

# keys TYPE FILE VALUE...: writes the keys (see keys.py write) to FILE.
keys() {
  python3 "$KEYS_PY" write "$@" || { echo "keys.py write $* failed" >&2; exit 2; }
}

require_python() {
  if ! command -v python3 >/dev/null; then
    echo "python3 is needed by this test; skipping"
    exit 77
  fi
}

# has_gpu: a CUDA device node is present (the no-GPU expectations do not apply then).
has_gpu() {
  compgen -G '/dev/nvidia[0-9]*' >/dev/null
}

# Note: `producer | run ...` runs `run` in a subshell and loses $RC; feed pipes with
# `run ... < <(producer)` instead.

# "${DEFAULT_SIGNALS[@]}" CMD...: runs CMD with the terminating signals rmgsort handles at their default
# disposition (a background job of a non-interactive shell would otherwise inherit SIGINT ignored,
# and rmgsort keeps an inherited ignore). Empty where env(1) lacks --default-signal.
DEFAULT_SIGNALS=()
HANDLED_SIGNALS=INT,HUP,TERM,QUIT,ALRM,XCPU,VTALRM,PROF,USR1,USR2,IO
if env --default-signal=$HANDLED_SIGNALS true 2>/dev/null; then DEFAULT_SIGNALS=(env --default-signal=$HANDLED_SIGNALS); fi

# holds_unnamed_file PID DIR: PID has a file with no name (O_TMPFILE) in DIR open, which /proc shows
# as "DIR/#INODE (deleted)": a staged output, or a spill file. DIR as realpath gives it.
holds_unnamed_file() {
  [[ -n $(find "/proc/$1/fd" -mindepth 1 -lname "$2/#* (deleted)" -print -quit 2>/dev/null) ]]
}

# wait_for_temp DIR [PID]: waits (up to 20 s) until the output that rmgsort (PID, by default $!, the
# last background job) writes in DIR is staged: a file with no name open in PID, or a temporary file
# named in DIR where the file system refuses O_TMPFILE.
wait_for_temp() {
  local i pid=${2:-$!} dir
  dir=$(realpath "$1")
  for ((i = 0; i < 2000; i++)); do
    compgen -G "$1/.*rmgsort*" >/dev/null && return 0
    holds_unnamed_file "$pid" "$dir" && return 0
    sleep 0.01
  done
  return 1
}

# wait_or_kill PID: waits up to 20 s for PID to exit, sets RC; kills it (and fails) if it does not.
wait_or_kill() {
  local i
  for ((i = 0; i < 2000; i++)); do
    kill -0 "$1" 2>/dev/null || break
    sleep 0.01
  done
  if kill -0 "$1" 2>/dev/null; then
    fail "rmgsort did not exit within 20 s"
    kill -KILL "$1" 2>/dev/null
  fi
  wait "$1"
  RC=$?
}
