#!/usr/bin/env bash
# Sorting every key type: each of u32 u64 i32 i64 f32 f64, many distributions and sizes (0, 1, 7
# and 100003 keys), ascending and descending. The output must be exactly what an independent
# reference (tests/e2e/keys.py: Python, sorting by value in the documented order) gives, check
# --input must accept it, and sorting a sorted output again must not change a byte. Then hand-written
# edge values (integer minimum and maximum, -0.0 and +0.0, infinities, denormals, NaNs of both
# signs) against hand-written expected orders, and a few large inputs.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

D=$WORK/keys
mkdir -p "$D"
MANIFEST=$WORK/manifest
: >"$MANIFEST"

TYPES=(u32 u64 i32 i64 f32 f64)
DISTS=(uniform normal special zero bits:0 bits:W sorted reverse nearly-sorted zipf:1.0)
SIZES=(0 1 7 100003)

width_of() { [[ $1 == *32 ]] && echo 4 || echo 8; }

echo "== generated keys: sort, check --input, re-sort (the reference comparison follows)"
seed=100
for type in "${TYPES[@]}"; do
  w=$(width_of "$type")
  for dist in "${DISTS[@]}"; do
    [[ $dist == bits:W ]] && dist=bits:$((8 * w))
    for n in "${SIZES[@]}"; do
      seed=$((seed + 1))
      tag=$type-${dist/:/_}-$n
      in=$D/$tag.in
      begin "$type $dist, $n keys: sort and sort -r exit 0, check --input accepts both, sorting them again changes nothing"
      "$RMGSORT" generate -o "$in" -t "$type" --count "$n" --dist "$dist" --seed "$seed" || fail "generate failed"
      expect_size "$in" $((n * w))
      rmg sort "$in" -o "$D/$tag.asc" -t "$type"
      expect_rc 0
      expect_stdout_empty
      rmg sort "$in" -o "$D/$tag.desc" -t "$type" -r
      expect_rc 0
      rmg check "$D/$tag.asc" -t "$type" --input "$in"
      expect_rc 0
      expect_stdout "OK" "$n $type keys in ascending order" "a permutation of"
      rmg check "$D/$tag.desc" -t "$type" -r --input "$in"
      expect_rc 0
      expect_stdout "OK" "$n $type keys in descending order" "a permutation of"
      rmg sort "$D/$tag.asc" -o "$D/$tag.asc2" -t "$type"
      expect_rc 0
      expect_same "$D/$tag.asc2" "$D/$tag.asc"
      rmg sort "$D/$tag.desc" -o "$D/$tag.desc2" -t "$type" --descending
      expect_rc 0
      expect_same "$D/$tag.desc2" "$D/$tag.desc"
      rm -f "$D/$tag.asc2" "$D/$tag.desc2"
      end
      echo "$type asc $in $D/$tag.asc" >>"$MANIFEST"
      echo "$type desc $in $D/$tag.desc" >>"$MANIFEST"
    done
  done
done

echo "== every output against the independent reference"
python3 "$KEYS_PY" verify "$MANIFEST" >"$WORK/verified" 2>&1 || echo "FAIL the reference comparison itself failed" >>"$WORK/verified"
count_verdicts "$WORK/verified"
rm -rf "$D"
mkdir -p "$D"

# expect_keys TYPE FILE NANS VALUE...: FILE holds exactly VALUE... (as keys.py writes them) followed
# by NANS NaNs in any order whose bit patterns are those of the file $D/nans.
expect_keys() {
  local type=$1 file=$2 nans=$3 w
  shift 3
  w=$(width_of "$type")
  keys "$type" "$D/expected" "$@"
  local numbers=$(($# * w))
  expect_size "$file" $((numbers + nans * w))
  cmp -s <(head -c "$numbers" "$file") "$D/expected" ||
    fail "$file: the numbers differ from the expected order: got $(head -c "$numbers" "$file" | od -An -v -tx$w | tr -s ' \n' ' ')"
  if [[ $nans -gt 0 ]]; then
    diff -q <(tail -c $((nans * w)) "$file" | od -An -v -w$w -tx$w | sort) <(od -An -v -w$w -tx$w "$D/nans" | sort) >/dev/null ||
      fail "$file: the last $nans keys are not the input's NaNs"
  fi
}

# edge_case TYPE "INPUT VALUES" "ASCENDING NUMBERS" NAN-VALUES...: sorts INPUT (whose NaNs are the
# NAN-VALUES, appended) both ways and compares with the hand-written ascending order (reversed for -r).
edge_case() {
  local type=$1 input=$2 ascending=$3
  shift 3
  local nans=("$@") descending=() v
  # shellcheck disable=SC2206
  local asc=($ascending)
  for ((v = ${#asc[@]} - 1; v >= 0; v--)); do descending+=("${asc[v]}"); done
  keys "$type" "$D/nans" "${nans[@]}"
  # shellcheck disable=SC2086
  keys "$type" "$D/input" $input "${nans[@]}"

  begin "$type edge values ascending: ${asc[*]}${nans:+ then NaNs ${nans[*]}}"
  rmg sort "$D/input" -o "$D/asc" -t "$type"
  expect_rc 0
  expect_keys "$type" "$D/asc" ${#nans[@]} "${asc[@]}"
  rmg check "$D/asc" -t "$type" --input "$D/input"
  expect_rc 0
  end

  begin "$type edge values descending: ${descending[*]}${nans:+ then NaNs}"
  rmg sort "$D/input" -o "$D/desc" -t "$type" -r
  expect_rc 0
  expect_keys "$type" "$D/desc" ${#nans[@]} "${descending[@]}"
  rmg check "$D/desc" -t "$type" -r --input "$D/input"
  expect_rc 0
  end

  begin "$type edge values from stdin to stdout: same bytes as from the file"
  run "$RMGSORT" sort -t "$type" <"$D/input"
  expect_rc 0
  expect_same "$WORK/stdout" "$D/asc"
  end
}

echo "== hand-written edge values"
edge_case u32 "max 0 1 0x80000000 0x7fffffff 4294967294 5 5 0xffff 0x10000" \
  "0 1 5 5 0xffff 0x10000 0x7fffffff 0x80000000 4294967294 max"
edge_case u64 "max 0 0x8000000000000000 1 0x7fffffffffffffff 0xffffffff 0x100000000 18446744073709551614 7" \
  "0 1 7 0xffffffff 0x100000000 0x7fffffffffffffff 0x8000000000000000 18446744073709551614 max"
edge_case i32 "max min -1 0 1 -2147483647 2147483646 -1 -256 255" \
  "min -2147483647 -256 -1 -1 0 1 255 2147483646 max"
edge_case i64 "max 0 min -1 1 -9223372036854775807 9223372036854775806 -4294967296 4294967296" \
  "min -9223372036854775807 -4294967296 -1 0 1 4294967296 9223372036854775806 max"
for type in f32 f64; do
  if [[ $type == f32 ]]; then
    nan_patterns=(nan -nan bits:0x7f800001 bits:0xff800001 bits:0x7fffffff bits:0xffffffff)
  else
    nan_patterns=(nan -nan bits:0x7ff0000000000001 bits:0xfff0000000000001 bits:0x7fffffffffffffff bits:0xffffffffffffffff)
  fi
  edge_case "$type" "1.0 -0.0 -inf 0.0 inf -1.0 denorm -denorm max lowest min -min 2.5 -2.5 0.0 -0.0 1e-30 -1e30" \
    "-inf lowest -1e30 -2.5 -1.0 -min -denorm -0.0 -0.0 0.0 0.0 denorm min 1e-30 1.0 2.5 max inf" \
    "${nan_patterns[@]}"
  edge_case "$type" "0.0 -0.0 0.0 -0.0 -0.0" "-0.0 -0.0 -0.0 0.0 0.0"
  edge_case "$type" "" "" nan -nan nan
  edge_case "$type" "inf -inf" "-inf inf" -nan
done

echo "== larger inputs (multiple parallel radix passes)"
begin "u64 uniform, 3,000,000 keys: --threads 1 and --threads 2 give the same bytes; check --input accepts them"
"$RMGSORT" generate -o "$D/big.in" -t u64 --count 3M --seed 77 || fail "generate failed"
rmg sort "$D/big.in" -o "$D/big.t1" -t u64 --threads 1
expect_rc 0
rmg sort "$D/big.in" -o "$D/big.t2" -t u64 --threads 2
expect_rc 0
expect_same "$D/big.t1" "$D/big.t2"
rmg check "$D/big.t2" -t u64 --input "$D/big.in"
expect_rc 0
expect_stdout "OK" "3000000 u64 keys in ascending order" "a permutation of"
rm -f "$D"/big.*
end

begin "i32 zipf:1.0, 4,000,000 keys descending: --threads 1 and 2 give the same bytes; check -r --input accepts them"
"$RMGSORT" generate -o "$D/big.in" -t i32 --count 4M --dist zipf:1.0 --seed 78 || fail "generate failed"
rmg sort "$D/big.in" -o "$D/big.t1" -t i32 -r --threads 1
expect_rc 0
rmg sort "$D/big.in" -o "$D/big.t2" -t i32 -r --threads 2
expect_rc 0
expect_same "$D/big.t1" "$D/big.t2"
rmg check "$D/big.t2" -t i32 -r --input "$D/big.in"
expect_rc 0
rm -f "$D"/big.*
end

begin "f64 bits:64 (every pattern, NaNs included), 300,000 keys: the reference agrees, ascending and descending"
"$RMGSORT" generate -o "$D/big.in" -t f64 --count 300k --dist bits:64 --seed 79 || fail "generate failed"
rmg sort "$D/big.in" -o "$D/big.asc" -t f64
expect_rc 0
expect_sorted_like f64 "$D/big.in" "$D/big.asc"
rmg sort "$D/big.in" -o "$D/big.desc" -t f64 -r
expect_rc 0
expect_sorted_like f64 "$D/big.in" "$D/big.desc" desc
rm -f "$D"/big.*
end

summary
