#!/usr/bin/env bash
# Sorting records (--record-size, --key-offset, bytes:N keys) against an independent reference:
# tests/e2e/records_ref.py, numpy's stable argsort of a rank computed from the key values. The output
# must be exactly the input's records in that order (equal keys in input order, in both directions;
# float NaNs last in input order), and --index-output exactly numpy's stable argsort.
#   1. every key type (u32 .. f64, bytes:1/3/8/10/16/32) x record layouts (the key alone, key + 1 at
#      offset 0 and 1, 12, 13 and 100 bytes at offsets 0, middle, last possible, unaligned) x sizes
#      0, 1, 7 and 2000 records (edge values, few distinct keys, random keys) x both orders, in memory
#      on the CPU (and, with a GPU, the inputs of few distinct keys with the GPUs too);
#   2. hand-written keys (NaNs, -0.0 and +0.0, integer extremes, bytes:N prefixes) against
#      hand-written orders of their positions;
#   3. 10^5 .. 10^6 records through every path: in memory, spilled (small --host-memory; one level and
#      several), a file and a pipe on standard input, --index-output with and without -o, --verify,
#      and, with a GPU, the in-core GPU sort and rounds forced by a small --gpu-memory;
#   4. the usage errors of records; 5. generate --record-size, sort, check --input.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_numpy_python
REF="$E2E_DIR/records_ref.py"
ref() { "$PY" "$REF" "$@"; }

gpus_present=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
CPU=(--gpus none)
# The GPUs by number: --gpus all (the default) sends inputs as small as these to the CPU.
GPUS=(--gpus "$(seq -s, 0 $((${gpus_present:-1} - 1)))")

D=$WORK/records
mkdir -p "$D"
MANIFEST=$WORK/manifest
: >"$MANIFEST"

width_of() {
  case $1 in
    bytes:*) echo "${1#bytes:}" ;;
    *32) echo 4 ;;
    *) echo 8 ;;
  esac
}

# layouts W: "RECORD_SIZE KEY_OFFSET" lines for a W-byte key: alone, key + 1 (offset 0 and the last
# possible), 12 bytes (key in the middle), 13 bytes (offset 3: unaligned; and the last possible),
# 100 bytes (offset 0, 37: unaligned middle, and the last possible).
layouts() {
  local w=$1
  {
    echo "$w 0"
    echo "$((w + 1)) 0"
    echo "$((w + 1)) 1"
    ((w <= 12)) && echo "12 $(((12 - w) / 2))"
    ((w <= 10)) && echo "13 3"
    ((w <= 13)) && echo "13 $((13 - w))"
    echo "100 0"
    echo "100 37"
    echo "100 $((100 - w))"
  } | awk '!seen[$0]++'
}

# expect_ref TYPE R K ORDER INPUT OUTPUT INDEX NAME...: queue the comparison of OUTPUT (and INDEX; '-'
# when absent) with the reference; flush_ref runs the queue and counts each line as a case.

# stat_of FILE MEMBER: a top-level member of a --stats JSON file (empty when absent or null).
stat_of() {
  "$PY" -c 'import json,sys; v = json.load(open(sys.argv[1])).get(sys.argv[2]); print("" if v is None else v)' \
    "$1" "$2" 2>/dev/null
}

echo "== 1. every key type x record layout x size, both orders, in memory on the CPU"
seed=1000
for type in u32 u64 i32 i64 f32 f64 bytes:1 bytes:3 bytes:8 bytes:10 bytes:16 bytes:32; do
  w=$(width_of "$type")
  : >"$WORK/spec"
  inputs=()
  while read -r r k; do
    for shape in special:0 special:1 special:7 few:2000 uniform:2000; do
      seed=$((seed + 1))
      in=$D/${type/:/_}-r$r-k$k-${shape/:/-}.in
      echo "$in $type ${shape#*:} $r $k ${shape%:*} $seed" >>"$WORK/spec"
      inputs+=("$r $k ${shape%:*} ${shape#*:} $in")
    done
  done < <(layouts "$w")
  ref gen "$WORK/spec" || { echo "records_ref.py gen failed" >&2; exit 2; }
  for item in "${inputs[@]}"; do
    read -r r k dist n in <<<"$item"
    what="$type --record-size $r --key-offset $k, $n records ($dist)"
    begin "$what: sort and sort -r exit 0 with nothing on stdout"
    rmg sort "$in" -o "$in.asc" -t "$type" --record-size "$r" --key-offset "$k" "${CPU[@]}"
    expect_rc 0
    expect_stdout_empty
    rmg sort "$in" -o "$in.desc" -t "$type" --record-size "$r" --key-offset "$k" -r "${CPU[@]}"
    expect_rc 0
    expect_stdout_empty
    end
    expect_ref "$type" "$r" "$k" asc "$in" "$in.asc" - "$what ascending: the reference's records"
    expect_ref "$type" "$r" "$k" desc "$in" "$in.desc" - "$what descending: the reference's records"
    if [[ $dist == few ]]; then
      begin "$what: --index-output with -o (ascending) and without -o (descending) exit 0"
      rmg sort "$in" -o "$in.iasc" --index-output "$in.iasc.idx" -t "$type" --record-size "$r" --key-offset "$k" "${CPU[@]}"
      expect_rc 0
      rmg sort "$in" --index-output "$in.idesc.idx" -t "$type" --record-size "$r" --key-offset "$k" -r "${CPU[@]}"
      expect_rc 0
      expect_stdout_empty
      end
      expect_ref "$type" "$r" "$k" asc "$in" "$in.iasc" "$in.iasc.idx" "$what ascending with --index-output: records and positions"
      expect_ref "$type" "$r" "$k" desc "$in" - "$in.idesc.idx" "$what descending, --index-output alone: positions"
      if [[ ${gpus_present:-0} -gt 0 ]]; then
        begin "$what: with the GPUs, ascending with --index-output and descending, exit 0"
        rmg sort "$in" -o "$in.gasc" --index-output "$in.gasc.idx" -t "$type" --record-size "$r" --key-offset "$k" "${GPUS[@]}"
        expect_rc 0
        rmg sort "$in" -o "$in.gdesc" -t "$type" --record-size "$r" --key-offset "$k" -r "${GPUS[@]}"
        expect_rc 0
        end
        expect_ref "$type" "$r" "$k" asc "$in" "$in.gasc" "$in.gasc.idx" "$what with the GPUs, ascending: records and positions"
        expect_ref "$type" "$r" "$k" desc "$in" "$in.gdesc" - "$what with the GPUs, descending: the reference's records"
      fi
    fi
  done
  flush_ref
  rm -f "$D"/*
done

echo "== 2. hand-written keys against hand-written orders (positions read from the payload)"
# hand TYPE R K "VALUES" "ASCENDING POSITIONS" "DESCENDING POSITIONS"
hand() {
  local type=$1 r=$2 k=$3 values=$4 asc=$5 desc=$6 order flag expected got
  # shellcheck disable=SC2086
  ref write "$type" "$r" "$k" "$D/hand.in" $values || { echo "records_ref.py write failed" >&2; exit 2; }
  for order in asc desc; do
    flag=""; expected=$asc
    [[ $order == desc ]] && { flag=-r; expected=$desc; }
    begin "$type at $k of $r-byte records, $order: [$values] -> positions [$expected]; the same from a pipe to stdout"
    rmg sort "$D/hand.in" -o "$D/hand.out" -t "$type" --record-size "$r" --key-offset "$k" $flag "${CPU[@]}"
    expect_rc 0
    got=$(ref positions "$type" "$r" "$k" "$D/hand.out" 2>&1)
    [[ $got == "$expected" ]] || fail "positions [$got]"
    run "$RMGSORT" sort -t "$type" --record-size "$r" --key-offset "$k" $flag "${CPU[@]}" < <(cat "$D/hand.in")
    expect_rc 0
    expect_same "$WORK/stdout" "$D/hand.out"
    end
  done
}
hand f64 16 0 "nan 1.5 -0.0 0.0 -inf -nan 1.5 inf -0.0 bits:0x7ff0000000000001 -1 0.0" \
  "4 10 2 8 3 11 1 6 7 0 5 9" "7 1 6 3 11 2 8 10 4 0 5 9"
hand f32 13 3 "nan 1.5 -0.0 0.0 -inf -nan 1.5 inf -0.0 bits:0x7f800001 -1 0.0" \
  "4 10 2 8 3 11 1 6 7 0 5 9" "7 1 6 3 11 2 8 10 4 0 5 9"
hand f32 12 0 "-nan nan -nan nan" "0 1 2 3" "0 1 2 3"
hand i64 16 5 "max min 0 -1 max min 1 0" "1 5 3 2 7 6 0 4" "0 4 6 2 7 3 1 5"
hand i32 12 8 "max min 0 -1 max min 1 0" "1 5 3 2 7 6 0 4" "0 4 6 2 7 3 1 5"
hand u64 17 1 "max 0 0x8000000000000000 max 1 0" "1 5 4 2 0 3" "0 3 2 4 1 5"
hand u32 12 4 "max 0 0x80000000 max 1 0" "1 5 4 2 0 3" "0 3 2 4 1 5"
hand bytes:3 11 0 "000000 ffffff 0000ff 000000 ff0000 00ff00 0000ff" "0 3 2 6 5 4 1" "1 4 5 2 6 0 3"
hand bytes:10 20 10 "00000000000000000002 00000000000000000001 01000000000000000000 00000000000000000001 ffffffffffffffffff00" \
  "1 3 0 2 4" "4 2 0 1 3"
hand bytes:1 9 0 "80 7f 80 00 ff 7f" "3 1 5 0 2 4" "4 0 2 1 5 3"
hand bytes:32 40 8 "$(printf 'ab%.0s' {1..32}) $(printf 'ab%.0s' {1..31})ac $(printf 'ab%.0s' {1..32}) $(printf 'ab%.0s' {1..31})aa" \
  "3 0 2 1" "1 0 2 3"
rm -f "$D"/*

echo "== 3. 10^5 .. 10^6 records through every path"
# TYPE R K COUNT DIST
BIG=(
  "u64 13 3 1000000 many"
  "bytes:10 100 0 200000 many"
  "f64 16 8 500000 special"
  "i32 5 0 1000000 uniform"
  "u32 4 0 1000000 few"
  "bytes:32 100 68 100000 few"
  "f32 7 3 500000 special"
)
mkdir -p "$D/temp"
seed=5000
for item in "${BIG[@]}"; do
  read -r type r k n dist <<<"$item"
  seed=$((seed + 1))
  in=$D/big.in
  echo "$in $type $n $r $k $dist $seed" >"$WORK/spec"
  ref gen "$WORK/spec" || { echo "records_ref.py gen failed" >&2; exit 2; }
  lay=(-t "$type" --record-size "$r" --key-offset "$k")
  what="$type --record-size $r --key-offset $k, $n records ($dist)"

  begin "$what: in memory, ascending: --stats names the layout and the records, not spilled"
  rmg sort "$in" -o "$D/mem.asc" "${lay[@]}" "${CPU[@]}" --stats "$D/stats.json"
  expect_rc 0
  for pair in spilled=False key_type=$type record_size=$r key_offset=$k records=$n; do
    got=$(stat_of "$D/stats.json" "${pair%%=*}")
    [[ $got == "${pair#*=}" ]] || fail "stats: ${pair%%=*} is '$got', expected '${pair#*=}'"
  done
  end
  expect_ref "$type" "$r" "$k" asc "$in" "$D/mem.asc" - "$what: in memory, ascending: the reference's records"

  begin "$what: in memory, descending, --index-output, --verify"
  rmg sort "$in" -o "$D/mem.desc" --index-output "$D/mem.desc.idx" -r --verify "${lay[@]}" "${CPU[@]}" --stats "$D/stats.json"
  expect_rc 0
  [[ $RC -ne 0 || $(stat_of "$D/stats.json" verified) == True ]] || fail "stats do not say the output was verified"
  end
  expect_ref "$type" "$r" "$k" desc "$in" "$D/mem.desc" "$D/mem.desc.idx" "$what: in memory, descending: records and positions"

  begin "$what: spilled (--host-memory 2M), ascending, --verify: spill files removed"
  rmg sort "$in" -o "$D/spill.asc" --host-memory 2M -T "$D/temp" --verify "${lay[@]}" "${CPU[@]}" --stats "$D/stats.json"
  expect_rc 0
  [[ $RC -ne 0 || $(stat_of "$D/stats.json" spilled) == True ]] || fail "not spilled"
  [[ -z $(ls -A "$D/temp") ]] || fail "spill files left in -T"
  end
  expect_ref "$type" "$r" "$k" asc "$in" "$D/spill.asc" - "$what: spilled, ascending: the reference's records"

  begin "$what: spilled (--host-memory 2M), descending, --index-output without -o"
  rmg sort "$in" --index-output "$D/spill.desc.idx" -r --host-memory 2M -T "$D/temp" "${lay[@]}" "${CPU[@]}"
  expect_rc 0
  expect_stdout_empty
  [[ -z $(ls -A "$D/temp") ]] || fail "spill files left in -T"
  end
  expect_ref "$type" "$r" "$k" desc "$in" - "$D/spill.desc.idx" "$what: spilled, descending, --index-output alone: positions"

  # Keys of a few distinct values fall apart at the first level (equal keys need no further one).
  levels=2
  [[ $dist == few || $dist == special ]] && levels=1
  begin "$what: spilled deep (--host-memory 256K: $levels spill level(s) or more), descending, --index-output with -o"
  rmg sort "$in" -o "$D/deep.desc" --index-output "$D/deep.desc.idx" -r --host-memory 256K -T "$D/temp" "${lay[@]}" "${CPU[@]}" \
    --stats "$D/stats.json"
  expect_rc 0
  [[ $RC -ne 0 || $(stat_of "$D/stats.json" spill_levels) -ge $levels ]] ||
    fail "$(stat_of "$D/stats.json" spill_levels) spill level(s), expected $levels or more"
  [[ -z $(ls -A "$D/temp") ]] || fail "spill files left in -T"
  end
  expect_ref "$type" "$r" "$k" desc "$in" "$D/deep.desc" "$D/deep.desc.idx" "$what: spilled deep, descending: records and positions"

  begin "$what: a file on stdin, descending, in memory, --index-output"
  run "$RMGSORT" sort - -o "$D/stdin.desc" --index-output "$D/stdin.desc.idx" -r "${lay[@]}" "${CPU[@]}" <"$in"
  expect_rc 0
  end
  expect_ref "$type" "$r" "$k" desc "$in" "$D/stdin.desc" "$D/stdin.desc.idx" "$what: a file on stdin, descending: records and positions"

  begin "$what: a pipe on stdin to stdout, ascending, spilled (--host-memory 2M)"
  "$RMGSORT" sort -T "$D/temp" --host-memory 2M "${lay[@]}" "${CPU[@]}" < <(cat "$in") >"$D/pipe.asc" 2>"$WORK/stderr"
  RC=$?
  expect_rc 0
  [[ -z $(ls -A "$D/temp") ]] || fail "spill files left in -T"
  end
  expect_ref "$type" "$r" "$k" asc "$in" "$D/pipe.asc" - "$what: a pipe, spilled, ascending: the reference's records"

  if [[ ${gpus_present:-0} -gt 0 ]]; then
    begin "$what: on the GPUs, ascending, --index-output: engine gpu"
    rmg sort "$in" -o "$D/gpu.asc" --index-output "$D/gpu.asc.idx" "${lay[@]}" "${GPUS[@]}" --stats "$D/stats.json"
    expect_rc 0
    [[ $RC -ne 0 || $(stat_of "$D/stats.json" engine) == gpu ]] || fail "not sorted by the GPU engine"
    end
    expect_ref "$type" "$r" "$k" asc "$in" "$D/gpu.asc" "$D/gpu.asc.idx" "$what: on the GPUs, ascending: records and positions"

    # The GPUs hold the records' tags, 8 bytes each, twice: 1M of GPU memory takes fewer than 50 000.
    begin "$what: on the GPUs in rounds (--gpu-memory 1M), descending, --verify"
    rmg sort "$in" -o "$D/gpu.desc" -r --gpu-memory 1M --verify "${lay[@]}" "${GPUS[@]}" --stats "$D/stats.json"
    expect_rc 0
    [[ $RC -ne 0 || $(stat_of "$D/stats.json" engine) == gpu ]] || fail "not sorted by the GPU engine"
    [[ $RC -ne 0 || $(stat_of "$D/stats.json" rounds) -ge 2 ]] || fail "$(stat_of "$D/stats.json" rounds) round(s), expected 2 or more"
    end
    expect_ref "$type" "$r" "$k" desc "$in" "$D/gpu.desc" - "$what: on the GPUs in rounds, descending: the reference's records"
  else
    begin "$what: on the GPUs"
    skip "no GPU (nvidia-smi -L lists none)"
  fi
  flush_ref
  rm -f "$D"/big.in "$D"/*.asc "$D"/*.desc "$D"/*.idx "$D"/stats.json
done

# A stream read whole that then does not fit one sort in --host-memory goes through the spill pass,
# which appends positions and checksums the records for --verify as it reads them.
begin "a complete stream spilled with --index-output and --verify"
head -c $((100000 * 21)) /dev/urandom >"$WORK/stream21.in"
rmg sort "$WORK/stream21.in" -o "$WORK/stream21.mem" -t u64 --record-size 21 --key-offset 3 --gpus none \
  --index-output "$WORK/stream21.mem.idx"
"$RMGSORT" sort -t u64 --record-size 21 --key-offset 3 --gpus none --host-memory 5M --verify \
  --index-output "$WORK/stream21.idx" -o "$WORK/stream21.out" --stats "$WORK/stream21.json" <"$WORK/stream21.in" \
  2>"$WORK/stderr"
RC=$?
expect_rc 0
[[ $RC -ne 0 || $(stat_of "$WORK/stream21.json" spilled) == True ]] || fail "not spilled"
cmp -s "$WORK/stream21.mem" "$WORK/stream21.out" || fail "records differ from the in-memory sort's"
cmp -s "$WORK/stream21.mem.idx" "$WORK/stream21.idx" || fail "positions differ from the in-memory sort's"
end

echo "== 4. usage errors of records"
head -c 25 /dev/urandom >"$D/25bytes"
begin "a 25-byte file of 12-byte records: exit 2 naming the file, its size and the record size; no output, no index"
rmg sort "$D/25bytes" -o "$D/out" --index-output "$D/idx" -t u32 --record-size 12 "${CPU[@]}"
expect_rc 2
expect_error_message
expect_stderr "25bytes" "25" "12"
expect_no_file "$D/out"
expect_no_file "$D/idx"
end

begin "25 bytes of 12-byte records on stdin: exit 2 naming the record size"
run "$RMGSORT" sort -o "$D/out" -t bytes:10 --record-size 12 "${CPU[@]}" <"$D/25bytes"
expect_rc 2
expect_error_message
expect_stderr "12"
expect_no_file "$D/out"
end

head -c 24 /dev/urandom >"$D/24bytes"
sort_error() {
  local name=$1 text=$2
  shift 2
  begin "$name: exit 2 naming $text, no output"
  rmg sort "$D/24bytes" -o "$D/out" "$@" "${CPU[@]}"
  expect_rc 2
  expect_error_message
  expect_stderr "$text"
  expect_no_file "$D/out"
  end
}
sort_error "u32 at --key-offset 9 of 12-byte records" --key-offset -t u32 --record-size 12 --key-offset 9
sort_error "u64 at --key-offset 5 of 12-byte records" --key-offset -t u64 --record-size 12 --key-offset 5
sort_error "bytes:13 in 12-byte records" --key-offset -t bytes:13 --record-size 12
sort_error "f64 at --key-offset 1 with no --record-size (the key's width)" --key-offset -t f64 --key-offset 1
sort_error "bytes:0" bytes:0 -t bytes:0
sort_error "bytes:33" bytes:33 -t bytes:33 --record-size 40
sort_error "--record-size 0" --record-size -t u32 --record-size 0
sort_error "--record-size x" --record-size -t u32 --record-size x
sort_error "--key-offset -1" --key-offset -t u32 --record-size 12 --key-offset=-1

# --index-output is an output like -o: never the input, another output or standard output twice,
# and a failed run leaves an existing index file as it was.
head -c 240 /dev/urandom >"$D/240bytes"
index_error() {
  local name=$1 text=$2
  shift 2
  begin "--index-output $name: exit 2 naming $text; the input and existing files untouched"
  cp "$D/240bytes" "$D/input.keep"
  echo "old output" >"$D/old.out"
  echo "old index" >"$D/old.idx"
  cp "$D/old.out" "$D/old.out.keep"
  cp "$D/old.idx" "$D/old.idx.keep"
  run "$RMGSORT" sort "$D/240bytes" "${CPU[@]}" "$@"
  expect_rc 2
  expect_error_message
  expect_stderr "$text"
  expect_same "$D/240bytes" "$D/input.keep"
  expect_same "$D/old.out" "$D/old.out.keep"
  expect_same "$D/old.idx" "$D/old.idx.keep"
  end
}
R12=(-t u64 --record-size 12)
index_error "naming -o's file" "--index-output $D/old.out and -o $D/old.out" "${R12[@]}" -o "$D/old.out" --index-output "$D/old.out"
index_error "naming the input" "--index-output $D/240bytes" "${R12[@]}" -o "$D/old.out" --index-output "$D/240bytes"
index_error "naming --stats' file" "--stats $D/old.idx" "${R12[@]}" -o "$D/old.out" --index-output "$D/old.idx" --stats "$D/old.idx"
index_error "- beside -o -" "--index-output -: standard output already carries the sorted records" "${R12[@]}" -o - --index-output -
index_error "- beside --stats -" "--stats -: standard output already carries the positions" "${R12[@]}" -o "$D/old.out" --index-output - --stats -
index_error "when the records are cut" "not a whole number of records" -t u32 --record-size 7 -o "$D/old.out" --index-output "$D/old.idx"

echo "== 5. generate --record-size, sort, check --input"
# TYPE R K DIST
GEN=("u64 16 0 uniform" "f32 13 3 special" "i64 12 4 zipf:1.0" "bytes:10 100 0 uniform" "u32 9 5 zero")
for item in "${GEN[@]}"; do
  read -r type r k dist <<<"$item"
  lay=(-t "$type" --record-size "$r" --key-offset "$k")
  in=$D/gen.in
  what="$type --record-size $r --key-offset $k ($dist)"
  begin "generate $what, 20011 records: exit 0, 20011 records, payloads starting with the index, the bare keys of the seed"
  rmg generate -o "$in" "${lay[@]}" --count 20011 --dist "$dist" --seed 7
  if [[ $RC -ne 0 ]] && grep -q "not supported" "$WORK/stderr"; then
    skip "this rmgsort's generate refuses records: $(head -n 1 "$WORK/stderr")"
    continue
  fi
  expect_rc 0
  expect_size "$in" $((20011 * r))
  bare=""
  if [[ $type != bytes:* ]]; then
    "$RMGSORT" generate -o "$D/gen.bare" -t "$type" --count 20011 --dist "$dist" --seed 7 || fail "generate of bare keys failed"
    bare=$D/gen.bare
  fi
  why=$(ref generated "$type" "$r" "$k" "$in" ${bare:+"$bare"} 2>&1) || fail "not generate's record layout: $why"
  end
  [[ $RC -eq 0 ]] || continue
  for order in asc desc; do
    flag=""; [[ $order == desc ]] && flag=-r
    begin "generate $what, sort ${flag:-(ascending)}, check --input: exit 0, OK"
    rmg sort "$in" -o "$D/gen.$order" $flag "${lay[@]}" "${CPU[@]}"
    expect_rc 0
    rmg check "$D/gen.$order" $flag "${lay[@]}" --input "$in"
    if [[ $RC -ne 0 ]] && grep -q "not supported" "$WORK/stderr"; then
      skip "this rmgsort's check refuses records: $(head -n 1 "$WORK/stderr")"
      expect_ref "$type" "$r" "$k" "$order" "$in" "$D/gen.$order" - "generated $what, $order: the reference's records"
      continue
    fi
    expect_rc 0
    expect_stdout "OK"
    end
    expect_ref "$type" "$r" "$k" "$order" "$in" "$D/gen.$order" - "generated $what, $order: the reference's records"
  done
  if [[ $dist != zero ]]; then
    begin "check $what: exit 1 for the unsorted input, the ascending output checked as descending, and a changed payload byte with --input"
    rmg check "$in" "${lay[@]}"
    if [[ $RC -ne 0 ]] && grep -q "not supported" "$WORK/stderr"; then
      skip "this rmgsort's check refuses records"
    else
      expect_rc 1
      rmg check "$D/gen.asc" -r "${lay[@]}"
      expect_rc 1
      # One payload byte changed (the key untouched, so the order holds): no longer the input's records.
      cp "$D/gen.asc" "$D/gen.tampered"
      at=$(((k + $(width_of "$type") == r) ? 0 : r - 1))  # a payload byte of the first record
      byte=$(od -An -tu1 -j "$at" -N1 "$D/gen.tampered" | tr -d ' ')
      # shellcheck disable=SC2059
      printf "\\x$(printf %02x $((byte ^ 0xff)))" | dd of="$D/gen.tampered" bs=1 seek="$at" conv=notrunc status=none
      rmg check "$D/gen.tampered" "${lay[@]}"
      expect_rc 0
      rmg check "$D/gen.tampered" "${lay[@]}" --input "$in"
      expect_rc 1
      end
    fi
  fi
  flush_ref
done

summary
