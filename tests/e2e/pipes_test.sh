#!/usr/bin/env bash
# Standard input and output: INPUT defaults to stdin and OUTPUT to stdout, pipes of any length
# (keys split across reads), partial keys, a terminal on stdout refused, check reading stdin, FIFOs.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

IN=$WORK/in
mkdir -p "$IN"
"$RMGSORT" generate -o "$IN/u32.bin" -t u32 --count 1000 --seed 3 &&
  "$RMGSORT" generate -o "$IN/u64.bin" -t u64 --count 5003 --seed 4 --dist zipf:1.0 &&
  "$RMGSORT" generate -o "$IN/f64.bin" -t f64 --count 3001 --seed 5 --dist special &&
  "$RMGSORT" sort "$IN/u32.bin" -o "$IN/u32.sorted" -t u32 || { echo "setup failed"; exit 2; }
cat "$IN/u32.bin" <(printf 'x') >"$IN/u32-plus-1.bin"  # 4001 bytes: a partial key at the end

# slow_cat FILE: writes FILE in pieces of 3, 5, 1000 and the rest bytes with pauses, so a reader
# sees keys split across reads.
slow_cat() {
  head -c 3 "$1"; sleep 0.05
  tail -c +4 "$1" | head -c 5; sleep 0.05
  tail -c +9 "$1" | head -c 1000; sleep 0.05
  tail -c +1009 "$1"
}

echo "== sort: stdin and stdout"
begin "stdin redirected from a file, stdout to a file: the keys sorted"
run "$RMGSORT" sort -t u32 <"$IN/u32.bin"
expect_rc 0
expect_stderr_empty
expect_sorted_like u32 "$IN/u32.bin" "$WORK/stdout"
end

begin "explicit '-' input and '-o -': the keys sorted"
run "$RMGSORT" sort - -o - -t u64 <"$IN/u64.bin"
expect_rc 0
expect_sorted_like u64 "$IN/u64.bin" "$WORK/stdout"
end

begin "pipe in, pipe out (sort -r of f64 specials): the keys sorted, exit 0"
run bash -c 'cat "$1" | "$0" sort -t f64 -r | cat >"$2"; exit ${PIPESTATUS[1]}' "$RMGSORT" "$IN/f64.bin" "$WORK/piped.out"
expect_rc 0
expect_sorted_like f64 "$IN/f64.bin" "$WORK/piped.out" desc
end

begin "keys split across pipe reads (3, 5, 1000, rest bytes): the keys sorted"
run "$RMGSORT" sort -t u64 -o "$WORK/slow.out" < <(slow_cat "$IN/u64.bin")
expect_rc 0
expect_sorted_like u64 "$IN/u64.bin" "$WORK/slow.out"
end

begin "72 MiB through a pipe (more than the first 64 MiB stream buffer): same bytes as sorting the file"
"$RMGSORT" generate -o "$WORK/big.bin" -t u64 --size 72M --seed 11 &&
  "$RMGSORT" sort "$WORK/big.bin" -o "$WORK/big.file-sorted" -t u64 || fail "setup: generate or file sort failed"
run "$RMGSORT" sort -t u64 -o "$WORK/big.pipe-sorted" < <(cat "$WORK/big.bin")
expect_rc 0
expect_same "$WORK/big.pipe-sorted" "$WORK/big.file-sorted"
rmg check "$WORK/big.pipe-sorted" -t u64 --input "$WORK/big.bin"
expect_rc 0
rm -f "$WORK"/big.*
end

begin "empty stdin from a pipe: exit 0, empty output"
run "$RMGSORT" sort -t u32 < <(true)
expect_rc 0
expect_stdout_empty
end

begin "empty stdin (/dev/null) with -o: exit 0, an empty output file"
run "$RMGSORT" sort -t f32 -o "$WORK/empty.out" </dev/null
expect_rc 0
expect_size "$WORK/empty.out" 0
end

begin "generate -o - | sort | check --input: the pipeline reports OK"
run bash -c '"$0" generate -o - -t i64 --count 20000 --seed 9 --dist normal | "$0" sort -t i64 | "$0" check - -t i64 --input "$1"; exit $((PIPESTATUS[0] | PIPESTATUS[1] | PIPESTATUS[2]))' \
  "$RMGSORT" <("$RMGSORT" generate -o - -t i64 --count 20000 --seed 9 --dist normal)
expect_rc 0
expect_stdout "OK stdin: 20000 i64 keys in ascending order" "a permutation of"
end

echo "== partial keys on stdin"
begin "4001 bytes of u32 through a pipe: exit 2, message names stdin, 4001 and the cause, nothing on stdout"
run "$RMGSORT" sort -t u32 < <(cat "$IN/u32-plus-1.bin")
expect_rc 2
expect_stderr "stdin" "4001" "not a whole number"
expect_stdout_empty
end

begin "4001 bytes of u32 through a pipe with -o: exit 2, no output file, no temporary file"
run "$RMGSORT" sort -t u32 -o "$WORK/partial.out" < <(cat "$IN/u32-plus-1.bin")
expect_rc 2
expect_stderr "stdin" "not a whole number"
expect_no_file "$WORK/partial.out"
expect_no_temp "$WORK"
end

begin "4001 bytes of u32 through a pipe with -o an existing file: exit 2, the file untouched"
printf 'previous contents' >"$WORK/previous.out"
run "$RMGSORT" sort -t u32 -o "$WORK/previous.out" < <(cat "$IN/u32-plus-1.bin")
expect_rc 2
[[ "$(cat "$WORK/previous.out")" == "previous contents" ]] || fail "the existing output changed"
expect_no_temp "$WORK"
end

begin "4001 bytes of u32 on stdin redirected from a file: exit 2, message names stdin"
run "$RMGSORT" sort -t u32 <"$IN/u32-plus-1.bin"
expect_rc 2
expect_stderr "stdin" "4001" "not a whole number"
expect_stdout_empty
end

begin "a single byte through a pipe as u64: exit 2"
run "$RMGSORT" sort -t u64 < <(printf 'z')
expect_rc 2
expect_stderr "stdin" "not a whole number"
expect_stdout_empty
end

echo "== standard output is a terminal (script gives a pseudo-terminal)"
if ! command -v script >/dev/null; then
  begin "stdout to a terminal"
  skip "script (util-linux) is not installed"
else
  # tty_run COMMAND: runs COMMAND (a shell string) with a pseudo-terminal as stdin, stdout and stderr;
  # everything it printed lands in $WORK/stdout, its exit status in RC.
  tty_run() {
    run script -qec "$1" /dev/null
  }

  begin "sort FILE with stdout a terminal: exit 2, refused with a message, no key bytes written"
  tty_run "'$RMGSORT' sort '$IN/u32.bin' -t u32"
  expect_rc 2
  expect_stdout "terminal"
  size=$(stat -c %s "$WORK/stdout")
  [[ $size -lt 1000 ]] || fail "$size bytes reached the terminal (the keys are 4000 bytes)"
  end

  begin "sort of stdin (a file) with stdout a terminal: exit 2, refused"
  tty_run "'$RMGSORT' sort -t u32 < '$IN/u32.bin'"
  expect_rc 2
  expect_stdout "terminal"
  size=$(stat -c %s "$WORK/stdout")
  [[ $size -lt 1000 ]] || fail "$size bytes reached the terminal"
  end

  begin "sort -o - with stdout a terminal: exit 2, refused"
  tty_run "'$RMGSORT' sort '$IN/u32.bin' -o - -t u32"
  expect_rc 2
  expect_stdout "terminal"
  end

  begin "generate -o - with stdout a terminal: exit 2, refused"
  tty_run "'$RMGSORT' generate -o - -t u32 --count 1000"
  expect_rc 2
  expect_stdout "terminal"
  size=$(stat -c %s "$WORK/stdout")
  [[ $size -lt 1000 ]] || fail "$size bytes reached the terminal"
  end

  begin "sort -o FILE with stdout a terminal: allowed, exit 0"
  tty_run "'$RMGSORT' sort '$IN/u32.bin' -o '$WORK/tty-ok.out' -t u32 --progress never"
  expect_rc 0
  expect_same "$WORK/tty-ok.out" "$IN/u32.sorted"
  end

  begin "check with stdout a terminal: allowed (it prints text), exit 0"
  tty_run "'$RMGSORT' check '$IN/u32.sorted' -t u32"
  expect_rc 0
  expect_stdout "OK"
  end
fi

echo "== check reading stdin"
begin "check - of sorted keys on stdin: exit 0, OK line naming stdin"
run "$RMGSORT" check - -t u32 <"$IN/u32.sorted"
expect_rc 0
expect_stdout "OK stdin: 1000 u32 keys in ascending order"
[[ $(wc -l <"$WORK/stdout") -eq 1 ]] || fail "not one line"
end

begin "check - of unsorted keys through a pipe: exit 1, FAIL line"
run "$RMGSORT" check - -t u32 < <(cat "$IN/u32.bin")
expect_rc 1
expect_stdout "FAIL stdin" "NOT in ascending order"
end

begin "check - --input ORIGINAL, keys split across pipe reads: exit 0, a permutation"
"$RMGSORT" sort "$IN/u64.bin" -o "$WORK/u64.sorted" -t u64
run "$RMGSORT" check - -t u64 --input "$IN/u64.bin" < <(slow_cat "$WORK/u64.sorted")
expect_rc 0
expect_stdout "OK stdin: 5003 u64 keys in ascending order" "a permutation of"
end

begin "check FILE --input - (the original on stdin): exit 0"
run "$RMGSORT" check "$WORK/u64.sorted" -t u64 --input - < <(slow_cat "$IN/u64.bin")
expect_rc 0
expect_stdout "OK" "a permutation of stdin"
end

begin "check - with a partial key through a pipe: exit 2, message names stdin"
run "$RMGSORT" check - -t u32 < <(cat "$IN/u32.sorted" <(printf 'ab'))
expect_rc 2
expect_stderr "stdin" "not a whole number"
end

begin "check - --input -: exit 2 (both cannot be stdin)"
run "$RMGSORT" check - -t u32 --input - <"$IN/u32.sorted"
expect_rc 2
expect_stderr "standard input"
end

begin "check of an empty pipe: exit 0, 0 keys"
run "$RMGSORT" check - -t f32 < <(true)
expect_rc 0
expect_stdout "OK stdin: 0 f32 keys"
end

echo "== FIFOs and closed pipes"
begin "output to a FIFO: written in place (the FIFO stays a FIFO), the reader gets the sorted keys"
mkfifo "$WORK/out.fifo"
cat "$WORK/out.fifo" >"$WORK/fifo.captured" &
reader=$!
rmg sort "$IN/u32.bin" -o "$WORK/out.fifo" -t u32
expect_rc 0
wait "$reader"
[[ -p "$WORK/out.fifo" ]] || fail "out.fifo is no longer a FIFO"
expect_same "$WORK/fifo.captured" "$IN/u32.sorted"
expect_no_temp "$WORK"
end

begin "input from a FIFO: the keys sorted"
mkfifo "$WORK/in.fifo"
slow_cat "$IN/u32.bin" >"$WORK/in.fifo" &
writer=$!
rmg sort "$WORK/in.fifo" -o "$WORK/from-fifo.out" -t u32
expect_rc 0
wait "$writer"
expect_same "$WORK/from-fifo.out" "$IN/u32.sorted"
end

begin "stdout closed early (sort | head -c 1): killed by SIGPIPE (141), nothing on stderr (closed_pipe_test.sh has the rest)"
"$RMGSORT" generate -o "$WORK/4m.bin" -t u32 --size 4M --seed 2
run bash -c '"$0" sort "$1" -t u32 2>"$2" | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}' "$RMGSORT" "$WORK/4m.bin" "$WORK/epipe.err"
expect_rc 141
cp "$WORK/epipe.err" "$WORK/stderr"
expect_stderr_empty
end

summary
