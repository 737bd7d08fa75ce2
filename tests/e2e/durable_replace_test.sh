#!/usr/bin/env bash
# An existing output is replaced only once the new one's data is on its disk: the staged file is
# synced (fdatasync) before the rename that gives it the output's name, so that a crash soon after
# cannot leave the name on unwritten blocks (a sort in place would lose its input). A new output's
# name gets no such wait. Should the sync fail (a deferred write error), the run fails with exit 2,
# naming the output, the existing output whole and nothing left behind.
#
# The order of the system calls is watched, and the failure injected, with strace (skipped where it
# is missing or may not trace).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

if ! command -v strace >/dev/null || ! strace -f -o /dev/null true 2>/dev/null; then
  echo "SKIP durable replacement (strace is missing or may not trace here)"
  exit 77
fi

"$RMGSORT" generate -o "$WORK/in.bin" -t u64 --count 50001 --seed 31 >/dev/null 2>&1 || { echo "setup failed"; exit 2; }
TRACED=fdatasync,fsync,rename,renameat,renameat2,linkat

# traced_sort LOG ARGS...: rmgsort sort ARGS... under strace, the calls in TRACED logged to LOG.
traced_sort() {
  local log=$1
  shift
  run strace -f -qq -e trace=$TRACED -o "$log" "$RMGSORT" sort "$@"
}

# first_line LOG PATTERN: the number of LOG's first line matching PATTERN (extended regex); 0 if none.
first_line() {
  local n
  n=$(grep -nE -- "$2" "$1" | head -n 1 | cut -d: -f1)
  echo "${n:-0}"
}

begin "replacing an existing output: its data is synced before the rename that replaces it"
echo "OLD OUTPUT" >"$WORK/existing.bin"
traced_sort "$WORK/replace.trace" "$WORK/in.bin" -t u64 -o "$WORK/existing.bin"
expect_rc 0
expect_sorted_like u64 "$WORK/in.bin" "$WORK/existing.bin"
synced=$(first_line "$WORK/replace.trace" 'fdatasync\(')
renamed=$(first_line "$WORK/replace.trace" 'rename(at2?)?\(.*existing\.bin')
[[ $renamed -gt 0 ]] || fail "no rename onto existing.bin was traced: $(head -c 600 "$WORK/replace.trace")"
[[ $synced -gt 0 && $synced -lt $renamed ]] ||
  fail "no fdatasync before the rename (lines $synced and $renamed): $(head -c 600 "$WORK/replace.trace")"
expect_no_temp "$WORK"
end

begin "sort FILE -o FILE (in place): the sorted keys are synced before they replace the input"
cp "$WORK/in.bin" "$WORK/same.bin"
traced_sort "$WORK/same.trace" "$WORK/same.bin" -t u64 -o "$WORK/same.bin"
expect_rc 0
expect_sorted_like u64 "$WORK/in.bin" "$WORK/same.bin"
synced=$(first_line "$WORK/same.trace" 'fdatasync\(')
renamed=$(first_line "$WORK/same.trace" 'rename(at2?)?\(.*same\.bin')
[[ $renamed -gt 0 && $synced -gt 0 && $synced -lt $renamed ]] ||
  fail "no fdatasync before the rename (lines $synced and $renamed): $(head -c 600 "$WORK/same.trace")"
end

begin "a new output takes its name without a sync"
traced_sort "$WORK/new.trace" "$WORK/in.bin" -t u64 -o "$WORK/new.bin"
expect_rc 0
expect_sorted_like u64 "$WORK/in.bin" "$WORK/new.bin"
[[ $(first_line "$WORK/new.trace" 'f(data)?sync\(') -eq 0 ]] ||
  fail "a new output was synced: $(grep -E 'f(data)?sync' "$WORK/new.trace" | head -n 3)"
end

begin "the sync failing (EIO injected): exit 2, 'write failed' naming the output, the old output whole"
echo "OLD OUTPUT" >"$WORK/kept.bin"
run strace -f -qq -o /dev/null -e trace=fdatasync -e inject=fdatasync:error=EIO \
  "$RMGSORT" sort "$WORK/in.bin" -t u64 -o "$WORK/kept.bin"
expect_rc 2
expect_error_message
expect_stderr "$WORK/kept.bin" "write failed" "Input/output error"
[[ "$(cat "$WORK/kept.bin")" == "OLD OUTPUT" ]] || fail "the existing output changed"
expect_no_temp "$WORK"
end

begin "--stats replacing an existing statistics file: synced before its rename too"
echo '{"old": true}' >"$WORK/stats.json"
traced_sort "$WORK/stats.trace" "$WORK/in.bin" -t u64 -o "$WORK/stats-out.bin" --stats "$WORK/stats.json"
expect_rc 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d.get("status") == "ok" else 1)' \
  "$WORK/stats.json" || fail "stats.json is not the new run's statistics: $(head -c 300 "$WORK/stats.json")"
synced=$(first_line "$WORK/stats.trace" 'fdatasync\(')
renamed=$(first_line "$WORK/stats.trace" 'rename(at2?)?\(.*stats\.json')
[[ $renamed -gt 0 && $synced -gt 0 && $synced -lt $renamed ]] ||
  fail "no fdatasync before the statistics' rename (lines $synced and $renamed)"
end

summary
