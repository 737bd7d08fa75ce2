#!/usr/bin/env bash
# rmgsort sort A B C: the concatenation of the inputs sorted, against an independent numpy reference
# (tests/e2e/pipeline_ref.py): raw keys and records, .npy arrays (the output's shape their counts
# together), standard input among them (a file or a pipe), on every CPU path (in memory, spilled,
# a stream spilled), --index-output positions counted across the concatenation; every input checked
# up front (exit 2 naming it); -o may name an input, --index-output and --stats may not. The GPU paths
# read inputs through the same readers: tests/e2e/gpu_sort_test.sh.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_numpy_python
REF="$E2E_DIR/pipeline_ref.py"
CPU=(--gpus none)

M=$WORK/m
mkdir -p "$M" "$M/temp"
# Three raw u64 inputs of sizes that are no multiple of a page, with keys in common (zipf).
"$RMGSORT" generate -o "$M/a.u64" -t u64 --count 100003 --seed 1 --dist zipf:1.0 &&
  "$RMGSORT" generate -o "$M/b.u64" -t u64 --count 7 --seed 2 --dist zipf:1.0 &&
  "$RMGSORT" generate -o "$M/c.u64" -t u64 --count 250001 --seed 3 --dist zipf:1.0 &&
  : >"$M/empty" &&
  "$RMGSORT" generate -o "$M/a.rec" -t u64 --record-size 13 --key-offset 3 --count 30011 --seed 4 --dist zipf:1.2 &&
  "$RMGSORT" generate -o "$M/b.rec" -t u64 --record-size 13 --key-offset 3 --count 20011 --seed 5 --dist zipf:1.2 ||
  { echo "setup failed"; exit 2; }

# expect_ref ARGS...: pipeline_ref.py check ARGS... agrees.
expect_ref() {
  local why
  why=$("$PY" "$REF" check "$@" 2>&1) || fail "not the reference: $why"
}

# stat_of FILE MEMBER: a member of a --stats JSON file.
stat_of() {
  "$PY" -c 'import json, sys; v = json.load(open(sys.argv[1])).get(sys.argv[2]); print("" if v is None else v)' "$@"
}

echo "== raw keys and records"
for path in "in memory:" "spilled:--host-memory 1M" "spilled deep:--host-memory 128K"; do
  name=${path%%:*}
  read -ra memory <<<"${path#*:}"
  begin "three u64 files, $name: their concatenation sorted, positions across it"
  rmg sort "$M/a.u64" "$M/b.u64" "$M/c.u64" -t u64 -o "$M/out" --index-output "$M/idx" "${CPU[@]}" -T "$M/temp" \
    "${memory[@]}" --stats "$M/stats.json"
  expect_rc 0
  expect_stderr_empty
  expect_ref --raw u64 8 0 "$M/out" "$M/idx" "$M/a.u64" "$M/b.u64" "$M/c.u64"
  [[ $(stat_of "$M/stats.json" keys) == 350011 ]] || fail "stats count $(stat_of "$M/stats.json" keys) keys"
  [[ $(stat_of "$M/stats.json" input) == "$M/a.u64, $M/b.u64, $M/c.u64" ]] || fail "stats input: $(stat_of "$M/stats.json" input)"
  if [[ $name == spilled* ]]; then
    [[ $(stat_of "$M/stats.json" spilled) == True ]] || fail "it did not spill"
  fi
  end
done

begin "13-byte records (u64 key at 3), descending, two files and an empty one: stable, positions across"
rmg sort "$M/a.rec" "$M/empty" "$M/b.rec" -t u64 --record-size 13 --key-offset 3 -r -o "$M/out" --index-output "$M/idx" "${CPU[@]}"
expect_rc 0
expect_ref --desc --raw u64 13 3 "$M/out" "$M/idx" "$M/a.rec" "$M/empty" "$M/b.rec"
end

begin "13-byte records spilled (--host-memory 256K): the same"
rmg sort "$M/a.rec" "$M/b.rec" -t u64 --record-size 13 --key-offset 3 -o "$M/out" --index-output "$M/idx" "${CPU[@]}" \
  --host-memory 256K -T "$M/temp"
expect_rc 0
expect_ref --raw u64 13 3 "$M/out" "$M/idx" "$M/a.rec" "$M/b.rec"
end

begin "sorting A B equals sorting cat A B"
cat "$M/a.u64" "$M/c.u64" >"$M/ac.u64"
rmg sort "$M/ac.u64" -t u64 -o "$M/cat-sorted" "${CPU[@]}"
rmg sort "$M/a.u64" "$M/c.u64" -t u64 -o "$M/out" "${CPU[@]}"
expect_rc 0
expect_same "$M/out" "$M/cat-sorted"
end

echo "== standard input among the inputs"
begin "A - C with stdin a file: sorted as A B C"
run "$RMGSORT" sort "$M/a.u64" - "$M/c.u64" -t u64 -o "$M/out" --index-output "$M/idx" "${CPU[@]}" <"$M/b.u64"
expect_rc 0
expect_ref --raw u64 8 0 "$M/out" "$M/idx" "$M/a.u64" "$M/b.u64" "$M/c.u64"
end

for path in "in memory:" "spilled:--host-memory 1M" "spilled deep:--host-memory 128K"; do
  name=${path%%:*}
  read -ra memory <<<"${path#*:}"
  begin "A - C with stdin a pipe (the whole sequence a stream), $name"
  run "$RMGSORT" sort "$M/a.u64" - "$M/c.u64" -t u64 -o "$M/out" --index-output "$M/idx" "${CPU[@]}" -T "$M/temp" \
    "${memory[@]}" < <(cat "$M/b.u64" "$M/a.u64")
  expect_rc 0
  cat "$M/b.u64" "$M/a.u64" >"$M/piped"
  expect_ref --raw u64 8 0 "$M/out" "$M/idx" "$M/a.u64" "$M/piped" "$M/c.u64"
  [[ -z $(ls -A "$M/temp") ]] || fail "left in --temp-dir: $(ls -A "$M/temp")"
  end
done

begin "- first, to standard output"
run "$RMGSORT" sort - "$M/a.u64" -t u64 "${CPU[@]}" < <(cat "$M/c.u64")
expect_rc 0
cp "$WORK/stdout" "$M/out"
expect_ref --raw u64 8 0 "$M/out" - "$M/c.u64" "$M/a.u64"
end

echo "== .npy inputs"
"$PY" - "$M" <<'PY' || { echo "npy setup failed"; exit 2; }
import sys
import numpy as np
import numpy.lib.format as fmt
d = sys.argv[1]
rng = np.random.default_rng(7)
for name, n in (("a", 5000), ("b", 0), ("c", 7), ("d", 30001)):
    np.save(f"{d}/{name}.npy", rng.choice(np.array([1, 2, 3, 2**64 - 1, 0], dtype="<u8"), n))
rec = np.dtype({"names": ["p", "k"], "formats": ["u1", "<f4"], "offsets": [0, 1], "itemsize": 7})
for name, n in (("r1", 3000), ("r2", 4000)):
    a = np.zeros(n, dtype=rec)
    a["p"] = np.arange(n) % 251
    a["k"] = rng.choice(np.array([np.nan, -0.0, 0.0, 1.5, -np.inf], dtype="<f4"), n)
    np.save(f"{d}/{name}.npy", a)
with open(f"{d}/v2.npy", "wb") as f:
    fmt.write_array(f, rng.integers(0, 9, 1000).astype("<u8"), version=(2, 0))
np.save(f"{d}/u4.npy", np.arange(10, dtype="<u4"))
PY

for path in "in memory:" "spilled:--host-memory 512K"; do
  name=${path%%:*}
  read -ra memory <<<"${path#*:}"
  begin "four <u8 arrays (one empty), $name: one array of their counts together"
  rmg sort "$M/a.npy" "$M/b.npy" "$M/c.npy" "$M/d.npy" -o "$M/out.npy" --index-output "$M/idx.npy" "${CPU[@]}" \
    -T "$M/temp" "${memory[@]}"
  expect_rc 0
  expect_ref --npy "$M/out.npy" "$M/idx.npy" "$M/a.npy" "$M/b.npy" "$M/c.npy" "$M/d.npy"
  end
done

begin "a structured dtype by --key k (an f4 with NaNs, at offset 1): stable across the inputs"
rmg sort "$M/r1.npy" "$M/r2.npy" --key k -o "$M/out.npy" --index-output "$M/idx.npy" "${CPU[@]}"
expect_rc 0
expect_ref --npy --key k "$M/out.npy" "$M/idx.npy" "$M/r1.npy" "$M/r2.npy"
end

begin "a .npy pipe on stdin between two files, spilled, to standard output"
run "$RMGSORT" sort "$M/a.npy" - "$M/v2.npy" "${CPU[@]}" --host-memory 256K -T "$M/temp" < <(cat "$M/d.npy")
expect_rc 0
cp "$WORK/stdout" "$M/out.npy"
expect_ref --npy "$M/out.npy" - "$M/a.npy" "$M/d.npy" "$M/v2.npy"
end

begin "a .npy pipe shorter than its header says, among files: exit 2 naming stdin, nothing written"
head -c 4000 "$M/d.npy" >"$M/short.npy"
"$RMGSORT" sort "$M/a.npy" - "${CPU[@]}" < <(cat "$M/short.npy") 2>"$WORK/stderr" | cat >"$M/piped.out"
RC=${PIPESTATUS[0]}
expect_rc 2
expect_stderr "stdin: the .npy header states 30001 items" "ends after"
expect_size "$M/piped.out" 0
end

echo "== refused up front: exit 2 naming the input, nothing written"
# refused NAME TEXTS ARGS...: rmgsort sort ARGS... -o OUT: exit 2, stderr holds each of TEXTS (';'), no OUT.
refused() {
  local name=$1 parts
  IFS=';' read -ra parts <<<"$2"
  shift 2
  begin "$name"
  rm -f "$M/refused.out"
  rmg sort "$@" -o "$M/refused.out" "${CPU[@]}"
  expect_rc 2
  expect_error_message
  expect_stderr "${parts[@]}"
  expect_no_file "$M/refused.out"
  expect_no_temp "$M"
  end
}
printf 'abc' >"$M/three"
refused "a missing third input" "missing.u64;No such file or directory" "$M/a.u64" "$M/b.u64" "$M/missing.u64" -t u64
refused "a second input that is no whole number of keys" "three;3 bytes are not a whole number of u64 keys" \
  "$M/a.u64" "$M/three" -t u64
refused "a file that is no whole number of keys after standard input (a stream): before anything is read" \
  "three;3 bytes are not a whole number of u64 keys" - "$M/three" -t u64
refused "a directory among the inputs" "temp: is a directory" "$M/a.u64" "$M/temp" -t u64
refused "standard input twice" "standard input (-) is given 2 times" - "$M/a.u64" - -t u64
# One pipe by two names: what the first read takes, the second would never see.
refused "standard input as - and as /dev/stdin (a pipe)" "/dev/stdin and stdin are the same stream" \
  - "$M/a.u64" /dev/stdin -t u64 < <(cat "$M/a.u64")
mkfifo "$M/fifo"
refused "a FIFO by two names" "$M/./fifo and $M/fifo are the same stream" "$M/fifo" "$M/./fifo" -t u64
rm -f "$M/fifo"
refused "raw after .npy" "a.u64: not a .npy file, unlike $M/a.npy" "$M/a.npy" "$M/a.u64"
refused ".npy after raw" "a.npy: a .npy file, unlike $M/a.u64" "$M/a.u64" "$M/a.npy" -t u64
refused "two .npy dtypes" "u4.npy: its .npy dtype '<u4' is not $M/a.npy's '<u8'" "$M/a.npy" "$M/u4.npy"

begin "--index-output naming the second input: refused, both inputs untouched"
cp "$M/b.u64" "$M/b.copy"
rmg sort "$M/a.u64" "$M/b.copy" -t u64 --index-output "$M/b.copy" -o "$M/out" "${CPU[@]}"
expect_rc 2
expect_stderr "--index-output $M/b.copy: is the input file $M/b.copy"
expect_same "$M/b.copy" "$M/b.u64"
end

begin "--stats naming the first input: refused"
cp "$M/a.u64" "$M/a.copy"
rmg sort "$M/a.copy" "$M/b.u64" -t u64 --stats "$M/a.copy" -o "$M/out" "${CPU[@]}"
expect_rc 2
expect_stderr "--stats $M/a.copy: is the input file $M/a.copy"
expect_same "$M/a.copy" "$M/a.u64"
end

# More inputs than the open-file limit holds at once: those beyond half of it are closed once
# checked and opened again for their turn (a hard limit below the inputs failed "Too many open files").
MANY=$M/many
mkdir -p "$MANY"
"$PY" - "$MANY" <<'PY'
import random, struct, sys
rng = random.Random(7)
for i in range(600):
    keys = [rng.randrange(0, 1000) for _ in range(rng.randrange(0, 400))]
    open("%s/i%03d.u64" % (sys.argv[1], i), "wb").write(struct.pack("<%dQ" % len(keys), *keys))
PY
for path in "in memory:" "spilled:--host-memory 128K"; do
  name=${path%%:*}
  read -ra memory <<<"${path#*:}"
  begin "600 inputs under ulimit -n 200, $name: their concatenation sorted, positions across it"
  (ulimit -n 200 && "$RMGSORT" sort "$MANY"/i*.u64 -t u64 -o "$M/out" --index-output "$M/idx" "${CPU[@]}" \
    -T "$M/temp" "${memory[@]}" --stats "$M/stats.json") >"$WORK/stdout" 2>"$WORK/stderr"
  RC=$?
  expect_rc 0
  expect_ref --raw u64 8 0 "$M/out" "$M/idx" "$MANY"/i*.u64
  if [[ $name == spilled ]]; then
    [[ $(stat_of "$M/stats.json" spilled) == True ]] || fail "it did not spill"
  fi
  end
done
begin "600 inputs and standard input under ulimit -n 200: read as one stream, the files in turn"
(ulimit -n 200 && "$RMGSORT" sort "$MANY"/i*.u64 - -t u64 -o "$M/out" "${CPU[@]}" -T "$M/temp" <"$M/b.u64") \
  >"$WORK/stdout" 2>"$WORK/stderr"
RC=$?
expect_rc 0
expect_ref --raw u64 8 0 "$M/out" - "$MANY"/i*.u64 "$M/b.u64"
rm -rf "$MANY"
end

begin "-o naming the second input: sorted in place, after every input was read"
cp "$M/c.u64" "$M/c.copy"
rmg sort "$M/a.u64" "$M/c.copy" -t u64 -o "$M/c.copy" "${CPU[@]}"
expect_rc 0
expect_ref --raw u64 8 0 "$M/c.copy" - "$M/a.u64" "$M/c.u64"
end

begin "standard output is the second input (stdout redirected onto it): refused"
cp "$M/b.u64" "$M/b.copy"
"$RMGSORT" sort "$M/a.u64" "$M/b.copy" -t u64 "${CPU[@]}" >>"$M/b.copy" 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_stderr "standard output is the input file $M/b.copy"
expect_same "$M/b.copy" "$M/b.u64"
end

summary
