#!/usr/bin/env bash
# Every error path of `rmgsort sort` (and the usage errors of check and generate): exit status 2, a
# message that names the file or option and the cause, nothing on stdout, no output file created, an
# existing output left untouched, no temporary file left behind.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

IN=$WORK/in
mkdir -p "$IN" "$WORK/adir"
"$RMGSORT" generate -o "$IN/keys.bin" -t u32 --count 1000 --seed 7 || { echo "generate failed"; exit 2; }
head -c 4001 /dev/urandom >"$IN/odd4001.bin"
head -c 12 /dev/urandom >"$IN/odd12.bin"
head -c 4 /dev/urandom >"$IN/four.bin"
printf 'not a directory' >"$WORK/plainfile"

# sort_error DESC TEXTS ARG...: `rmgsort ARG...` (each @OUT@ replaced by an output path) fails with
# exit 2 and a message containing every ';'-separated TEXT; run once with an output that does not
# exist (it must not be created) and once with one that does (it must stay as it was).
sort_error() {
  local desc=$1 texts=$2 parts
  shift 2
  IFS=';' read -ra parts <<<"$texts"

  begin "$desc: exit 2 with a message naming ${texts//;/ + }, no output file created"
  local fresh=$WORK/fresh.out
  rm -f "$fresh"
  rmg "${@//@OUT@/$fresh}"
  expect_rc 2
  expect_error_message
  expect_stderr "${parts[@]}"
  expect_stdout_empty
  expect_no_file "$fresh"
  expect_no_temp "$WORK"
  end

  if [[ "$*" == *@OUT@* ]]; then
    begin "$desc: an existing output is left untouched"
    local existing=$WORK/existing.out
    printf 'OLD OUTPUT, 32 bytes, must stay.' >"$existing"
    cp "$existing" "$WORK/existing.ref"
    rmg "${@//@OUT@/$existing}"
    expect_rc 2
    expect_same "$existing" "$WORK/existing.ref"
    expect_no_temp "$WORK"
    end
  fi
}

echo "== input errors"
sort_error "missing input" "missing.bin;No such file or directory" sort "$IN/missing.bin" -o @OUT@ -t u32
sort_error "missing second input" "missing.bin;No such file or directory" sort "$IN/keys.bin" "$IN/missing.bin" -o @OUT@ -t u32
sort_error "second input of 4001 bytes" "odd4001.bin;4001;not a whole number;u32" sort "$IN/keys.bin" "$IN/odd4001.bin" -o @OUT@ -t u32
# A name's control characters ("\n", a terminal's escape sequence) are written as '?': one line.
head -c 12 /dev/urandom >"$IN/"$'bad\nname\e[7m.bin'
sort_error "a name with a newline and an escape sequence, as one line with '?' for them" \
  "bad?name?[7m.bin: 12 bytes are not a whole number of" sort "$IN/"$'bad\nname\e[7m.bin' -o @OUT@ -t u64
begin "that message is one line of printable characters"
rmg sort "$IN/"$'bad\nname\e[7m.bin' -o "$WORK/fresh.out" -t u64
expect_rc 2
[[ $(wc -l <"$WORK/stderr") -eq 1 ]] || fail "the message is not one line: $(cat -A "$WORK/stderr")"
LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$WORK/stderr" && fail "a control character in: $(cat -A "$WORK/stderr")"
end
begin "a usage error repeating what was typed: its control characters as '?' too"
rmg check "$IN/keys.bin" $'\e[7mextra\nword'
expect_rc 2
expect_stderr "?[7mextra?word"
LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$WORK/stderr" && fail "a control character in: $(cat -A "$WORK/stderr")"
end
sort_error "input is a directory" "adir: is a directory, not a file to read" sort "$WORK/adir" -o @OUT@ -t u32
sort_error "u32 input of 4001 bytes" "odd4001.bin;4001;not a whole number;u32" sort "$IN/odd4001.bin" -o @OUT@ -t u32
sort_error "u64 input of 12 bytes" "odd12.bin;12;not a whole number;u64" sort "$IN/odd12.bin" -o @OUT@ -t u64
sort_error "f64 input of 4 bytes" "four.bin;4;not a whole number;f64" sort "$IN/four.bin" -o @OUT@ -t f64
sort_error "i32 input of 12 bytes read as i64" "odd12.bin;not a whole number;i64" sort "$IN/odd12.bin" -o @OUT@ -t i64

echo "== type errors"
sort_error "unknown type u33" "--type;u33" sort "$IN/keys.bin" -o @OUT@ -t u33
sort_error "unknown type f16" "--type;f16" sort "$IN/keys.bin" -o @OUT@ -t f16
sort_error "type missing" "--type" sort "$IN/keys.bin" -o @OUT@
sort_error "check: unknown type" "--type;q64" check "$IN/keys.bin" -t q64
sort_error "generate: unknown type" "--type;u8" generate -o @OUT@ -t u8 --count 10

echo "== option errors"
sort_error "malformed --host-memory 12Q" "--host-memory;12Q" sort "$IN/keys.bin" -o @OUT@ -t u32 --host-memory 12Q
sort_error "malformed --host-memory -1" "--host-memory;-1" sort "$IN/keys.bin" -o @OUT@ -t u32 --host-memory=-1
sort_error "malformed --host-memory 1.5 (a fraction needs a suffix)" "--host-memory;1.5" sort "$IN/keys.bin" -o @OUT@ -t u32 --host-memory 1.5
sort_error "malformed --host-memory 1.3K (not a whole number of bytes)" "--host-memory;1.3K" sort "$IN/keys.bin" -o @OUT@ -t u32 --host-memory 1.3K
sort_error "--host-memory 99999999999999999999 is too large (beyond 64 bits)" "--host-memory;too large" sort "$IN/keys.bin" -o @OUT@ -t u32 --host-memory 99999999999999999999
sort_error "--host-memory 20000000T is too large (beyond 64 bits)" "--host-memory;20000000T' is too large" sort "$IN/keys.bin" -o @OUT@ -t u32 --host-memory 20000000T
sort_error "--host-memory 0" "--host-memory" sort "$IN/keys.bin" -o @OUT@ -t u32 --host-memory 0
sort_error "malformed --gpu-memory" "--gpu-memory;lots" sort "$IN/keys.bin" -o @OUT@ -t u32 --gpu-memory lots
sort_error "--threads 0" "--threads" sort "$IN/keys.bin" -o @OUT@ -t u32 --threads 0
sort_error "--threads abc" "--threads" sort "$IN/keys.bin" -o @OUT@ -t u32 --threads abc
sort_error "unknown --progress mode" "--progress;sometimes" sort "$IN/keys.bin" -o @OUT@ -t u32 --progress sometimes
sort_error "unknown option" "--frobnicate" sort "$IN/keys.bin" -o @OUT@ -t u32 --frobnicate
sort_error "two inputs" "extra.bin" sort "$IN/keys.bin" "$IN/extra.bin" -o @OUT@ -t u32
sort_error "no subcommand" "unknown option -t;follow the command: sort, merge, generate or check" -t u32
sort_error "unknown subcommand" "shuffle" shuffle "$IN/keys.bin"

# usage_error DESC MESSAGE HINT ARG...: `rmgsort ARG...` exits 2 with exactly two lines on stderr,
# MESSAGE and HINT, in rmgsort's words (CLI11's own texts, such as "At Most 1 required but received
# 2", never show), nothing on stdout and no file created in the working directory.
usage_error() {
  local desc=$1 message=$2 hint=$3
  shift 3
  begin "usage: $desc: exit 2, '$message'"
  local dir=$WORK/usage
  rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 2
  rmg "$@"
  cd "$WORK" || exit 2
  expect_rc 2
  expect_stdout_empty
  [[ "$(cat "$WORK/stderr")" == "$message"$'\n'"$hint" ]] ||
    fail "stderr is not exactly '$message' + '$hint'"
  [[ -z "$(ls -A "$dir")" ]] || fail "files were created: $(ls -A "$dir")"
  end
}

echo "== usage errors, in rmgsort's words"
SORT_HINT="Run 'rmgsort sort --help' for its options."
GENERATE_HINT="Run 'rmgsort generate --help' for its options."
CHECK_HINT="Run 'rmgsort check --help' for its options."
MAIN_HINT="Run 'rmgsort --help' for usage."
usage_error "-o twice" "rmgsort: -o/--output given 2 times (expected one FILE)" "$SORT_HINT" \
  sort "$IN/keys.bin" -t u32 -o a -o b
usage_error "--gpus twice" "rmgsort: --gpus given 2 times (expected one LIST)" "$SORT_HINT" \
  sort "$IN/keys.bin" -t u32 --gpus all --gpus none
usage_error "-t three times" "rmgsort: -t/--type given 3 times (expected one TYPE)" "$SORT_HINT" \
  sort "$IN/keys.bin" -t u32 -t u64 --type u32
usage_error "--threads twice (generate)" "rmgsort: --threads given 2 times (expected one N)" "$GENERATE_HINT" \
  generate -o out -t u32 --count 1 --threads 1 --threads 2
usage_error "-o without its value" "rmgsort: -o/--output needs a value (FILE)" "$SORT_HINT" sort "$IN/keys.bin" -t u32 -o
usage_error "--input without its value" "rmgsort: --input needs a value (ORIGINAL)" "$CHECK_HINT" check "$IN/keys.bin" --input
usage_error "--threads= (no value)" "rmgsort: --threads needs a value (N)" "$SORT_HINT" sort "$IN/keys.bin" --threads=
usage_error "unknown option" "rmgsort: sort has no option --frobnicate" "$SORT_HINT" sort "$IN/keys.bin" --frobnicate
usage_error "unknown option of check" "rmgsort: check has no option --output" "$CHECK_HINT" check "$IN/keys.bin" --output x
usage_error "unknown option before the command" \
  "rmgsort: unknown option --frobnicate (options follow the command: sort, merge, generate or check)" "$MAIN_HINT" --frobnicate
usage_error "--count and --size" "rmgsort: --count and --size exclude each other (generate takes one of them)" \
  "$GENERATE_HINT" generate -o out -t u32 --count 10 --size 1K
usage_error "no command" "rmgsort: no command given (expected sort, merge, generate or check)" "$MAIN_HINT"
usage_error "a second FILE to check" "rmgsort: unexpected argument 'b.bin' (check takes one FILE)" "$CHECK_HINT" \
  check a.bin b.bin -t u32
usage_error "a positional for generate" "rmgsort: unexpected argument 'extra' (generate takes options only)" \
  "$GENERATE_HINT" generate -o out -t u32 --count 1 extra
usage_error "generate without -t" "rmgsort: generate needs -t/--type TYPE" "$GENERATE_HINT" generate -o out --count 1
usage_error "check without FILE" "rmgsort: check needs FILE" "$CHECK_HINT" check -t u32
usage_error "--threads abc" "rmgsort: --threads: 'abc' is not a whole number from 1 to 4096" "$SORT_HINT" \
  sort "$IN/keys.bin" -t u32 --threads abc
usage_error "--threads 0" "rmgsort: --threads: '0' is not a whole number from 1 to 4096" "$SORT_HINT" \
  sort "$IN/keys.bin" -t u32 --threads 0
usage_error "--threads -1" "rmgsort: --threads: '-1' is not a whole number from 1 to 4096" "$SORT_HINT" \
  sort "$IN/keys.bin" -t u32 --threads -1
usage_error "--threads 5000 (generate)" "rmgsort: --threads: '5000' is not a whole number from 1 to 4096" \
  "$GENERATE_HINT" generate -o out -t u32 --count 1 --threads 5000
usage_error "--verify=yes" "rmgsort: --verify takes no value" "$SORT_HINT" sort "$IN/keys.bin" -t u32 --verify=yes
usage_error "--descending=abc" "rmgsort: -r/--descending takes no value" "$SORT_HINT" \
  sort "$IN/keys.bin" -t u32 --descending=abc
usage_error "--descending=1 (check)" "rmgsort: -r/--descending takes no value" "$CHECK_HINT" \
  check "$IN/keys.bin" -t u32 --descending=1
usage_error "empty --host-memory" "rmgsort: --host-memory: empty value" "$SORT_HINT" \
  sort "$IN/keys.bin" -t u32 --host-memory ''
# -t and --progress list their choices in --help (TYPE:{...}, MODE:{...}); a value not among them
# is refused while parsing, in rmgsort's words (never CLI11's "... not in {...}"), and the choices
# stay out of the other messages that name the value ("expected one TYPE").
usage_error "-t u33" \
  "rmgsort: --type: unknown key type 'u33' (expected one of u32 u64 i32 i64 f32 f64 bytes:N, N = 1..32)" \
  "$SORT_HINT" sort "$IN/keys.bin" -t u33
usage_error "-t bytes:33 (check)" \
  "rmgsort: --type: unknown key type 'bytes:33' (expected one of u32 u64 i32 i64 f32 f64 bytes:N, N = 1..32)" \
  "$CHECK_HINT" check "$IN/keys.bin" -t bytes:33
usage_error "--type U32 (generate: names are lower case)" \
  "rmgsort: --type: unknown key type 'U32' (expected one of u32 u64 i32 i64 f32 f64 bytes:N, N = 1..32)" \
  "$GENERATE_HINT" generate -o out --count 1 --type U32
usage_error "--progress sometimes" \
  "rmgsort: --progress: unknown mode 'sometimes' (expected auto, always, never, lines or json)" "$SORT_HINT" \
  sort "$IN/keys.bin" -t u32 --progress sometimes
usage_error "--progress=line (check)" \
  "rmgsort: --progress: unknown mode 'line' (expected auto, always, never, lines or json)" "$CHECK_HINT" \
  check "$IN/keys.bin" -t u32 --progress=line
usage_error "--progress JSON (generate)" \
  "rmgsort: --progress: unknown mode 'JSON' (expected auto, always, never, lines or json)" "$GENERATE_HINT" \
  generate -o out -t u32 --count 1 --progress JSON
usage_error "--progress twice" "rmgsort: --progress given 2 times (expected one MODE)" "$SORT_HINT" \
  sort "$IN/keys.bin" -t u32 --progress lines --progress json
usage_error "--progress without its value" "rmgsort: --progress needs a value (MODE)" "$SORT_HINT" \
  sort "$IN/keys.bin" -t u32 --progress
usage_error "empty --progress" "rmgsort: --progress: empty value" "$CHECK_HINT" check "$IN/keys.bin" -t u32 --progress ''
usage_error "empty -t" "rmgsort: --type: empty value" "$SORT_HINT" sort "$IN/keys.bin" -t ''

echo "== --host-memory limits (a 4000-byte file: 8000 bytes sort it in memory on the CPU; below 16 KiB it cannot even spill)"
sort_error "4000-byte file with --host-memory 7999" "keys.bin;--host-memory" sort "$IN/keys.bin" -o @OUT@ -t u32 --gpus none --host-memory 7999
sort_error "4000-byte file with --host-memory 7K" "keys.bin;--host-memory" sort "$IN/keys.bin" -o @OUT@ -t u32 --gpus none --host-memory 7K

begin "4000-byte file with --host-memory 8000 (exactly twice) is sorted"
rm -f "$WORK/ok.out"
rmg sort "$IN/keys.bin" -o "$WORK/ok.out" -t u32 --host-memory 8000
expect_rc 0
expect_sorted_like u32 "$IN/keys.bin" "$WORK/ok.out"
end

begin "4000 bytes on stdin with --host-memory 7K: exit 2, message names stdin and --host-memory, no output"
rm -f "$WORK/fresh.out"
run "$RMGSORT" sort -o "$WORK/fresh.out" -t u32 --gpus none --host-memory 7K <"$IN/keys.bin"
expect_rc 2
expect_stderr "stdin" "--host-memory"
expect_no_file "$WORK/fresh.out"
expect_no_temp "$WORK"
end

begin "4000 bytes through a pipe with --host-memory 7K: exit 2, message names --host-memory"
rm -f "$WORK/fresh.out"
run "$RMGSORT" sort -o "$WORK/fresh.out" -t u32 --gpus none --host-memory 7K < <(cat "$IN/keys.bin")
expect_rc 2
expect_stderr "stdin" "--host-memory"
expect_no_file "$WORK/fresh.out"
end

begin "4000 bytes through a pipe with --host-memory 8000: sorted"
rm -f "$WORK/ok.out"
run "$RMGSORT" sort -o "$WORK/ok.out" -t u32 --host-memory 8000 < <(cat "$IN/keys.bin")
expect_rc 0
expect_sorted_like u32 "$IN/keys.bin" "$WORK/ok.out"
end

echo "== SIZE suffixes are powers of 1024 (8000 bytes, exactly twice the 4000-byte input, is enough)"
for hm in 7.8125K 0.00762939453125M 0.000007450580596923828125G 0.000000007275957614183425903320312T; do
  begin "--host-memory $hm (= 8000 bytes) sorts the 4000-byte file"
  rm -f "$WORK/ok.out"
  rmg sort "$IN/keys.bin" -o "$WORK/ok.out" -t u32 --host-memory "$hm"
  expect_rc 0
  expect_size "$WORK/ok.out" 4000
  end
done
sort_error "--host-memory 7.8115234375K (= 7999 bytes)" "keys.bin;--host-memory" sort "$IN/keys.bin" -o @OUT@ -t u32 --gpus none --host-memory 7.8115234375K

echo "== output errors"
begin "missing output directory: exit 2, message names the output and the cause, nothing created"
rmg sort "$IN/keys.bin" -o "$WORK/nodir/out.bin" -t u32
expect_rc 2
expect_error_message
expect_stderr "nodir/out.bin" "No such file or directory"
expect_no_file "$WORK/nodir"
expect_stdout_empty
end

begin "output is a directory: exit 2, message names it, directory untouched"
touch "$WORK/adir/marker"
rmg sort "$IN/keys.bin" -o "$WORK/adir" -t u32
expect_rc 2
expect_stderr "adir: is a directory, not a file to write"
[[ -d "$WORK/adir" && -e "$WORK/adir/marker" ]] || fail "the directory was replaced or emptied"
expect_no_temp "$WORK"
end

begin "output below a regular file: exit 2, message names the output and 'Not a directory'"
rmg sort "$IN/keys.bin" -o "$WORK/plainfile/out.bin" -t u32
expect_rc 2
expect_stderr "plainfile/out.bin" "Not a directory"
[[ "$(cat "$WORK/plainfile")" == "not a directory" ]] || fail "plainfile changed"
end

begin "empty output path: exit 2 with a message"
rmg sort "$IN/keys.bin" -o "" -t u32
expect_rc 2
expect_error_message
expect_stderr "output"
end

begin "generate into a missing directory: exit 2, message names the output and the cause"
rmg generate -o "$WORK/nodir/gen.bin" -t u32 --count 10
expect_rc 2
expect_stderr "nodir/gen.bin" "No such file or directory"
expect_no_file "$WORK/nodir"
end

begin "check of a missing file: exit 2, message names the file and the cause"
rmg check "$IN/missing.bin" -t u32
expect_rc 2
expect_stderr "missing.bin" "No such file or directory"
end

begin "check of a directory: exit 2, message names it"
rmg check "$WORK/adir" -t u32
expect_rc 2
expect_stderr "adir: is a directory, not a file to read"
end

begin "check with a missing --input original: exit 2, message names the original"
rmg check "$IN/keys.bin" -t u32 --input "$IN/missing-original.bin"
expect_rc 2
expect_stderr "missing-original.bin" "No such file or directory"
end

echo "== --stats errors (the run fails, so the output must not be committed either)"
sort_error "--stats into a missing directory" "nodir/stats.json;No such file or directory" \
  sort "$IN/keys.bin" -o @OUT@ -t u32 --stats "$WORK/nodir/stats.json"
sort_error "--stats names a directory" "adir" sort "$IN/keys.bin" -o @OUT@ -t u32 --stats "$WORK/adir"

# A key offset within a key's width of 2^64 (offset + width wraps around): refused like any other
# key beyond its record, by every command that takes one (it once read the key before the record).
for offset in 18446744073709551615 18446744073709551608 9223372036854775808; do
  sort_error "sort --key-offset $offset of 12-byte records" "--key-offset $offset;does not fit a record of 12 bytes" \
    sort "$IN/keys.bin" -o @OUT@ -t u32 --record-size 12 --key-offset "$offset"
  sort_error "merge --key-offset $offset" "--key-offset $offset;does not fit" \
    merge "$IN/keys.bin" -o @OUT@ -t u32 --record-size 12 --key-offset "$offset"
  sort_error "generate --key-offset $offset" "--key-offset $offset;does not fit" \
    generate -o @OUT@ -t u32 --record-size 12 --key-offset "$offset" --count 3
  sort_error "check --key-offset $offset" "--key-offset $offset;does not fit" \
    check "$IN/keys.bin" -t u32 --record-size 12 --key-offset "$offset"
done

echo "== permissions (run as user nobody: root reads and writes everything)"
PRIV=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
begin "unreadable input (mode 000, as nobody): exit 2, 'Permission denied', no output"
if ! command -v setpriv >/dev/null || ! "${PRIV[@]}" "$RMGSORT" --version >/dev/null 2>&1; then
  skip "cannot run rmgsort as user nobody here (setpriv missing or binary not reachable)"
else
  chmod 755 "$WORK"
  mkdir -m 777 "$WORK/shared"
  cp "$IN/keys.bin" "$WORK/shared/secret.bin"
  chmod 000 "$WORK/shared/secret.bin"
  run "${PRIV[@]}" "$RMGSORT" sort "$WORK/shared/secret.bin" -o "$WORK/shared/out.bin" -t u32
  expect_rc 2
  expect_stderr "secret.bin" "Permission denied"
  expect_no_file "$WORK/shared/out.bin"
  expect_no_temp "$WORK/shared"
  end

  begin "unwritable output directory (as nobody): exit 2, message names the output and 'Permission denied'"
  mkdir -m 555 "$WORK/readonly"
  cp "$IN/keys.bin" "$WORK/shared/readable.bin"
  chmod 644 "$WORK/shared/readable.bin"
  run "${PRIV[@]}" "$RMGSORT" sort "$WORK/shared/readable.bin" -o "$WORK/readonly/out.bin" -t u32
  expect_rc 2
  expect_stderr "readonly/out.bin" "Permission denied"
  expect_no_file "$WORK/readonly/out.bin"
  expect_no_temp "$WORK/readonly"
  end

  begin "unreadable check input (as nobody): exit 2, 'Permission denied'"
  run "${PRIV[@]}" "$RMGSORT" check "$WORK/shared/secret.bin" -t u32
  expect_rc 2
  expect_stderr "secret.bin" "Permission denied"
  end
fi

summary
