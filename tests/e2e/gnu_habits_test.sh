#!/usr/bin/env bash
# Habits of GNU sort that rmgsort keeps: --host-memory as a share of physical memory (`sort -S 50%`;
# a bare number stays bytes; 0% and more than 100% refused naming the option), generate writing
# to standard output when -o is left out (refused on a terminal, as sort's output is), and -o through
# a dangling symbolic link creating the file it names (the link kept).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

H=$WORK/h
mkdir -p "$H"
"$RMGSORT" generate -o "$H/in.u64" -t u64 --count 100003 --seed 61 &&
  "$RMGSORT" sort "$H/in.u64" -o "$H/sorted.u64" -t u64 || { echo "setup failed"; exit 2; }

# The physical memory as rmgsort reads it: pages times page size, within a cgroup v2 memory.max.
physical_memory() {
  python3 - <<'PY'
import os
total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
try:
    limit = open("/sys/fs/cgroup/memory.max").read().split()[0]
    if limit != "max":
        total = min(total, int(limit))
except OSError:
    pass
print(total)
PY
}

# limit_of STATS: the host_memory_limit_bytes of a --stats file.
limit_of() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["host_memory_limit_bytes"])' "$1"
}

echo "== --host-memory PERCENT"
for share in 50 25 100 12.5; do
  begin "--host-memory $share%: the limit is $share% of physical memory, the keys sorted"
  rmg sort "$H/in.u64" -t u64 -o "$H/out.u64" --host-memory "$share%" --stats "$H/stats.json"
  expect_rc 0
  expect_same "$H/out.u64" "$H/sorted.u64"
  want=$(python3 -c 'import sys; print(int(int(sys.argv[1]) * float(sys.argv[2]) / 100))' "$(physical_memory)" "$share")
  got=$(limit_of "$H/stats.json")
  # The same share taken in long double may differ from Python's double by a byte or so at 12.5%.
  python3 -c 'import sys; a, b = map(int, sys.argv[1:]); sys.exit(abs(a - b) > 16)' "$got" "$want" ||
    fail "host_memory_limit_bytes $got, expected $want"
  end
done

begin "--host-memory 1M: bytes, as ever (a number without % is no share)"
rmg sort "$H/in.u64" -t u64 -o "$H/out.u64" --host-memory 1M --stats "$H/stats.json" --gpus none
expect_rc 0
[[ $(limit_of "$H/stats.json") == 1048576 ]] || fail "host_memory_limit_bytes $(limit_of "$H/stats.json")"
expect_same "$H/out.u64" "$H/sorted.u64"
end

begin "--host-memory 100%: all of memory is the limit, 800 KB sorted without spilling"
rmg sort "$H/in.u64" -t u64 -o "$H/out.u64" --host-memory 100% --stats "$H/stats.json" --gpus none
expect_rc 0
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["spilled"])' "$H/stats.json" || fail "spilled at 100%"
end

for bad in 0% 0.0% 101% 150% 100.01% %; do
  begin "--host-memory $bad: exit 2 naming the option, nothing written"
  rmg sort "$H/in.u64" -t u64 -o "$H/refused.u64" --host-memory "$bad"
  expect_rc 2
  expect_error_message
  expect_stderr "--host-memory" "$bad"
  expect_no_file "$H/refused.u64"
  end
done

echo "== generate without -o: standard output"
begin "generate without -o writes the same bytes as generate -o FILE, raw"
run "$RMGSORT" generate -t f64 --count 12345 --dist special --seed 8
expect_rc 0
expect_stderr_empty
"$RMGSORT" generate -o "$H/gen.f64" -t f64 --count 12345 --dist special --seed 8 || fail "generate -o FILE failed"
expect_same "$WORK/stdout" "$H/gen.f64"
end

begin "generate | sort | check: a pipeline without a file"
run bash -c 'set -o pipefail; "$0" generate -t u64 --count 50000 --seed 9 | "$0" sort -t u64 | "$0" check - -t u64' "$RMGSORT"
expect_rc 0
expect_stdout "OK stdin: 50000 u64 keys in ascending order"
end

begin "generate of records without -o: raw records (no .npy header on standard output)"
run "$RMGSORT" generate -t u64 --record-size 24 --key-offset 8 --count 1000 --seed 10
expect_rc 0
expect_size "$WORK/stdout" 24000
"$RMGSORT" generate -o "$H/rec.bin" -t u64 --record-size 24 --key-offset 8 --count 1000 --seed 10
expect_same "$WORK/stdout" "$H/rec.bin"
end

begin "generate -o FILE.npy keeps its .npy header"
rmg generate -o "$H/gen.npy" -t u32 --count 100 --seed 11
expect_rc 0
expect_size "$H/gen.npy" 528  # a 128-byte header and 400 bytes of data
[[ $(head -c 6 "$H/gen.npy" | od -An -c | tr -d ' ') == '223NUMPY' ]] || fail "no .npy magic"
end

if command -v script >/dev/null; then
  begin "generate without -o with standard output a terminal: exit 2, refused, no key bytes written"
  run script -qec "'$RMGSORT' generate -t u32 --count 1000" /dev/null
  expect_rc 2
  expect_stdout "terminal"
  size=$(stat -c %s "$WORK/stdout")
  [[ $size -lt 1000 ]] || fail "$size bytes reached the terminal"
  end
else
  begin "generate without -o with standard output a terminal"
  skip "script (util-linux) is not installed"
fi

begin "-o through a dangling link (and a chain of two): the file it names is created, the links kept"
mkdir -p "$H/links/sub"
ln -s sub/second "$H/links/first"
ln -s ../made.u64 "$H/links/sub/second"
rmg sort "$H/in.u64" -o "$H/links/first" -t u64
expect_rc 0
[[ -L $H/links/first && -L $H/links/sub/second ]] || fail "a link was replaced"
cmp -s "$H/links/made.u64" "$H/sorted.u64" || fail "the file the links name is not the sorted keys"
end

begin "-o through a dangling link and --index-output naming its missing target: one file, refused"
ln -s missing.idx "$H/links/dangling"
rmg sort "$H/in.u64" -o "$H/links/dangling" --index-output "$H/links/missing.idx" -t u64
expect_rc 2
expect_stderr "are the same file"
[[ -L $H/links/dangling && ! -e $H/links/missing.idx ]] || fail "the link changed or its target was created"
end

begin "-o through a dangling link into a missing directory, or a link loop: exit 2 naming the output"
ln -s nodir/out "$H/links/lost"
ln -s loop "$H/links/loop"
rmg sort "$H/in.u64" -o "$H/links/lost" -t u64
expect_rc 2
expect_stderr "$H/links/lost" "No such file or directory"
rmg sort "$H/in.u64" -o "$H/links/loop" -t u64
expect_rc 2
expect_stderr "$H/links/loop" "too many levels of symbolic links"
[[ -L $H/links/lost && -L $H/links/loop ]] || fail "a link was replaced"
end

begin "generate without -o, standard output closed: exit 2, named"
run bash -c '"$0" generate -t u32 --count 10 >&-' "$RMGSORT"
expect_rc 2
expect_stderr "standard output is closed"
end

summary
