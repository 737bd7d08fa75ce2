#!/usr/bin/env bash
# rmgsort check FILE -t TYPE [--record-size R --key-offset K] [--original ORIGINAL] [-r]
# [--float-order total|ieee] [--threads N] [--progress MODE]: one summary line (the keys or records,
# the duplicate keys, the checksum); exit 0 when FILE is in order (and a permutation of ORIGINAL), 1
# when it is not (naming the first key or record out of order, its byte offset and both keys), 2 when
# a file is not a whole number of keys (records) or cannot be read. Records are checked against
# tests/e2e/record_files.py (order from values, the checksum from its definition), np.sort's output
# against --float-order ieee with numpy. --input is --original's former name.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

C=$WORK/c
mkdir -p "$C"

# check_case DESC EXPECTED-RC TEXTS ARG...: `rmgsort check ARG...` exits EXPECTED-RC and prints exactly
# one line on stdout (OK/FAIL) containing every ';'-separated TEXT, nothing on stderr.
check_case() {
  local desc=$1 want=$2 texts=$3 parts
  shift 3
  IFS=';' read -ra parts <<<"$texts"
  begin "$desc: exit $want, one line with ${texts//;/ + }"
  rmg check "$@"
  expect_rc "$want"
  expect_stdout "${parts[@]}"
  [[ $(wc -l <"$WORK/stdout") -eq 1 ]] || fail "stdout has $(wc -l <"$WORK/stdout") lines, expected 1"
  if [[ $want -eq 0 ]]; then head -c 3 "$WORK/stdout" | grep -q '^OK ' || fail "the line does not start with OK"; fi
  if [[ $want -eq 1 ]]; then head -c 5 "$WORK/stdout" | grep -q '^FAIL ' || fail "the line does not start with FAIL"; fi
  expect_stderr_empty
  end
}

echo "== order"
keys u32 "$C/ok.u32" 0 1 1 2 100 4294967295
check_case "sorted u32" 0 "ok.u32: 6 u32 keys in ascending order" "$C/ok.u32" -t u32
keys u32 "$C/mid.u32" 1 2 3 5 4 6
check_case "u32 1 2 3 5 4 6" 1 "NOT in ascending order;key 4 of 6" "$C/mid.u32" -t u32
keys u32 "$C/first.u32" 2 1 3
check_case "u32 2 1 3 (first pair)" 1 "key 1 of 3" "$C/first.u32" -t u32
keys u32 "$C/last.u32" 1 2 3 0
check_case "u32 1 2 3 0 (last key)" 1 "key 3 of 4" "$C/last.u32" -t u32
check_case "sorted u32 checked with -r" 1 "NOT in descending order;key 1 of 6" "$C/ok.u32" -t u32 -r
keys u32 "$C/desc.u32" 4294967295 100 2 1 1 0
check_case "descending u32 with -r" 0 "6 u32 keys in descending order" "$C/desc.u32" -t u32 -r
check_case "descending u32 without -r" 1 "NOT in ascending order" "$C/desc.u32" -t u32
keys u64 "$C/equal.u64" 7 7 7 7
check_case "equal u64 keys, ascending" 0 "4 u64 keys in ascending order" "$C/equal.u64" -t u64
check_case "equal u64 keys, descending" 0 "4 u64 keys in descending order" "$C/equal.u64" --descending -t u64
keys i32 "$C/neg.i32" -2147483648 -1 0 2147483647
check_case "i32 min -1 0 max" 0 "4 i32 keys in ascending order" "$C/neg.i32" -t i32
check_case "the same bytes as u32 (0x80000000 0xffffffff 0 0x7fffffff)" 1 "key 2 of 4" "$C/neg.i32" -t u32
keys i64 "$C/neg.i64" 5 -5
check_case "i64 5 -5" 1 "key 1 of 2" "$C/neg.i64" -t i64
check_case "i64 5 -5 with -r" 0 "descending order" "$C/neg.i64" -t i64 -r
keys u32 "$C/one.u32" 42
check_case "a single key" 0 "1 u32 keys in ascending order" "$C/one.u32" -t u32
: >"$C/empty"
check_case "an empty file" 0 "0 f64 keys in ascending order" "$C/empty" -t f64

echo "== float order: -0.0 before +0.0, NaNs last in both directions"
for t in f32 f64; do
  keys $t "$C/zeros" -0.0 0.0
  check_case "$t -0.0 +0.0" 0 "ascending order" "$C/zeros" -t $t
  check_case "$t -0.0 +0.0 with -r" 1 "key 1 of 2" "$C/zeros" -t $t -r
  keys $t "$C/zeros-r" 0.0 -0.0
  check_case "$t +0.0 -0.0" 1 "key 1 of 2" "$C/zeros-r" -t $t
  check_case "$t +0.0 -0.0 with -r" 0 "descending order" "$C/zeros-r" -t $t -r
  keys $t "$C/full" -inf lowest -1.0 -denorm -0.0 0.0 denorm 1.0 max inf nan -nan
  check_case "$t -inf lowest -1 -denorm -0 +0 denorm 1 max inf nan -nan" 0 "12 $t keys in ascending order" "$C/full" -t $t
  keys $t "$C/full-r" inf max 1.0 denorm 0.0 -0.0 -denorm -1.0 lowest -inf -nan nan
  check_case "$t the same descending, NaNs last (in another order)" 0 "descending order" "$C/full-r" -t $t -r
  keys $t "$C/nan-first" nan 1.0
  check_case "$t nan 1.0" 1 "key 1 of 2" "$C/nan-first" -t $t
  check_case "$t nan 1.0 with -r (NaNs stay last)" 1 "key 1 of 2" "$C/nan-first" -t $t -r
  keys $t "$C/neg-nan-first" -nan -inf
  check_case "$t -nan -inf (a negative NaN is still last)" 1 "key 1 of 2" "$C/neg-nan-first" -t $t
  keys $t "$C/inf-order" inf -inf
  check_case "$t inf -inf" 1 "key 1 of 2" "$C/inf-order" -t $t
done

echo "== disorder across the 64 MiB read chunks: index, byte offset and both keys; any --threads"
"$RMGSORT" generate -o "$C/big" -t u32 --count 18M --dist sorted --seed 1 || fail "generate failed"
# put_u32 FILE INDEX VALUE: overwrites key INDEX of FILE.
put_u32() {
  python3 -c 'import struct,sys; f=open(sys.argv[1],"r+b"); f.seek(4*int(sys.argv[2])); f.write(struct.pack("<I", int(sys.argv[3],0)))' "$@"
}
# u32_at FILE INDEX: key INDEX of FILE, in decimal.
u32_at() {
  python3 -c 'import struct,sys; f=open(sys.argv[1],"rb"); f.seek(4*int(sys.argv[2])); print(struct.unpack("<I", f.read(4))[0])' "$@"
}
check_case "18M sorted u32 keys (72 MiB)" 0 "18000000 u32 keys in ascending order" "$C/big" -t u32
cp "$C/big" "$C/big-a"
put_u32 "$C/big-a" 16777216 0
check_case "key 16777216 (first of the second 64 MiB chunk) set to 0" 1 \
  "key 16777216 of 18000000 u32 keys is out of order (0 after $(u32_at "$C/big" 16777215), at byte offset 67108864)" "$C/big-a" -t u32
cp "$C/big" "$C/big-b"
put_u32 "$C/big-b" 16777215 0
check_case "key 16777215 (last of the first chunk) set to 0" 1 \
  "key 16777215 of 18000000 u32 keys is out of order (0 after $(u32_at "$C/big" 16777214), at byte offset 67108860)" "$C/big-b" -t u32
begin "the same through a pipe: exit 1, key 16777216, its offset and both keys"
run "$RMGSORT" check - -t u32 < <(cat "$C/big-a")
expect_rc 1
expect_stdout "FAIL stdin: NOT in ascending order: key 16777216 of 18000000 u32 keys is out of order (0 after $(u32_at "$C/big" 16777215), at byte offset 67108864)"
end
cp "$C/big" "$C/big-c"
put_u32 "$C/big-c" 9000001 0
put_u32 "$C/big-c" 17999999 0
# --threads 1 scans each chunk on one thread, --threads 16 in pieces: the same line either way.
for file in big big-a big-b big-c; do
  begin "$file: --threads 1, 2 and 16 and the default print the same line"
  for threads in 1 2 16 default; do
    args=(--threads "$threads")
    [[ $threads == default ]] && args=()
    "$RMGSORT" check "$C/$file" -t u32 "${args[@]}" >"$WORK/threads-$threads" 2>&1
    echo "rc $?" >>"$WORK/threads-$threads"
  done
  for threads in 2 16 default; do
    cmp -s "$WORK/threads-1" "$WORK/threads-$threads" ||
      fail "--threads $threads: $(cat "$WORK/threads-$threads") differs from --threads 1: $(cat "$WORK/threads-1")"
  done
  end
done
check_case "key 9000001 set to 0 (the first of two disorders)" 1 "key 9000001 of 18000000" "$C/big-c" -t u32 --threads 3
rm -f "$C"/big*

echo "== permutation (--original ORIGINAL)"
keys u32 "$C/orig" 3 1 2
keys u32 "$C/perm" 1 2 3
check_case "1 2 3 against 3 1 2" 0 "a permutation of $C/orig" "$C/perm" -t u32 --original "$C/orig"
keys u32 "$C/changed" 1 2 4
check_case "1 2 4 against 3 1 2 (one key changed)" 1 "3 u32 keys in ascending order;NOT a permutation of $C/orig" "$C/changed" -t u32 --original "$C/orig"
keys u32 "$C/missing" 1 2
check_case "1 2 against 3 1 2 (a key missing)" 1 "NOT a permutation;3 keys" "$C/missing" -t u32 --original "$C/orig"
keys u32 "$C/extra" 1 2 3 3
check_case "1 2 3 3 against 3 1 2 (a key extra)" 1 "NOT a permutation" "$C/extra" -t u32 --original "$C/orig"
keys u32 "$C/dup" 1 2 2
check_case "1 2 2 against 3 1 2 (a key duplicated)" 1 "NOT a permutation" "$C/dup" -t u32 --original "$C/orig"
keys u32 "$C/sum-a" 1 4
keys u32 "$C/sum-b" 2 3
check_case "2 3 against 1 4 (same count and sum)" 1 "NOT a permutation" "$C/sum-b" -t u32 --original "$C/sum-a"
keys u32 "$C/xor-a" 1 1
keys u32 "$C/xor-b" 2 2
check_case "2 2 against 1 1 (same count and XOR)" 1 "NOT a permutation" "$C/xor-b" -t u32 --original "$C/xor-a"
keys u64 "$C/sq-a" 0 3 3
keys u64 "$C/sq-b" 1 1 4
check_case "1 1 4 against 0 3 3 (same count, sum and sum of squares)" 1 "NOT a permutation" "$C/sq-b" -t u64 --original "$C/sq-a"
keys u32 "$C/unsorted-changed" 9 1
check_case "9 1 against 3 1 2 (disorder and not a permutation)" 1 "NOT in ascending order;NOT a permutation" "$C/unsorted-changed" -t u32 --original "$C/orig"
keys f32 "$C/pz" 0.0
keys f32 "$C/nz" -0.0
check_case "f32 +0.0 against -0.0 (different bit patterns)" 1 "NOT a permutation" "$C/pz" -t f32 --original "$C/nz"
keys f64 "$C/nan1" 1.0 bits:0x7ff8000000000001
keys f64 "$C/nan2" 1.0 bits:0x7ff8000000000002
check_case "f64 NaN payloads 1 and 2" 1 "NOT a permutation" "$C/nan2" -t f64 --original "$C/nan1"
check_case "an empty file against an empty original" 0 "0 u32 keys;a permutation of" "$C/empty" -t u32 --original "$C/empty"
check_case "an empty file against 3 keys" 1 "NOT a permutation" "$C/empty" -t u32 --original "$C/orig"

begin "100003 sorted keys against the unsorted original, and with one key incremented"
"$RMGSORT" generate -o "$C/orig-big" -t i64 --count 100003 --seed 31 &&
  "$RMGSORT" sort "$C/orig-big" -o "$C/sorted-big" -t i64 || fail "setup failed"
rmg check "$C/sorted-big" -t i64 --original "$C/orig-big"
expect_rc 0
expect_stdout "OK" "a permutation of"
python3 -c 'import struct,sys; f=open(sys.argv[1],"r+b"); f.seek(8*100002); v=struct.unpack("<q", f.read(8))[0]; f.seek(8*100002); f.write(struct.pack("<q", v - 1 if v > -2**63 else v + 1))' "$C/sorted-big"
rmg check "$C/sorted-big" -t i64 --original "$C/orig-big"
expect_rc 1
expect_stdout "NOT a permutation"
end

echo "== files that are not a whole number of keys: exit 2"
head -c 4001 /dev/zero >"$C/trunc4001"
begin "check of a 4001-byte u32 file: exit 2, message names the file, 4001 and the cause"
rmg check "$C/trunc4001" -t u32
expect_rc 2
expect_stderr "trunc4001" "4001" "not a whole number"
end

begin "check of a truncated sort output (last key cut short): exit 2"
keys u64 "$C/cut" 1 2 3
truncate -s 20 "$C/cut"
rmg check "$C/cut" -t u64 --original "$C/orig"
expect_rc 2
expect_stderr "cut" "20" "not a whole number"
end

begin "check against a truncated --original ORIGINAL: exit 2, message names the original"
rmg check "$C/perm" -t u32 --original "$C/trunc4001"
expect_rc 2
expect_stderr "trunc4001" "not a whole number"
end

begin "FILE and --original one stream by two names (a FIFO twice, - and /dev/stdin): exit 2, nothing read"
mkfifo "$C/fifo"
rmg check "$C/fifo" -t u64 --original "$C/fifo"  # (refused before either is opened: no writer needed)
expect_rc 2
expect_error_message
expect_stderr "$C/fifo" "the same stream"
keys u64 "$C/three" 1 2 3
cat "$C/three" | "$RMGSORT" check - -t u64 --original /dev/stdin >"$WORK/stdout" 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_stderr "/dev/stdin" "the same stream"
end

echo "== records: order, duplicate keys and the checksum against the reference"
RECORD_FILES="$E2E_DIR/record_files.py"
# records TYPE R K FILE VALUE...: writes records (see record_files.py write).
records() {
  python3 "$RECORD_FILES" write "$@" || { echo "record_files.py write $* failed" >&2; exit 2; }
}
# check_records DESC TYPE R K FILE ORDER: check's line agrees with the reference's scan (records,
# first disorder, duplicate keys) and checksum; exit 0 or 1 as the reference says.
check_records() {
  local desc=$1 type=$2 r=$3 k=$4 file=$5 order=$6 flag=() count first duplicates sum name
  [[ $order == desc ]] && flag=(-r)
  read -r count first duplicates < <(python3 "$RECORD_FILES" scan "$type" "$r" "$k" "$file" "$order")
  sum=$(python3 "$RECORD_FILES" checksum "$r" "$file")
  name=$(basename "$file")
  begin "$desc ($order): $count records, first disorder $first, $duplicates duplicate keys, checksum as the reference's"
  rmg check "$file" -t "$type" --record-size "$r" --key-offset "$k" "${flag[@]}"
  local what="$r-byte records ($type key at offset $k)"
  if [[ $first == - ]]; then
    expect_rc 0
    expect_stdout "OK $file: $count $what in ${order}ending order"
  else
    expect_rc 1
    expect_stdout "FAIL $file: NOT in ${order}ending order: record $first of $count $what is out of order"
  fi
  expect_stdout "; $duplicates duplicate keys; checksum $sum"
  [[ $(wc -l <"$WORK/stdout") -eq 1 ]] || fail "stdout has $(wc -l <"$WORK/stdout") lines, expected 1"
  expect_stderr_empty
  end
}

records u64 13 3 "$C/r-u64" 0 1 1 2 max max
check_records "u64 at 3 of 13: 0 1 1 2 max max" u64 13 3 "$C/r-u64" asc
check_records "u64 at 3 of 13: 0 1 1 2 max max" u64 13 3 "$C/r-u64" desc
records i32 100 96 "$C/r-i32" min -1 0 0 0 max
check_records "i32 at 96 of 100 (the last offset): min -1 0 0 0 max" i32 100 96 "$C/r-i32" asc
records i64 9 1 "$C/r-i64" 5 -5 -5
check_records "i64 at 1 of 9: 5 -5 -5" i64 9 1 "$C/r-i64" asc
check_records "i64 at 1 of 9: 5 -5 -5" i64 9 1 "$C/r-i64" desc
for t in f32 f64; do
  signalling=bits:0x7ff4000000000001
  [[ $t == f32 ]] && signalling=bits:0x7fa00001
  records $t 12 3 "$C/r-float" -inf lowest -1.0 -denorm -0.0 0.0 denorm 1.0 max inf nan -nan $signalling
  check_records "$t at 3 of 12: -inf .. +inf, then NaNs of both signs and payloads (equal keys)" $t 12 3 "$C/r-float" asc
  check_records "$t at 3 of 12: the same checked descending" $t 12 3 "$C/r-float" desc
  records $t 13 5 "$C/r-zeros" 0.0 -0.0
  check_records "$t at 5 of 13: +0.0 -0.0" $t 13 5 "$C/r-zeros" asc
  check_records "$t at 5 of 13: +0.0 -0.0" $t 13 5 "$C/r-zeros" desc
  records $t 13 5 "$C/r-nan-first" nan 1.0 2.0
  check_records "$t at 5 of 13: nan 1 2 (NaNs go last in both directions)" $t 13 5 "$C/r-nan-first" asc
  check_records "$t at 5 of 13: nan 1 2 (NaNs go last in both directions)" $t 13 5 "$C/r-nan-first" desc
done
records bytes:3 13 10 "$C/r-bytes" 000000 0000ff 7fffff 800000 800001 800001 ffffff
check_records "bytes:3 at 10 of 13: memcmp order across the signed-char boundary" bytes:3 13 10 "$C/r-bytes" asc
check_records "bytes:3 at 10 of 13: memcmp order across the signed-char boundary" bytes:3 13 10 "$C/r-bytes" desc
records bytes:3 13 10 "$C/r-signed" 800000 7fffff
check_records "bytes:3: 80 00 00 before 7f ff ff (a signed comparison's order)" bytes:3 13 10 "$C/r-signed" asc
records bytes:1 1 0 "$C/r-byte" 00 00 7f 80 ff
check_records "bytes:1 records of one byte" bytes:1 1 0 "$C/r-byte" asc
records bytes:32 32 0 "$C/r-b32" "$(printf '00%.0s' {1..31})01" "$(printf '00%.0s' {1..31})01" "01$(printf '00%.0s' {1..31})"
check_records "bytes:32 records of 32 bytes: the last byte, then the first decides" bytes:32 32 0 "$C/r-b32" asc
records u32 8 4 "$C/r-one" 42
check_records "a single record" u32 8 4 "$C/r-one" asc
records u32 8 4 "$C/r-seven" 7 6 5 4 3 2 1
check_records "seven records in descending order" u32 8 4 "$C/r-seven" asc
check_records "seven records in descending order" u32 8 4 "$C/r-seven" desc
: >"$C/r-empty"
check_records "no records" bytes:10 100 0 "$C/r-empty" asc

"$RMGSORT" generate -o "$C/gen" -t f64 --record-size 21 --key-offset 7 --count 4001 --dist special --seed 6 ||
  { echo "generate failed" >&2; exit 2; }
check_records "4001 generated f64 records (special keys: NaNs, +-0, +-inf)" f64 21 7 "$C/gen" asc
python3 - "$C/gen" "$C/gen-sorted" <<'PY'
import math, struct, sys
data = open(sys.argv[1], "rb").read()
records = [data[i:i + 21] for i in range(0, len(data), 21)]
def rank(r):
    v = struct.unpack("<d", r[7:15])[0]
    return (1, 0, 0) if math.isnan(v) else (0, v, math.copysign(1.0, v))
open(sys.argv[2], "wb").write(b"".join(sorted(records, key=rank)))  # stable
PY
check_records "the same stably sorted by the reference" f64 21 7 "$C/gen-sorted" asc

begin "a file of bare keys has one checksum, however it is described: -t u64, -t u64 --record-size 8, -t bytes:8 --record-size 8, -t i64"
keys u64 "$C/b-u64" 3 1 2 2
n=0
for args in "-t u64" "-t u64 --record-size 8" "-t i64" "-t bytes:8 --record-size 8" "-t f64"; do
  # shellcheck disable=SC2086
  "$RMGSORT" check "$C/b-u64" $args >"$WORK/out-$((++n))" 2>/dev/null
done
sums=$(grep -o 'checksum [0-9a-f]*' "$WORK"/out-* | cut -d' ' -f2 | sort -u)
[[ $(wc -l <<<"$sums") -eq 1 ]] || fail "different checksums: $sums"
[[ $sums == $(python3 "$RECORD_FILES" checksum 8 "$C/b-u64") ]] || fail "checksum $sums is not the reference's"
grep -q "1 duplicate keys" "$WORK/out-1" || fail "bare keys: no duplicate count ($(cat "$WORK/out-1"))"
end

echo "== records: disorder across the 64 MiB read chunks, in a file and through a pipe"
"$RMGSORT" generate -o "$C/big" -t bytes:10 --record-size 100 --count 700000 --dist sorted --seed 1 || fail "generate failed"
check_case "700000 sorted 100-byte records (70 MB)" 0 "700000 100-byte records (bytes:10 key at offset 0) in ascending order" \
  "$C/big" -t bytes:10 --record-size 100
# The check reads 670720 records (64 MiB rounded down to whole records and pages) per chunk.
cp "$C/big" "$C/big-a"
python3 "$RECORD_FILES" poke "$C/big-a" $((100 * 670720)) 0 && python3 "$RECORD_FILES" poke "$C/big-a" $((100 * 670720 + 1)) 0
# key_hex FILE OFFSET: the 10 bytes at OFFSET of FILE as check prints a bytes:10 key.
key_hex() {
  python3 -c 'import sys; f=open(sys.argv[1],"rb"); f.seek(int(sys.argv[2])); print("0x" + f.read(10).hex())' "$@"
}
what="700000 100-byte records (bytes:10 key at offset 0) is out of order"
check_case "record 670720 (first of the second chunk) given a small key" 1 \
  "record 670720 of $what (key $(key_hex "$C/big-a" 67072000) after $(key_hex "$C/big-a" 67071900), at byte offset 67072000)" \
  "$C/big-a" -t bytes:10 --record-size 100
cp "$C/big" "$C/big-b"
python3 "$RECORD_FILES" poke "$C/big-b" $((100 * 670719)) 255
check_case "record 670719 (last of the first chunk) given a large key" 1 \
  "record 670720 of $what (key $(key_hex "$C/big-b" 67072000) after $(key_hex "$C/big-b" 67071900), at byte offset 67072000)" \
  "$C/big-b" -t bytes:10 --record-size 100
begin "the same through a pipe: exit 1, record 670720, its offset and both keys"
run "$RMGSORT" check - -t bytes:10 --record-size 100 < <(cat "$C/big-a")
expect_rc 1
expect_stdout "FAIL stdin: NOT in ascending order: record 670720 of $what (key $(key_hex "$C/big-a" 67072000) after $(key_hex "$C/big-a" 67071900), at byte offset 67072000)"
end
for file in big big-a big-b; do
  begin "$file: --threads 1 and 16 print the same line"
  for threads in 1 16; do
    "$RMGSORT" check "$C/$file" -t bytes:10 --record-size 100 --threads $threads >"$WORK/threads-$threads" 2>&1
    echo "rc $?" >>"$WORK/threads-$threads"
  done
  cmp -s "$WORK/threads-1" "$WORK/threads-16" || fail "$(cat "$WORK/threads-16") differs from $(cat "$WORK/threads-1")"
  end
done
rm -f "$C"/big*

echo "== records: permutation (--original ORIGINAL), of whole records"
records u64 13 3 "$C/p-orig" 3 1 2 2 9
python3 "$RECORD_FILES" shuffle 13 "$C/p-orig" "$C/p-shuffled" 1
check_case "the records shuffled" 1 "NOT in ascending order;a permutation of $C/p-orig" "$C/p-shuffled" -t u64 --record-size 13 --key-offset 3 --original "$C/p-orig"
python3 - "$C/p-orig" "$C/p-sorted" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
records = sorted((data[i:i + 13] for i in range(0, len(data), 13)), key=lambda r: struct.unpack("<Q", r[3:11])[0])
open(sys.argv[2], "wb").write(b"".join(records))
PY
check_case "the records sorted" 0 "5 13-byte records (u64 key at offset 3) in ascending order;1 duplicate keys;a permutation of $C/p-orig" \
  "$C/p-sorted" -t u64 --record-size 13 --key-offset 3 --original "$C/p-orig"
python3 "$RECORD_FILES" swap-keys u64 13 3 "$C/p-orig" "$C/p-keys-moved" 0 4
check_case "two records' keys exchanged, their payloads left (every key and every byte still there)" 1 \
  "NOT a permutation of $C/p-orig (5 records, checksum" "$C/p-keys-moved" -t u64 --record-size 13 --key-offset 3 --input "$C/p-orig"
cp "$C/p-sorted" "$C/p-payload"
python3 "$RECORD_FILES" poke "$C/p-payload" 12 0x5a
check_case "one payload byte changed (the order still holds)" 1 "in ascending order;NOT a permutation of $C/p-orig" \
  "$C/p-payload" -t u64 --record-size 13 --key-offset 3 --original "$C/p-orig"
head -c 52 "$C/p-sorted" >"$C/p-dropped"
check_case "a record dropped" 1 "4 13-byte records;NOT a permutation" "$C/p-dropped" -t u64 --record-size 13 --key-offset 3 --original "$C/p-orig"
begin "shuffled bytes:10 records against their original through a pipe: exit 1, not in order, a permutation of stdin"
"$RMGSORT" generate -o "$C/g-orig" -t bytes:10 --record-size 100 --count 3001 --seed 4 || fail "generate failed"
python3 "$RECORD_FILES" shuffle 100 "$C/g-orig" "$C/g-shuffled" 2
run "$RMGSORT" check "$C/g-orig" -t bytes:10 --record-size 100 --input - < <(cat "$C/g-shuffled")
expect_rc 1
expect_stdout "NOT in ascending order" "a permutation of stdin"
end

echo "== records: files that are not a whole number of records: exit 2"
head -c 1001 /dev/zero >"$C/r-1001"
begin "check of a 1001-byte file of 100-byte records: exit 2, the message names the file, 1001 and 100"
rmg check "$C/r-1001" -t bytes:10 --record-size 100
expect_rc 2
expect_stderr "r-1001" "1001 bytes" "not a whole number" "100 bytes each"
expect_stdout_empty
end
begin "the same against --original: exit 2, the message names the original"
rmg check "$C/r-empty" -t bytes:10 --record-size 100 --original "$C/r-1001"
expect_rc 2
expect_stderr "r-1001" "1001 bytes" "100 bytes each"
end
begin "a stream that ends inside a 13-byte record: exit 2, the message names stdin and 13"
run "$RMGSORT" check - -t u64 --record-size 13 --key-offset 3 < <(head -c 40 /dev/zero)
expect_rc 2
expect_stderr "stdin" "13"
end

echo "== disorder: the 0-based index, the byte offset and both keys, as the key type prints them"
keys u32 "$C/d-u32" 1 2 3 5 4 6
check_case "u32 1 2 3 5 4 6" 1 "FAIL $C/d-u32: NOT in ascending order: key 4 of 6 u32 keys is out of order (4 after 5, at byte offset 16); 0 duplicate keys; checksum " "$C/d-u32" -t u32
keys u64 "$C/d-u64" 0 max 0
check_case "u64 0 max 0" 1 "key 2 of 3 u64 keys is out of order (0 after 18446744073709551615, at byte offset 16)" "$C/d-u64" -t u64
keys i32 "$C/d-i32" min max min
check_case "i32 min max min" 1 "key 2 of 3 i32 keys is out of order (-2147483648 after 2147483647, at byte offset 8)" "$C/d-i32" -t i32
keys i64 "$C/d-i64" -5 5 -5
check_case "i64 -5 5 -5 with -r" 1 "NOT in descending order: key 1 of 3 i64 keys is out of order (5 after -5, at byte offset 8)" "$C/d-i64" -t i64 -r
keys f32 "$C/d-f32" 1.5 0.1
check_case "f32 1.5 0.1 (the shortest text of the f32 nearest 0.1)" 1 "key 1 of 2 f32 keys is out of order (0.1 after 1.5, at byte offset 4)" "$C/d-f32" -t f32
keys f64 "$C/d-f64" 1e300 0.30000000000000004
check_case "f64 1e300 0.30000000000000004" 1 "(0.30000000000000004 after 1e+300, at byte offset 8)" "$C/d-f64" -t f64
keys f64 "$C/d-denorm" max denorm
check_case "f64 max denorm" 1 "(5e-324 after 1.7976931348623157e+308, at byte offset 8)" "$C/d-denorm" -t f64
for t in f32 f64; do
  w=4
  [[ $t == f64 ]] && w=8
  keys $t "$C/d-zeros" -1 0.0 -0.0
  check_case "$t -1 +0.0 -0.0" 1 "key 2 of 3 $t keys is out of order (-0 after 0, at byte offset $((2 * w)))" "$C/d-zeros" -t $t
  keys $t "$C/d-nan" 1 nan 2
  check_case "$t 1 nan 2" 1 "key 2 of 3 $t keys is out of order (2 after nan, at byte offset $((2 * w)))" "$C/d-nan" -t $t
  keys $t "$C/d-neg-nan" -nan -inf
  check_case "$t -nan -inf with -r" 1 "NOT in descending order: key 1 of 2 $t keys is out of order (-inf after -nan, at byte offset $w)" "$C/d-neg-nan" -t $t -r
  keys $t "$C/d-inf" inf -inf
  check_case "$t inf -inf" 1 "(-inf after inf, at byte offset $w)" "$C/d-inf" -t $t
done
records bytes:3 13 10 "$C/d-bytes" 000000 800000 7fffff
check_case "bytes:3 records at 10 of 13: 000000 800000 7fffff" 1 \
  "record 2 of 3 13-byte records (bytes:3 key at offset 10) is out of order (key 0x7fffff after 0x800000, at byte offset 26)" \
  "$C/d-bytes" -t bytes:3 --record-size 13 --key-offset 10
records bytes:32 32 0 "$C/d-b32" "ff$(printf '00%.0s' {1..31})" "$(printf '00%.0s' {1..31})01"
check_case "bytes:32 records: every byte of both keys" 1 \
  "record 1 of 2 32-byte records (bytes:32 key at offset 0) is out of order (key 0x$(printf '00%.0s' {1..31})01 after 0xff$(printf '00%.0s' {1..31}), at byte offset 32)" \
  "$C/d-b32" -t bytes:32 --record-size 32
records u64 13 3 "$C/d-r-u64" 9 3 1 2
check_case "u64 records at 3 of 13: 9 3 1 2" 1 \
  "record 3 of 4 13-byte records (u64 key at offset 3) is out of order (key 2 after 1, at byte offset 39)" \
  "$C/d-r-u64" -t u64 --record-size 13 --key-offset 3 -r
records f64 12 4 "$C/d-r-f64" -0.0 0.0 nan -inf
check_case "f64 records at 4 of 12: -0 +0 nan -inf" 1 \
  "record 3 of 4 12-byte records (f64 key at offset 4) is out of order (key -inf after nan, at byte offset 36)" \
  "$C/d-r-f64" -t f64 --record-size 12 --key-offset 4
begin "a stream: exit 1, the offset in the stream"
run "$RMGSORT" check - -t u32 < <(cat "$C/d-u32")
expect_rc 1
expect_stdout "FAIL stdin: NOT in ascending order: key 4 of 6 u32 keys is out of order (4 after 5, at byte offset 16)"
end
begin "duplicate keys are counted on disorder too: 7 7 1 1 1 has 3"
keys u64 "$C/d-dups" 7 7 1 1 1
rmg check "$C/d-dups" -t u64
expect_rc 1
expect_stdout "key 2 of 5 u64 keys is out of order (1 after 7, at byte offset 16); 3 duplicate keys"
end

echo "== --original, and --input (its former name)"
keys u32 "$C/o-orig" 3 1 2
keys u32 "$C/o-sorted" 1 2 3
check_case "--original" 0 "OK $C/o-sorted: 3 u32 keys in ascending order;a permutation of $C/o-orig" "$C/o-sorted" -t u32 --original "$C/o-orig"
check_case "--input" 0 "OK $C/o-sorted: 3 u32 keys in ascending order;a permutation of $C/o-orig" "$C/o-sorted" -t u32 --input "$C/o-orig"
keys u32 "$C/o-other" 1 2 4
check_case "--input, not a permutation" 1 "NOT a permutation of $C/o-orig" "$C/o-other" -t u32 --input "$C/o-orig"
check_case "--original, not a permutation" 1 "NOT a permutation of $C/o-orig" "$C/o-other" -t u32 --original "$C/o-orig"
begin "--original and --input together: exit 2, the message names both"
rmg check "$C/o-sorted" -t u32 --original "$C/o-orig" --input "$C/o-orig"
expect_rc 2
expect_stderr "--input" "--original"
expect_stdout_empty
end
begin "--original '': exit 2, the message names --original"
rmg check "$C/o-sorted" -t u32 --original ''
expect_rc 2
expect_stderr "--original" "empty"
end
begin "check - --original -: exit 2, the message names --original"
run "$RMGSORT" check - -t u32 --original - <"$C/o-sorted"
expect_rc 2
expect_stderr "--original" "standard input"
end
begin "check --help names --original and --input as its former name"
rmg check --help
expect_rc 0
expect_stdout "--original" "--input" "former name of --original" "--float-order" "--threads" "--progress"
end

echo "== --float-order ieee: np.sort's output passes (-0.0 equal to +0.0, NaNs after the last number)"
for t in f32 f64; do
  w=4
  [[ $t == f64 ]] && w=8
  keys $t "$C/i-zeros" -1 0.0 -0.0 0.0 1 nan -nan
  check_case "$t -1 +0 -0 +0 1 nan -nan, ieee" 0 "7 $t keys in ascending order (--float-order ieee);3 duplicate keys" "$C/i-zeros" -t $t --float-order ieee
  check_case "$t the same, total (the default)" 1 "NOT in ascending order: key 2 of 7" "$C/i-zeros" -t $t
  check_case "$t the same, --float-order total" 1 "NOT in ascending order: key 2 of 7" "$C/i-zeros" -t $t --float-order total
  keys $t "$C/i-zeros-r" 1 0.0 -0.0 0.0 -1 -nan nan
  check_case "$t 1 +0 -0 +0 -1 -nan nan with -r, ieee (NaNs last)" 0 "descending order (--float-order ieee)" "$C/i-zeros-r" -t $t -r --float-order ieee
  keys $t "$C/i-nan-first" nan nan -1 0.0 1
  check_case "$t nan nan -1 0 1 (np.sort(a)[::-1] puts NaNs first), ieee" 1 \
    "NOT in ascending order (--float-order ieee): key 2 of 5 $t keys is out of order (-1 after nan, at byte offset $((2 * w)))" \
    "$C/i-nan-first" -t $t --float-order ieee
  check_case "$t the same with -r, ieee: NaNs go last in both directions" 1 "NOT in descending order (--float-order ieee): key 2 of 5" \
    "$C/i-nan-first" -t $t -r --float-order ieee
  keys $t "$C/i-inner-nan" 1 nan 2
  check_case "$t 1 nan 2, ieee" 1 "key 2 of 3 $t keys is out of order (2 after nan" "$C/i-inner-nan" -t $t --float-order ieee
  keys $t "$C/i-neg" 0.0 -1
  check_case "$t +0 -1, ieee (zeros are still above negatives)" 1 "key 1 of 2 $t keys is out of order (-1 after 0" "$C/i-neg" -t $t --float-order ieee
done
records f32 12 3 "$C/i-rec" -1 0.0 -0.0 nan
check_case "f32 records at 3 of 12: -1 +0 -0 nan, ieee" 0 "in ascending order (--float-order ieee);1 duplicate keys" \
  "$C/i-rec" -t f32 --record-size 12 --key-offset 3 --float-order ieee
keys u32 "$C/i-u32" 1 2 2
check_case "u32 keys: --float-order ieee is accepted and changes nothing" 0 "OK $C/i-u32: 3 u32 keys in ascending order; 1 duplicate keys" \
  "$C/i-u32" -t u32 --float-order ieee
check_case "u32 keys out of order, ieee" 1 "key 4 of 6 u32 keys is out of order (4 after 5, at byte offset 16)" "$C/d-u32" -t u32 --float-order ieee
records bytes:3 13 10 "$C/i-bytes" 000000 800000 7fffff
check_case "bytes:3 records out of order, ieee" 1 "NOT in ascending order: record 2 of 3" "$C/i-bytes" -t bytes:3 --record-size 13 --key-offset 10 --float-order ieee
begin "--float-order other: exit 2, the message names the option, the value and the choices"
rmg check "$C/i-u32" -t u32 --float-order IEEE
expect_rc 2
expect_stderr "--float-order" "'IEEE'" "total" "ieee"
expect_stdout_empty
end

# NP: a python3 with numpy (Debian's python3-numpy), if there is one.
NP=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import numpy' 2>/dev/null; then NP=$candidate; break; fi
done
# np_sorted DTYPE SEED OUT.npy OUT.raw [KIND]: np.sort of 20000 values with many -0.0, +0.0, NaNs of
# both signs and infinities (kind 'stable' keeps the shuffled +0.0/-0.0 order, so one +0.0 precedes a
# -0.0); OUT.npy as np.save writes it, OUT.raw its data.
np_sorted() {
  "$NP" - "$@" <<'PY'
import sys
import numpy as np
dtype, seed, npy, raw = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
kind = sys.argv[5] if len(sys.argv) > 5 else "quicksort"
rng = np.random.default_rng(seed)
specials = np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1.0, -1.0], dtype=dtype)
a = np.where(rng.random(20000) < 0.5, rng.choice(specials, 20000), rng.normal(size=20000).astype(dtype))
s = np.sort(a, kind=kind)
zeros = s[s == 0]
assert np.signbit(zeros).any() and (~np.signbit(zeros)).any(), "no zeros of both signs"
assert np.isnan(s).sum() > 1000
if kind == "stable":  # a +0.0 before a -0.0: rmgsort's total order fails it
    assert (~np.signbit(zeros[:-1]) & np.signbit(zeros[1:])).any()
np.save(npy, s)
s.tofile(raw)
PY
}
if [[ -z $NP ]]; then
  begin "np.sort's output (numpy)"
  skip "no python3 with numpy"
else
  for dtype in float32 float64; do
    t=f32
    [[ $dtype == float64 ]] && t=f64
    for kind in quicksort stable; do
      np_sorted $dtype 5 "$C/np.npy" "$C/np.raw" $kind || fail "numpy failed"
      check_case "np.sort(kind=$kind) of $dtype with +-0 and NaNs, raw, ieee" 0 "20000 $t keys in ascending order (--float-order ieee)" \
        "$C/np.raw" -t $t --float-order ieee
      check_case "the same .npy file, ieee" 0 "OK $C/np.npy: 20000 $t keys in ascending order (--float-order ieee)" \
        "$C/np.npy" --float-order ieee
      if [[ $kind == stable ]]; then
        check_case "the same .npy file, total: a +0.0 before a -0.0" 1 "NOT in ascending order: key" "$C/np.npy"
        begin "the same .npy file, total: the offset counts the .npy header, in a file and through a pipe"
        rmg check "$C/np.npy"
        index=$(grep -o 'key [0-9]* of' "$WORK/stdout" | cut -d' ' -f2)
        header=$(( $(stat -c %s "$C/np.npy") - $(stat -c %s "$C/np.raw") ))
        w=4
        [[ $t == f64 ]] && w=8
        expect_stdout "is out of order (-0 after 0, at byte offset $((header + index * w)))"
        sed "s|$C/np.npy|stdin|" "$WORK/stdout" >"$WORK/want"
        run "$RMGSORT" check - < <(cat "$C/np.npy")
        expect_rc 1
        cmp -s "$WORK/want" "$WORK/stdout" || fail "through a pipe: $(cat "$WORK/stdout"), not $(cat "$WORK/want")"
        end
      fi
    done
    # -r: rmgsort keeps the NaNs last, as -np.sort(-a) does; np.sort(a)[::-1] puts them first.
    "$NP" -c 'import numpy as np, sys; a = np.load(sys.argv[1]); np.save(sys.argv[2], -np.sort(-a)); np.save(sys.argv[3], a[::-1])' \
      "$C/np.npy" "$C/np-r.npy" "$C/np-rev.npy" || fail "numpy failed"
    check_case "-np.sort(-a) of $dtype with -r, ieee" 0 "descending order (--float-order ieee)" "$C/np-r.npy" -r --float-order ieee
    check_case "np.sort(a)[::-1] of $dtype with -r, ieee: NaNs first" 1 "NOT in descending order (--float-order ieee)" \
      "$C/np-rev.npy" -r --float-order ieee
  done
  begin "a structured .npy sorted by np.sort(order='key'), checked with --key key --float-order ieee"
  "$NP" - "$C/st.npy" <<'PY' || fail "numpy failed"
import sys
import numpy as np
rng = np.random.default_rng(3)
a = np.zeros(5000, dtype=[("id", "<u4"), ("key", "<f8"), ("pad", "V3")])
a["id"] = np.arange(5000)
a["key"] = rng.choice(np.array([0.0, -0.0, np.nan, 2.5, -7.0, np.inf]), 5000)
np.save(sys.argv[1], np.sort(a, order="key", kind="stable"))
PY
  rmg check "$C/st.npy" --key key --float-order ieee
  expect_rc 0
  expect_stdout "OK $C/st.npy: 5000 15-byte records (f64 key at offset 4) in ascending order (--float-order ieee)"
  rmg check "$C/st.npy" --key key
  expect_rc 1
  expect_stdout "FAIL $C/st.npy: NOT in ascending order: record"
  end
fi

echo "== --threads and --progress"
begin "--threads 0: exit 2, the message names --threads"
rmg check "$C/d-u32" -t u32 --threads 0
expect_rc 2
expect_stderr "--threads"
end
"$RMGSORT" generate -o "$C/p-sorted.u64" -t u64 --count 100000 --dist sorted --seed 2 || fail "generate failed"
# slow_cat FILE: FILE's first 2000 bytes, a 0.6 s pause, the rest (a check long enough to draw progress).
slow_cat() {
  head -c 2000 "$1"
  sleep 0.6
  tail -c +2001 "$1"
}
begin "--progress always, FILE a slow pipe: progress on stderr, the summary alone on stdout"
run "$RMGSORT" check - -t u64 --progress always < <(slow_cat "$C/p-sorted.u64")
expect_rc 0
[[ $(wc -l <"$WORK/stdout") -eq 1 ]] || fail "stdout has $(wc -l <"$WORK/stdout") lines, expected 1"
expect_stdout "OK stdin: 100000 u64 keys in ascending order"
why=$(python3 "$KEYS_PY" progress "$WORK/stderr" "phase:checking stdin") || fail "progress: $why"
end
begin "--progress always, ORIGINAL a slow pipe: its phase is shown"
run "$RMGSORT" check "$C/p-sorted.u64" -t u64 --original - --progress always < <(slow_cat "$C/p-sorted.u64")
expect_rc 0
expect_stdout "a permutation of stdin"
why=$(python3 "$KEYS_PY" progress "$WORK/stderr" "phase:checksumming stdin") || fail "progress: $why"
end
begin "--progress never, a slow pipe: nothing on stderr"
run "$RMGSORT" check - -t u64 --progress never < <(slow_cat "$C/p-sorted.u64")
expect_rc 0
expect_stderr_empty
end
begin "--progress auto, stderr not a terminal: nothing on stderr"
run "$RMGSORT" check - -t u64 < <(slow_cat "$C/p-sorted.u64")
expect_rc 0
expect_stderr_empty
end
begin "--progress sometimes: exit 2, the message names --progress"
rmg check "$C/p-sorted.u64" -t u64 --progress sometimes
expect_rc 2
expect_stderr "--progress"
end

summary
