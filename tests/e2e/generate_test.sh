#!/usr/bin/env bash
# rmgsort generate: determinism (the same seed gives the same bytes whatever --threads), different
# seeds differ, --count (k/M/G: powers of 1000) and --size (K/M/G/T: powers of 1024), the documented
# properties of the distributions, records (--record-size, --key-offset, bytes:N keys: the payload
# and gensort's layout against tests/e2e/record_files.py), and its usage errors (exit 2, no file
# created).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

G=$WORK/gen
mkdir -p "$G"
TYPES=(u32 u64 i32 i64 f32 f64)
width_of() { [[ $1 == *32 ]] && echo 4 || echo 8; }

echo "== determinism"
for type in "${TYPES[@]}"; do
  for dist in uniform normal special zipf:1.5 bits:13 sorted reverse nearly-sorted zero; do
    begin "$type $dist, 100003 keys, seed 42: --threads 1, --threads 2 and the default give the same bytes"
    for threads in 1 2 default; do
      args=()
      [[ $threads != default ]] && args=(--threads "$threads")
      rmg generate -o "$G/t$threads" -t "$type" --count 100003 --dist "$dist" --seed 42 "${args[@]}"
      expect_rc 0
      expect_stdout_empty
    done
    expect_size "$G/t1" $((100003 * $(width_of "$type")))
    expect_same "$G/t1" "$G/t2"
    expect_same "$G/t1" "$G/tdefault"
    end
  done
done

begin "u64 uniform, 80 MiB (two 64 MiB generation chunks): --threads 1 and 2 give the same bytes"
rmg generate -o "$G/big1" -t u64 --size 80M --seed 5 --threads 1
expect_rc 0
rmg generate -o "$G/big2" -t u64 --size 80M --seed 5 --threads 2
expect_rc 0
expect_size "$G/big1" $((80 << 20))
expect_same "$G/big1" "$G/big2"
rm -f "$G"/big*
end

for type in "${TYPES[@]}"; do
  for dist in uniform normal sorted special; do
    begin "$type $dist: seeds 1 and 2 give different keys"
    rmg generate -o "$G/s1" -t "$type" --count 1000 --dist "$dist" --seed 1
    expect_rc 0
    rmg generate -o "$G/s2" -t "$type" --count 1000 --dist "$dist" --seed 2
    expect_rc 0
    cmp -s "$G/s1" "$G/s2" && fail "seeds 1 and 2 gave the same 1000 keys"
    end
  done
done

begin "no --seed is --seed 1 (the documented default)"
rmg generate -o "$G/noseed" -t u64 --count 1000
expect_rc 0
rmg generate -o "$G/seed1" -t u64 --count 1000 --seed 1
expect_rc 0
expect_same "$G/noseed" "$G/seed1"
end

begin "the largest seed (2^64 - 1) is accepted and differs from seed 0"
rmg generate -o "$G/seedmax" -t u64 --count 100 --seed 18446744073709551615
expect_rc 0
rmg generate -o "$G/seed0" -t u64 --count 100 --seed 0
expect_rc 0
cmp -s "$G/seedmax" "$G/seed0" && fail "seeds 2^64-1 and 0 gave the same keys"
end

begin "generate -o - (to a pipe) writes the same bytes as generate -o FILE"
run "$RMGSORT" generate -o - -t f64 --count 12345 --dist special --seed 8
expect_rc 0
"$RMGSORT" generate -o "$G/to-file" -t f64 --count 12345 --dist special --seed 8
expect_same "$WORK/stdout" "$G/to-file"
end

begin "generate over an existing file replaces it"
printf 'OLD' >"$G/replace"
rmg generate -o "$G/replace" -t u32 --count 10
expect_rc 0
expect_size "$G/replace" 40
expect_no_temp "$G"
end

echo "== --count and --size"
# count_or_size DESC EXPECTED-BYTES ARG...: generate with ARG... makes a file of EXPECTED-BYTES.
count_or_size() {
  local desc=$1 bytes=$2
  shift 2
  begin "$desc: $bytes bytes"
  rm -f "$G/n"
  rmg generate -o "$G/n" "$@"
  expect_rc 0
  expect_size "$G/n" "$bytes"
  end
}
count_or_size "--count 1000 -t u32" 4000 -t u32 --count 1000
count_or_size "--count 2k -t u64 (k = 1000)" 16000 -t u64 --count 2k
count_or_size "--count 1M -t u32 (M = 1,000,000)" 4000000 -t u32 --count 1M
count_or_size "--count 0.5k -t i32" 2000 -t i32 --count 0.5k
count_or_size "--count 0 -t f64" 0 -t f64 --count 0
count_or_size "--size 1024 -t u32 (plain bytes)" 1024 -t u32 --size 1024
count_or_size "--size 4K -t u32 (K = 1024)" 4096 -t u32 --size 4K
count_or_size "--size 3K -t f64" 3072 -t f64 --size 3K
count_or_size "--size 2M -t i64 (M = 1048576)" 2097152 -t i64 --size 2M
count_or_size "--size 1.5K -t u32" 1536 -t u32 --size 1.5K
count_or_size "--size 0 -t u64" 0 -t u64 --size 0

begin "--count 3000000000G -t u64 (G = 10^9: 3e18 keys, 2.4e19 bytes): exit 2, the message counts 3000000000000000000 keys"
rmg generate -o "$G/huge" -t u64 --count 3000000000G
expect_rc 2
expect_stderr "--count" "3000000000000000000 keys"
expect_no_file "$G/huge"
end

begin "--count 3000000000000M -t u64 (M = 10^6): exit 2, the message counts 3000000000000000000 keys"
rmg generate -o "$G/huge" -t u64 --count 3000000000000M
expect_rc 2
expect_stderr "--count" "3000000000000000000 keys"
expect_no_file "$G/huge"
end

begin "--size 4K -t u32 and --count 1024 -t u32 give the same bytes"
rmg generate -o "$G/by-size" -t u32 --size 4K --seed 3 --dist normal
expect_rc 0
rmg generate -o "$G/by-count" -t u32 --count 1024 --seed 3 --dist normal
expect_rc 0
expect_same "$G/by-size" "$G/by-count"
end

begin "--size 1M -t f64 and --count 131072 -t f64 give the same bytes"
rmg generate -o "$G/by-size" -t f64 --size 1M --seed 4 --dist special
expect_rc 0
rmg generate -o "$G/by-count" -t f64 --count 131072 --seed 4 --dist special
expect_rc 0
expect_same "$G/by-size" "$G/by-count"
end

echo "== distributions keep their documented properties"
for type in "${TYPES[@]}"; do
  begin "$type sorted: check says ascending; reverse: check -r says descending"
  rmg generate -o "$G/sorted" -t "$type" --count 100003 --dist sorted --seed 9
  rmg check "$G/sorted" -t "$type"
  expect_rc 0
  rmg generate -o "$G/reverse" -t "$type" --count 100003 --dist reverse --seed 9
  rmg check "$G/reverse" -t "$type" -r
  expect_rc 0
  rmg check "$G/reverse" -t "$type"
  expect_rc 1
  end

  begin "$type zero: every key the same; bits:0: every key all zero bits"
  rmg generate -o "$G/zero" -t "$type" --count 10000 --dist zero --seed 10
  expect_rc 0
  why=$(python3 "$KEYS_PY" property "$type" "$G/zero" all-equal) || fail "zero: $why"
  rmg generate -o "$G/bits0" -t "$type" --count 10000 --dist bits:0 --seed 10
  expect_rc 0
  why=$(python3 "$KEYS_PY" property "$type" "$G/bits0" all-zero) || fail "bits:0: $why"
  end

  begin "$type bits:8: every key's bit pattern is below 256"
  rmg generate -o "$G/bits8" -t "$type" --count 10000 --dist bits:8 --seed 11
  expect_rc 0
  unsigned=u$((8 * $(width_of "$type")))
  why=$(python3 "$KEYS_PY" property "$unsigned" "$G/bits8" below:256) || fail "bits:8: $why"
  end

  begin "$type uniform over 10000 keys: not all the same, not sorted"
  rmg generate -o "$G/uniform" -t "$type" --count 10000 --seed 12
  expect_rc 0
  python3 "$KEYS_PY" property "$type" "$G/uniform" all-equal >/dev/null && fail "every key equal"
  rmg check "$G/uniform" -t "$type"
  expect_rc 1
  end
done

for type in f32 f64; do
  begin "$type uniform: every key in [-1, 1), no NaN, no inf"
  rmg generate -o "$G/funi" -t "$type" --count 100003 --seed 13
  expect_rc 0
  why=$(python3 "$KEYS_PY" property "$type" "$G/funi" floats-in:-1:1) || fail "$why"
  end

  begin "$type special: NaNs of both signs among 10000 keys"
  rmg generate -o "$G/fspecial" -t "$type" --count 10000 --dist special --seed 14
  expect_rc 0
  why=$(python3 "$KEYS_PY" property "$type" "$G/fspecial" nan-both-signs) || fail "$why"
  end
done

begin "i32 special: includes min, min+1, -1, 0, 1, max-1, max"
rmg generate -o "$G/ispecial" -t i32 --count 10000 --dist special --seed 15
why=$(python3 "$KEYS_PY" property i32 "$G/ispecial" ints-include:-2147483648,-2147483647,-1,0,1,2147483646,2147483647) || fail "$why"
end

begin "u64 special: includes 0, 1, max-1, max and the values either side of the sign bit"
rmg generate -o "$G/uspecial" -t u64 --count 10000 --dist special --seed 16
why=$(python3 "$KEYS_PY" property u64 "$G/uspecial" ints-include:0,1,0x7fffffffffffffff,0x8000000000000000,0xfffffffffffffffe,0xffffffffffffffff) || fail "$why"
end

echo "== records (--record-size, --key-offset, bytes:N)"
RECORD_FILES="$E2E_DIR/record_files.py"
# Layouts: TYPE RECORD-SIZE KEY-OFFSET, unaligned keys, keys that end the record, bytes keys that are
# the whole record, and the Sort Benchmark's.
LAYOUTS=("u64 13 3" "f32 5 1" "i32 100 96" "f64 21 7" "bytes:1 2 1" "bytes:3 13 10" "bytes:10 100 0"
         "bytes:16 16 0" "bytes:32 100 34")
for layout in "${LAYOUTS[@]}"; do
  read -r type r k <<<"$layout"
  lay=(-t "$type" --record-size "$r" --key-offset "$k")
  for dist in uniform sorted special zipf:1.5; do
    begin "$type key at $k of $r-byte records, $dist, 20011 records: --threads 1, 2 and the default give the same bytes"
    for threads in 1 2 default; do
      args=()
      [[ $threads != default ]] && args=(--threads "$threads")
      rmg generate -o "$G/r$threads" "${lay[@]}" --count 20011 --dist "$dist" --seed 42 "${args[@]}"
      expect_rc 0
      expect_stdout_empty
    done
    expect_size "$G/r1" $((20011 * r))
    expect_same "$G/r1" "$G/r2"
    expect_same "$G/r1" "$G/rdefault"
    end
  done

  begin "$type key at $k of $r-byte records: each payload starts with its index, then the seed's filler (gensort's layout for bytes:10 in 100)"
  rmg generate -o "$G/rec" "${lay[@]}" --count 3001 --dist special --seed 77
  expect_rc 0
  why=$(python3 "$RECORD_FILES" payload-index "$type" "$r" "$k" "$G/rec" 77) || fail "$why"
  end
done

for type in u32 i64 f64; do
  begin "$type records: the keys are the bare keys of the same seed and distribution"
  for dist in uniform normal nearly-sorted special; do
    rmg generate -o "$G/bare" -t "$type" --count 5003 --dist "$dist" --seed 8
    rmg generate -o "$G/rec" -t "$type" --record-size 19 --key-offset 5 --count 5003 --dist "$dist" --seed 8
    expect_rc 0
    python3 "$RECORD_FILES" keys "$type" 19 5 "$G/rec" "$G/rec-keys"
    expect_same "$G/bare" "$G/rec-keys"
  done
  end
done

begin "bytes:10 in 100-byte records, 700000 records (70 MB, two 64 MiB generation chunks): --threads 1 and 2 agree, gensort's layout throughout"
rmg generate -o "$G/big1" -t bytes:10 --record-size 100 --count 700000 --seed 5 --threads 1
expect_rc 0
rmg generate -o "$G/big2" -t bytes:10 --record-size 100 --count 700000 --seed 5 --threads 2
expect_rc 0
expect_size "$G/big1" 70000000
expect_same "$G/big1" "$G/big2"
# Records 671087 and 671088 straddle the first chunk (64 MiB / 100 bytes).
tail -c $((100 * (700000 - 671080))) "$G/big1" >"$G/big-tail"
python3 - "$G/big-tail" <<'PY' || fail "a record's index digits are wrong after the chunk boundary"
import sys
data = open(sys.argv[1], "rb").read()
for j in range(0, len(data) // 100, 997):
    i = 671080 + j
    assert data[100 * j + 12:100 * j + 44] == f"{i:032X}".encode(), i
for i in (671087, 671088):
    j = i - 671080
    assert data[100 * j + 12:100 * j + 44] == f"{i:032X}".encode(), i
PY
rm -f "$G"/big*
end

for type in bytes:1 bytes:3 bytes:10 bytes:32; do
  begin "$type sorted: check says ascending; reverse: check -r says descending; uniform: not sorted"
  rmg generate -o "$G/sorted" -t "$type" --record-size 40 --key-offset 5 --count 30011 --dist sorted --seed 9
  rmg check "$G/sorted" -t "$type" --record-size 40 --key-offset 5
  expect_rc 0
  rmg generate -o "$G/reverse" -t "$type" --record-size 40 --key-offset 5 --count 30011 --dist reverse --seed 9
  rmg check "$G/reverse" -t "$type" --record-size 40 --key-offset 5 -r
  expect_rc 0
  rmg generate -o "$G/uniform" -t "$type" --record-size 40 --key-offset 5 --count 30011 --seed 9
  rmg check "$G/uniform" -t "$type" --record-size 40 --key-offset 5
  expect_rc 1
  end
done

begin "bytes:8 sorted keys are the u64 sorted keys, big-endian"
rmg generate -o "$G/b8" -t bytes:8 --count 1000 --dist sorted --seed 3
expect_rc 0
rmg generate -o "$G/u64" -t u64 --count 1000 --dist sorted --seed 3
python3 - "$G/b8" "$G/u64" <<'PY' || fail "bytes:8 keys are not the u64 keys big-endian"
import struct, sys
b8, u64 = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
assert [b8[i:i + 8] for i in range(0, 8000, 8)] == [struct.pack(">Q", v) for (v,) in struct.iter_unpack("<Q", u64)]
PY
end

begin "records to a pipe (-o -) are the bytes written to a file"
run "$RMGSORT" generate -o - -t bytes:10 --record-size 100 --count 1234 --seed 8
expect_rc 0
"$RMGSORT" generate -o "$G/to-file" -t bytes:10 --record-size 100 --count 1234 --seed 8
expect_same "$WORK/stdout" "$G/to-file"
end

count_or_size "--count 7 of 13-byte records" 91 -t u64 --record-size 13 --key-offset 5 --count 7
count_or_size "--count 0 of 100-byte records" 0 -t bytes:10 --record-size 100 --count 0
count_or_size "--size 1000 of 100-byte records" 1000 -t bytes:10 --record-size 100 --size 1000
count_or_size "--size 1M of 16-byte records (u32 key at 12)" 1048576 -t u32 --record-size 16 --key-offset 12 --size 1M

echo "== usage errors: exit 2, a message naming the option, no file created"
# gen_error DESC TEXTS ARG...: generate -o NEW ARG... fails with exit 2 and a message with every
# ';'-separated TEXT, creating nothing; the same over an existing file leaves it untouched.
gen_error() {
  local desc=$1 texts=$2 parts
  shift 2
  IFS=';' read -ra parts <<<"$texts"
  begin "$desc: exit 2, message names ${texts//;/ + }, no file created, an existing file untouched"
  rm -f "$G/new"
  rmg generate -o "$G/new" "$@"
  expect_rc 2
  expect_error_message
  expect_stderr "${parts[@]}"
  expect_no_file "$G/new"
  printf 'KEEP ME' >"$G/existing"
  rmg generate -o "$G/existing" "$@"
  expect_rc 2
  [[ "$(cat "$G/existing")" == "KEEP ME" ]] || fail "the existing file changed"
  expect_no_temp "$G"
  end
}
gen_error "--size 6 -t u32 (not a whole number of keys)" "--size;6;not a whole number" -t u32 --size 6
gen_error "--size 12 -t u64" "--size;12;not a whole number" -t u64 --size 12
gen_error "--size 1001 -t f32" "--size;1001;not a whole number" -t f32 --size 1001
gen_error "malformed --size 1.3K (not a whole number of bytes)" "--size;1.3K" -t f64 --size 1.3K
gen_error "malformed --size 4Q" "--size;4Q" -t u32 --size 4Q
gen_error "malformed --size -1" "--size" -t u32 --size=-1
gen_error "malformed --count 1.5 (a fraction needs a suffix)" "--count;1.5" -t u32 --count 1.5
gen_error "malformed --count -5" "--count;-5" -t u32 --count=-5
gen_error "malformed --count 12x" "--count;12x" -t u32 --count 12x
gen_error "malformed --count 1.0001k (not whole)" "--count;1.0001k" -t u32 --count 1.0001k
gen_error "neither --count nor --size" "--count;--size" -t u32
gen_error "both --count and --size" "--count;--size" -t u32 --count 10 --size 40
gen_error "unknown distribution" "foo" -t u32 --count 10 --dist foo
gen_error "bits:33 for u32" "bits:33;32" -t u32 --count 10 --dist bits:33
gen_error "bits:65 for u64" "bits:65" -t u64 --count 10 --dist bits:65
gen_error "zipf:-1" "zipf:-1" -t u32 --count 10 --dist zipf:-1
gen_error "zipf:abc" "zipf:abc" -t u32 --count 10 --dist zipf:abc
gen_error "normal:3 (no parameter)" "normal:3" -t u32 --count 10 --dist normal:3
gen_error "--seed abc" "--seed" -t u32 --count 10 --seed abc
gen_error "--seed -1 (the seed is unsigned)" "--seed" -t u32 --count 10 --seed=-1
gen_error "--seed 18446744073709551616 (beyond 64 bits)" "--seed" -t u32 --count 10 --seed 18446744073709551616
gen_error "--threads 0" "--threads" -t u32 --count 10 --threads 0
gen_error "unknown --progress mode" "--progress;loud" -t u32 --count 10 --progress loud
gen_error "type missing" "--type" --count 10
gen_error "--size 1001 of 100-byte records (not whole records)" "--size;1001;100 bytes each" -t bytes:10 --record-size 100 --size 1001
gen_error "--size 12 of 13-byte records" "--size;12;13 bytes each" -t u64 --record-size 13 --size 12
gen_error "bits:9 for bytes:1 keys" "bits:9;bytes:1" -t bytes:1 --record-size 4 --count 10 --dist bits:9
gen_error "bits:25 for bytes:3 keys" "bits:25;bytes:3" -t bytes:3 --count 10 --dist bits:25
gen_error "--count of records beyond 64-bit sizes" "--count;200000000000000000 records" -t bytes:10 --record-size 100 --count 200000000000000000
gen_error "a key that does not fit the record" "--key-offset;--record-size" -t u64 --record-size 10 --key-offset 3 --count 1
gen_error "bytes:33 (N above 32)" "--type;bytes:33" -t bytes:33 --count 1

begin "-o missing: standard output, as sort's (gnu_habits_test.sh has the rest)"
rmg generate -t u32 --count 10
expect_rc 0
expect_size "$WORK/stdout" 40
end

summary
