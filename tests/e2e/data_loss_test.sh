#!/usr/bin/env bash
# No run destroys the input or an output: --stats may not name the input, the output or standard
# output when the keys go there, by any name (links, /dev/fd/N, /proc/self/fd/N); standard output may
# not be the input; every output is written and checked before the first commit; a closed standard
# descriptor is refused where it is needed and never reused; a failed run gives back what it added to
# standard output; replacing a file keeps its owner; another user's link in a sticky directory is not
# followed.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

IN=$WORK/in
mkdir -p "$IN"
"$RMGSORT" generate -o "$IN/keys.u64" -t u64 --count 20011 --seed 31 &&
  "$RMGSORT" generate -o "$IN/m8.u64" -t u64 --size 8M --seed 32 &&
  "$RMGSORT" sort "$IN/keys.u64" -o "$IN/sorted.u64" -t u64 ||
  { echo "setup failed"; exit 2; }

# fresh NAME: a copy of the keys at $WORK/NAME, in a directory of its own ($D) with nothing else.
fresh() {
  D=$WORK/case-$1
  rm -rf "$D"
  mkdir -p "$D"
  cp "$IN/keys.u64" "$D/$1"
}

# expect_refused_intact FILE TEXT...: exit 2 naming TEXT, FILE still the unsorted keys, nothing new.
expect_refused_intact() {
  local file=$1
  shift
  expect_rc 2
  expect_error_message
  expect_stderr "$@"
  expect_same "$file" "$IN/keys.u64"
  expect_no_temp "$(dirname "$file")"
}

echo "== --stats naming the input"
begin "stats naming the input: refused before reading, input intact"
fresh k
rmg sort "$D/k" -o "$D/sorted" -t u64 --stats "$D/k"
expect_refused_intact "$D/k" "--stats $D/k" "is the input file"
expect_no_file "$D/sorted"
end

begin "stats naming the input through spill files (--host-memory 100K): refused, input intact, no spill file"
fresh k
mkdir -p "$D/spill"
rmg sort "$D/k" -o "$D/sorted" -t u64 --stats "$D/k" --host-memory 100K --gpus none -T "$D/spill"
expect_refused_intact "$D/k" "is the input file"
expect_no_file "$D/sorted"
[[ -z $(ls -A "$D/spill") ]] || fail "spill files left: $(ls -A "$D/spill")"
end

begin "stats naming the input by a symbolic link, a hard link, /dev/fd/N, /proc/self/fd/N: refused, input intact"
fresh k
ln -s k "$D/soft"
ln "$D/k" "$D/hard"
for name in "$D/soft" "$D/hard" /dev/fd/3 /proc/self/fd/3 "$D/../case-k/k"; do
  rmg sort "$D/k" -o "$D/sorted" -t u64 --stats "$name" 3<"$D/k"
  expect_refused_intact "$D/k" "--stats $name" "is the input file"
done
expect_no_file "$D/sorted"
end

begin "stats naming standard input, which is the input file: refused, input intact"
fresh k
rmg sort -t u64 -o "$D/sorted" --stats /dev/stdin <"$D/k"
expect_refused_intact "$D/k" "is the input file stdin"
end

echo "== two outputs that are one file"
begin "stats naming the output (-o F --stats F): refused, the existing output intact"
fresh k
cp "$IN/keys.u64" "$D/out"
rmg sort "$D/k" -o "$D/out" -t u64 --stats "$D/out"
expect_refused_intact "$D/out" "--stats $D/out and -o $D/out are the same file"
end

begin "stats naming the output by a hard link and by a symbolic link: refused, the output intact"
fresh k
cp "$IN/keys.u64" "$D/out"
ln "$D/out" "$D/hard"
ln -s out "$D/soft"
for name in "$D/hard" "$D/soft"; do
  rmg sort "$D/k" -o "$D/out" -t u64 --stats "$name"
  expect_refused_intact "$D/out" "are the same file"
done
end

begin "stats and output naming one new file (-o new --stats new, -o d/new --stats d/../d/new): refused, nothing created"
fresh k
mkdir -p "$D/d"
rmg sort "$D/k" -o "$D/new" -t u64 --stats "$D/new"
expect_rc 2
expect_stderr "are the same file"
rmg sort "$D/k" -o "$D/d/new" -t u64 --stats "$D/d/../d/new"
expect_rc 2
expect_stderr "are the same file"
expect_no_file "$D/new"
expect_no_file "$D/d/new"
expect_no_temp "$D"
expect_no_temp "$D/d"
end

echo "== standard output"
begin "stats naming standard output (/dev/stdout) with the keys there: refused like --stats -, the file empty"
fresh k
"$RMGSORT" sort "$D/k" -t u64 --stats /dev/stdout >"$D/out.bin" 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_stderr "--stats /dev/stdout and the sorted keys on standard output are the same file"
expect_size "$D/out.bin" 0
for name in /proc/self/fd/1 "$D/out.bin"; do
  "$RMGSORT" sort "$D/k" -t u64 --stats "$name" >"$D/out.bin" 2>"$WORK/stderr"
  RC=$?
  expect_rc 2
  expect_size "$D/out.bin" 0
done
end

begin "stats naming standard output with the keys into a pipe: refused, nothing through the pipe"
fresh k
"$RMGSORT" sort "$D/k" -t u64 --stats /dev/stdout 2>"$WORK/stderr" | cat >"$D/piped"
RC=${PIPESTATUS[0]}
expect_rc 2
expect_stderr "are the same file"
expect_size "$D/piped" 0
end

begin "--stats - with -o naming the file standard output is: refused, that file intact"
fresh k
cp "$IN/keys.u64" "$D/out"
"$RMGSORT" sort "$D/k" -o "$D/out" -t u64 --stats - 1<>"$D/out" 2>"$WORK/stderr"
RC=$?
expect_refused_intact "$D/out" "are the same file"
end

begin "standard output is the input (sort F 1<>F): refused, the message says to use -o, F intact"
fresh k
"$RMGSORT" sort "$D/k" -t u64 1<>"$D/k" 2>"$WORK/stderr"
RC=$?
expect_refused_intact "$D/k" "standard output is the input file $D/k" "use -o $D/k to sort in place"
"$RMGSORT" sort -t u64 <"$D/k" 1<>"$D/k" 2>"$WORK/stderr"
RC=$?
expect_refused_intact "$D/k" "standard output is the input file stdin"
# Only the positions on standard output (-o FILE --index-output -): the message says those, not -o.
"$RMGSORT" sort "$D/k" -t u64 -o "$D/sorted" --index-output - >>"$D/k" 2>"$WORK/stderr"
RC=$?
expect_refused_intact "$D/k" "standard output is the input file $D/k: the positions (--index-output -)" \
  "use --index-output FILE"
expect_no_file "$D/sorted"
# /dev/null as both is no input file: still sorts (nothing).
"$RMGSORT" sort -t u64 </dev/null >/dev/null 2>"$WORK/stderr"
RC=$?
expect_rc 0
end

begin "outputs sharing /dev/null (-o /dev/null --stats /dev/null; > /dev/null --stats /dev/stdout): they lose nothing, so they run"
fresh k
"$RMGSORT" sort "$D/k" -o /dev/null -t u64 --stats /dev/null 2>"$WORK/stderr"
RC=$?
expect_rc 0
"$RMGSORT" sort "$D/k" -t u64 --stats /dev/stdout >/dev/null 2>"$WORK/stderr"
RC=$?
expect_rc 0
end

begin "--stats - where standard output is the input (sort F -o G --stats - 1<>F): refused, F intact"
fresh k
"$RMGSORT" sort "$D/k" -o "$D/sorted" -t u64 --stats - 1<>"$D/k" 2>"$WORK/stderr"
RC=$?
expect_refused_intact "$D/k" "--stats - (standard output): is the input file"
expect_no_file "$D/sorted"
end

echo "== standard error"
# A file replaced by rename that is standard error's (2>> run.log with -o /dev/stderr) would take the
# log's lines with it and leave every later message in a file nobody sees: refused. --stats there is
# written through descriptor 2 instead, after the log's lines, as into a pipe.
begin "-o or --index-output naming standard error's file, by any name: refused, the log kept with the message"
fresh k
for args in "--index-output /proc/self/fd/2" "-o /dev/stderr" "--index-output $D/run.log"; do
  printf 'an earlier line\n' >"$D/run.log"
  output=(-o "$D/sorted")
  [[ $args == -o* ]] && output=()
  # shellcheck disable=SC2086 # ARGS is an option and its value
  "$RMGSORT" sort "$D/k" "${output[@]}" -t u64 $args 2>>"$D/run.log"
  RC=$?
  expect_rc 2
  [[ $(head -1 "$D/run.log") == "an earlier line" ]] || fail "$args: the log lost its earlier line"
  grep -q "is the file standard error writes to" "$D/run.log" || fail "$args: the message is not in the log"
done
"$RMGSORT" merge "$IN/sorted.u64" -t u64 -o /dev/stderr 2>>"$D/run.log"
RC=$?
expect_rc 2
[[ $(head -1 "$D/run.log") == "an earlier line" ]] || fail "merge: the log lost its earlier line"
expect_no_file "$D/sorted"
expect_same "$D/k" "$IN/keys.u64"
end

# last_json LOG STATUS: LOG's first line is still "an earlier line" and its last line is statistics of STATUS.
last_json() {
  [[ $(head -1 "$1") == "an earlier line" ]] || fail "the log lost its earlier line: $(head -c 200 "$1")"
  tail -1 "$1" | python3 -c 'import json,sys; s = json.load(sys.stdin); sys.exit(0 if s["status"] == sys.argv[1] else 1)' "$2" ||
    fail "the log's last line is not statistics with status $2: $(tail -c 300 "$1")"
}

begin "--stats naming standard error's file, by any name: appended to the log, which keeps its lines"
fresh k
for stats in /dev/stderr /proc/self/fd/2 "$D/run.log"; do
  printf 'an earlier line\n' >"$D/run.log"
  "$RMGSORT" sort "$D/k" -o "$D/sorted" -t u64 --stats "$stats" --progress never 2>>"$D/run.log"
  RC=$?
  expect_rc 0
  last_json "$D/run.log" ok
  [[ $(wc -l <"$D/run.log") -eq 2 ]] || fail "--stats $stats: more than the statistics in the log"
  expect_same "$D/k" "$IN/keys.u64"
  rm -f "$D/sorted"
done
# Opened without O_APPEND (2> run.log): written at standard error's offset, after what came before.
{ printf 'an earlier line\n' >&2; "$RMGSORT" merge "$IN/sorted.u64" -t u64 -o "$D/merged" --stats /dev/stderr; } 2>"$D/run.log"
RC=$?
expect_rc 0
last_json "$D/run.log" ok
# A failed run: its statistics, then its message, both in the log; nothing committed.
printf 'an earlier line\n' >"$D/run.log"
"$RMGSORT" sort "$D/missing" -o "$D/sorted" -t u64 --stats "$D/run.log" 2>>"$D/run.log"
RC=$?
expect_rc 2
[[ $(tail -1 "$D/run.log") == *"missing: cannot open"* ]] || fail "the message is not the log's last line"
head -n -1 "$D/run.log" >"$D/without_message"
last_json "$D/without_message" error
expect_no_file "$D/sorted"
# Standard error that is the input: still refused (the statistics would be appended to the input).
"$RMGSORT" sort "$D/k" -o "$D/sorted" -t u64 --stats /dev/stderr 2>>"$D/k"
RC=$?
expect_rc 2
[[ $(head -c "$(stat -c %s "$IN/keys.u64")" "$D/k" | cmp -s - "$IN/keys.u64"; echo $?) == 0 ]] || fail "the input's keys changed"
expect_no_file "$D/sorted"
rm -f "$D"/*
end

begin "stats naming standard error when it is a pipe or a terminal's stand-in (/dev/null): written there, exit 0"
fresh k
"$RMGSORT" sort "$D/k" -o "$D/sorted" -t u64 --stats /dev/stderr 2>&1 >/dev/null | cat >"$D/piped"
RC=${PIPESTATUS[0]}
expect_rc 0
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["status"] == "ok" else 1)' "$D/piped" ||
  fail "the statistics did not come through the pipe"
"$RMGSORT" sort "$D/k" -o "$D/sorted" -t u64 --stats /dev/stderr 2>/dev/null
RC=$?
expect_rc 0
end

echo "== nothing committed by a failed run"
begin "--stats - into a full device: exit 2 and the existing output not replaced"
fresh k
printf OLD >"$D/prev.u64"
"$RMGSORT" sort "$D/k" -o "$D/prev.u64" -t u64 --stats - >/dev/full 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_stderr "standard output" "No space left on device"
[[ $(cat "$D/prev.u64") == OLD ]] || fail "prev.u64 was replaced"
expect_no_temp "$D"
end

begin "--stats - with standard output closed: refused before anything, the existing output not replaced"
fresh k
printf OLD >"$D/prev.u64"
"$RMGSORT" sort "$D/k" -o "$D/prev.u64" -t u64 --stats - >&- 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_stderr "standard output is closed"
[[ $(cat "$D/prev.u64") == OLD ]] || fail "prev.u64 was replaced"
expect_no_temp "$D"
end

begin "keys to a closed standard output: refused, and the stats file does not take its place"
fresh k
"$RMGSORT" sort "$D/k" -t u64 --stats "$D/stats.json" >&- 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_stderr "standard output is closed"
expect_no_file "$D/stats.json"
expect_no_temp "$D"
# Closed but not needed (-o F --stats S): sorted, and S is the statistics.
"$RMGSORT" sort "$D/k" -o "$D/out" -t u64 --stats "$D/stats.json" >&- 2>"$WORK/stderr"
RC=$?
expect_rc 0
expect_sorted_like u64 "$IN/keys.u64" "$D/out"
python3 "$KEYS_PY" stats "$D/stats.json" >/dev/null 2>&1 || fail "stats.json is not the statistics"
end

begin "input from a closed standard input: refused, and the stats file is not read as the input"
fresh k
"$RMGSORT" sort -t u64 -o "$D/out" --stats "$D/stats.json" <&- 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_stderr "standard input is closed"
expect_no_file "$D/out"
expect_no_file "$D/stats.json"
end

begin "generate to a closed standard output, check of a closed standard input: refused, not written to or read from /dev/null"
"$RMGSORT" generate -o - -t u64 --count 1000 >&- 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_stderr "standard output is closed"
"$RMGSORT" check - -t u64 <&- 2>"$WORK/stderr" >/dev/null
RC=$?
expect_rc 2
expect_stderr "standard input is closed"
end

begin "--progress always with standard error into the keys' file (> out 2>&1): no line among the keys, exit 0 and sorted"
fresh k
"$RMGSORT" generate -o "$D/big.u64" -t u64 --size 48M --seed 33
"$RMGSORT" sort "$D/big.u64" -o "$D/ref.u64" -t u64 --gpus none
"$RMGSORT" sort "$D/big.u64" -t u64 --gpus none --host-memory 4M --progress always --verify >"$D/out.u64" 2>&1
RC=$?
expect_rc 0
expect_same "$D/out.u64" "$D/ref.u64"
rm -f "$D/big.u64" "$D/ref.u64" "$D/out.u64"
end

begin "a closed standard output or input named by another path (/dev/stdout, /dev/fd/1, /dev/stdin): refused, nothing written"
printf 'OLD' >"$WORK/c.out"
"$RMGSORT" sort "$IN/keys.u64" -t u64 -o /dev/stdout >&- 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_stderr "-o /dev/stdout: names standard output, which is closed"
"$RMGSORT" generate -t u64 --count 10 -o /dev/fd/1 >&- 2>"$WORK/stderr"
RC=$?
expect_rc 2
"$RMGSORT" sort "$IN/keys.u64" -t u64 -o "$WORK/c2.out" --stats /dev/stdout >&- 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_no_file "$WORK/c2.out"
"$RMGSORT" sort /dev/stdin -t u64 -o "$WORK/c.out" <&- 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_stderr "/dev/stdin: names standard input, which is closed"
[[ $(cat "$WORK/c.out") == OLD ]] || fail "the existing output was replaced"
end

echo "== standard output of a failed run"
begin "failed spill with the keys on standard output: the file is not left full of zeros"
fresh k
TMPDIR=/nonexistent "$RMGSORT" sort "$IN/m8.u64" -t u64 --host-memory 256K --gpus none >"$D/zeros.out" 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_size "$D/zeros.out" 0
expect_stderr "TMPDIR /nonexistent: cannot create a spill file"  # where the directory came from
end

begin "failed run after what standard output already held: that stays, nothing added"
fresh k
{
  printf header
  TMPDIR=/nonexistent "$RMGSORT" sort "$IN/m8.u64" -t u64 --host-memory 256K --gpus none 2>"$WORK/stderr"
  echo "rc=$?" >"$D/rc"
  printf trailer
} >"$D/held.out"
[[ $(cat "$D/rc") == rc=2 ]] || fail "exit status $(cat "$D/rc"), expected 2"
printf headertrailer >"$D/expected"
expect_same "$D/held.out" "$D/expected"
end

begin "standard output opened read-write (1<>F, not the input): the bytes after the keys are kept"
fresh k
python3 -c 'import sys; sys.stdout.buffer.write(b"\xaa" * 300000)' >"$D/rw.out"
"$RMGSORT" sort "$D/k" -t u64 1<>"$D/rw.out" 2>"$WORK/stderr"
RC=$?
expect_rc 0
expect_size "$D/rw.out" 300000
head -c 160088 "$D/rw.out" >"$D/rw.head"
expect_same "$D/rw.head" "$IN/sorted.u64"
[[ -z $(tail -c +160089 "$D/rw.out" | tr -d '\252') ]] || fail "the bytes after the keys were changed"
end

echo "== owners and links (as root)"
PRIV=(setpriv --reuid=65534 --regid=65534 --clear-groups)
begin "root sorting another user's file in place: it stays that user's, with its mode"
if [[ $EUID -ne 0 ]]; then
  skip "needs root"
else
  fresh k
  chown 65534:65534 "$D/k"
  chmod 0600 "$D/k"
  rmg sort "$D/k" -o "$D/k" -t u64
  expect_rc 0
  expect_sorted_like u64 "$IN/keys.u64" "$D/k"
  [[ $(stat -c '%u:%g %a' "$D/k") == "65534:65534 600" ]] || fail "now $(stat -c '%u:%g %a' "$D/k"), expected 65534:65534 600"
  chmod 4600 "$D/k"
  rmg sort "$D/k" -o "$D/k" -t u64
  expect_rc 0
  [[ $(stat -c '%u:%g %a' "$D/k") == "65534:65534 4600" ]] || fail "now $(stat -c '%u:%g %a' "$D/k"), expected 65534:65534 4600"
  end
fi

begin "a set-user-ID file sorted in place by a user who cannot keep its owner: no set-ID bit on the new file"
if [[ $EUID -ne 0 ]]; then
  skip "needs root"
elif ! command -v setpriv >/dev/null || ! "${PRIV[@]}" "$RMGSORT" --version >/dev/null 2>&1; then
  skip "cannot run rmgsort as user nobody here"
else
  fresh k
  chmod 0755 "$WORK"
  chmod 0777 "$D"
  chmod 6666 "$D/k"
  run "${PRIV[@]}" "$RMGSORT" sort "$D/k" -o "$D/k" -t u64
  expect_rc 0
  expect_sorted_like u64 "$IN/keys.u64" "$D/k"
  [[ $(stat -c '%u %a' "$D/k") == "65534 666" ]] || fail "now $(stat -c '%u %a' "$D/k"), expected 65534 666"
  chmod 0700 "$WORK"
  end
fi

begin "-o and --stats on another user's link in a sticky directory: refused naming the link, its target intact"
if [[ $EUID -ne 0 ]]; then
  skip "needs root"
else
  fresh k
  cp "$IN/keys.u64" "$D/victim"
  mkdir -p "$D/sticky"
  chmod 1777 "$D/sticky"
  ln -s "$D/victim" "$D/sticky/link"
  chown -h 65534:65534 "$D/sticky/link"
  rmg sort "$D/k" -o "$D/sticky/link" -t u64
  expect_refused_intact "$D/victim" "$D/sticky/link" "sticky, world-writable directory" "fs.protected_symlinks"
  rmg sort "$D/k" -o "$D/out" -t u64 --stats "$D/sticky/link"
  expect_refused_intact "$D/victim" "--stats" "fs.protected_symlinks"
  expect_no_file "$D/out"
  [[ -L "$D/sticky/link" ]] || fail "the link was replaced"
  # The directory owner's (here: root's, the running user's) link is followed as before.
  chown -h 0:0 "$D/sticky/link"
  rmg sort "$D/k" -o "$D/sticky/link" -t u64
  expect_rc 0
  expect_sorted_like u64 "$IN/keys.u64" "$D/victim"
  end
fi

summary
