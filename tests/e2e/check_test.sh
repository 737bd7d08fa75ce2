#!/usr/bin/env bash
# rmgsort check FILE -t TYPE [--input ORIGINAL] [-r]: one summary line; exit 0 when FILE is in order
# (and a permutation of ORIGINAL), 1 when it is not (naming the first key out of order), 2 when a
# file is not a whole number of keys or cannot be read.
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

echo "== disorder across the 64 MiB read chunks"
"$RMGSORT" generate -o "$C/big" -t u32 --count 18M --dist sorted --seed 1 || fail "generate failed"
# put_u32 FILE INDEX VALUE: overwrites key INDEX of FILE.
put_u32() {
  python3 -c 'import struct,sys; f=open(sys.argv[1],"r+b"); f.seek(4*int(sys.argv[2])); f.write(struct.pack("<I", int(sys.argv[3],0)))' "$@"
}
check_case "18M sorted u32 keys (72 MiB)" 0 "18000000 u32 keys in ascending order" "$C/big" -t u32
cp "$C/big" "$C/big-a"
put_u32 "$C/big-a" 16777216 0
check_case "key 16777216 (first of the second 64 MiB chunk) set to 0" 1 "key 16777216 of 18000000" "$C/big-a" -t u32
cp "$C/big" "$C/big-b"
put_u32 "$C/big-b" 16777215 0
check_case "key 16777215 (last of the first chunk) set to 0" 1 "key 16777215 of 18000000" "$C/big-b" -t u32
begin "the same through a pipe: exit 1, key 16777216"
run "$RMGSORT" check - -t u32 < <(cat "$C/big-a")
expect_rc 1
expect_stdout "key 16777216 of 18000000"
end
rm -f "$C"/big*

echo "== permutation (--input ORIGINAL)"
keys u32 "$C/orig" 3 1 2
keys u32 "$C/perm" 1 2 3
check_case "1 2 3 against 3 1 2" 0 "a permutation of $C/orig" "$C/perm" -t u32 --input "$C/orig"
keys u32 "$C/changed" 1 2 4
check_case "1 2 4 against 3 1 2 (one key changed)" 1 "3 u32 keys in ascending order;NOT a permutation of $C/orig" "$C/changed" -t u32 --input "$C/orig"
keys u32 "$C/missing" 1 2
check_case "1 2 against 3 1 2 (a key missing)" 1 "NOT a permutation;3 keys" "$C/missing" -t u32 --input "$C/orig"
keys u32 "$C/extra" 1 2 3 3
check_case "1 2 3 3 against 3 1 2 (a key extra)" 1 "NOT a permutation" "$C/extra" -t u32 --input "$C/orig"
keys u32 "$C/dup" 1 2 2
check_case "1 2 2 against 3 1 2 (a key duplicated)" 1 "NOT a permutation" "$C/dup" -t u32 --input "$C/orig"
keys u32 "$C/sum-a" 1 4
keys u32 "$C/sum-b" 2 3
check_case "2 3 against 1 4 (same count and sum)" 1 "NOT a permutation" "$C/sum-b" -t u32 --input "$C/sum-a"
keys u32 "$C/xor-a" 1 1
keys u32 "$C/xor-b" 2 2
check_case "2 2 against 1 1 (same count and XOR)" 1 "NOT a permutation" "$C/xor-b" -t u32 --input "$C/xor-a"
keys u64 "$C/sq-a" 0 3 3
keys u64 "$C/sq-b" 1 1 4
check_case "1 1 4 against 0 3 3 (same count, sum and sum of squares)" 1 "NOT a permutation" "$C/sq-b" -t u64 --input "$C/sq-a"
keys u32 "$C/unsorted-changed" 9 1
check_case "9 1 against 3 1 2 (disorder and not a permutation)" 1 "NOT in ascending order;NOT a permutation" "$C/unsorted-changed" -t u32 --input "$C/orig"
keys f32 "$C/pz" 0.0
keys f32 "$C/nz" -0.0
check_case "f32 +0.0 against -0.0 (different bit patterns)" 1 "NOT a permutation" "$C/pz" -t f32 --input "$C/nz"
keys f64 "$C/nan1" 1.0 bits:0x7ff8000000000001
keys f64 "$C/nan2" 1.0 bits:0x7ff8000000000002
check_case "f64 NaN payloads 1 and 2" 1 "NOT a permutation" "$C/nan2" -t f64 --input "$C/nan1"
check_case "an empty file against an empty original" 0 "0 u32 keys;a permutation of" "$C/empty" -t u32 --input "$C/empty"
check_case "an empty file against 3 keys" 1 "NOT a permutation" "$C/empty" -t u32 --input "$C/orig"

begin "100003 sorted keys against the unsorted original, and with one key incremented"
"$RMGSORT" generate -o "$C/orig-big" -t i64 --count 100003 --seed 31 &&
  "$RMGSORT" sort "$C/orig-big" -o "$C/sorted-big" -t i64 || fail "setup failed"
rmg check "$C/sorted-big" -t i64 --input "$C/orig-big"
expect_rc 0
expect_stdout "OK" "a permutation of"
python3 -c 'import struct,sys; f=open(sys.argv[1],"r+b"); f.seek(8*100002); v=struct.unpack("<q", f.read(8))[0]; f.seek(8*100002); f.write(struct.pack("<q", v - 1 if v > -2**63 else v + 1))' "$C/sorted-big"
rmg check "$C/sorted-big" -t i64 --input "$C/orig-big"
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
rmg check "$C/cut" -t u64 --input "$C/orig"
expect_rc 2
expect_stderr "cut" "20" "not a whole number"
end

begin "check against a truncated --input original: exit 2, message names the original"
rmg check "$C/perm" -t u32 --input "$C/trunc4001"
expect_rc 2
expect_stderr "trunc4001" "not a whole number"
end

summary
