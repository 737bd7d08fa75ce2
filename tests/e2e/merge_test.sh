#!/usr/bin/env bash
# rmgsort merge against an independent reference: runs made by `rmgsort sort` of random slices of an
# input, merged; a stable merge of runs in input order is the stable sort of their concatenation, which
# tests/e2e/records_ref.py computes with numpy (its stable argsort of a rank from the key values), so
# the output must be exactly its records and --index-output exactly its argsort.
#   1. 50 runs of u64 keys (slices of 0 .. 40 000 keys), one pass and passes forced by a small
#      --host-memory or a low open-file limit, with --index-output, --verify and --stats, nothing
#      left in -T;
#   2. every key type and record layouts (bare, 13 bytes at 3, 100 at 37) x both orders, runs of
#      0, 1, 7 and more records of edge values and few distinct keys (stability), through passes;
#   3. standard input as one of the inputs, with --index-output (its length learnt first);
#   4. .npy inputs: a .npy output of the summed shape, np.load's stable sort; a dtype that differs;
#   5. an input out of order: exit 1 naming it, the record and its byte offset, nothing committed,
#      nothing left in -T, --stats saying so; in a pass of runs too;
#   6. the usage errors: no inputs, - twice, a missing file, no --type, a cut record, formats mixed;
#   8. --method sort and auto (app/merge_method.hpp): the same bytes as the merge for keys, records,
#      .npy and -u, in memory and through sort's spill files; an input out of order still exit 1 with
#      the merge's words; streams refused by sort and merged by auto; auto's rule in --stats.
#   7. --unique (as sort -m -u) against tests/e2e/pipeline_ref.py (the stable argsort of the
#      concatenation, then the first of each run of equal keys): in 2 for every layout and order, one
#      pass and passes; here --stats (records kept, duplicates dropped), many runs of repeated keys in
#      one pass and several, standard input among the inputs, .npy outputs of the count kept (refused
#      on a pipe).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_numpy_python
REF="$E2E_DIR/records_ref.py"
ref() { "$PY" "$REF" "$@"; }

D=$WORK/merge
T=$WORK/temp  # the merges' -T: nothing may be left there
mkdir -p "$D" "$T"
MANIFEST=$WORK/manifest
: >"$MANIFEST"

expect_temp_empty() {
  local left
  left=$(find "$T" -mindepth 1 2>/dev/null | head -n 3)
  [[ -z $left ]] || fail "files left in -T: $left"
}

# make_slices INPUT R PREFIX SIZES...: slices INPUT (R-byte records) into consecutive slices of SIZES
# records (the last takes the rest), writing PREFIX.NNN.in; prints the slices' names.
make_slices() {
  "$PY" - "$@" <<'EOF'
import sys
import numpy as np
path, r, prefix, sizes = sys.argv[1], int(sys.argv[2]), sys.argv[3], [int(s) for s in sys.argv[4:]]
data = np.fromfile(path, dtype=np.uint8).reshape(-1, r)
at = 0
for i, size in enumerate(sizes):
    end = data.shape[0] if i == len(sizes) - 1 else min(at + size, data.shape[0])
    name = f"{prefix}.{i:03d}.in"
    data[at:end].tofile(name)
    print(name)
    at = end
EOF
}

# sort_runs TYPE R K ORDER SLICES...: sorts each slice into SLICE.run with rmgsort sort (on the CPU);
# writes the runs' concatenation to $D/concat (the reference's input); RUNS holds the runs' names.
sort_runs() {
  local type=$1 r=$2 k=$3 order=$4 slice flag=()
  shift 4
  [[ $order == desc ]] && flag=(-r)
  RUNS=()
  : >"$D/concat"
  for slice in "$@"; do
    "$RMGSORT" sort "$slice" -o "$slice.run" -t "$type" --record-size "$r" --key-offset "$k" "${flag[@]}" \
      --gpus none 2>>"$WORK/stderr" || { echo "rmgsort sort $slice failed" >&2; exit 2; }
    cat "$slice.run" >>"$D/concat"
    RUNS+=("$slice.run")
  done
}

echo "== 1. 50 runs of u64 keys"
ref gen <(echo "$D/keys.in u64 600000 8 0 uniform 7") || { echo "records_ref.py gen failed" >&2; exit 2; }
sizes=()
for ((i = 0; i < 50; i++)); do sizes+=($(((i * 7919) % 40000))); done
sizes[3]=0 sizes[4]=1 sizes[5]=7
mapfile -t slices < <(make_slices "$D/keys.in" 8 "$D/u64" "${sizes[@]}")
sort_runs u64 8 0 asc "${slices[@]}"
cp "$D/concat" "$D/u64.concat"

begin "merge of 50 runs in one pass: exit 0, --verify, --stats of one pass, nothing on stdout"
rmg merge "${RUNS[@]}" -t u64 -o "$D/u64.out" --index-output "$D/u64.idx" --verify --stats "$D/u64.json" -T "$T"
expect_rc 0
expect_stdout_empty
[[ $(stat_of "$D/u64.json" command) == merge ]] || fail "--stats: command is not merge"
[[ $(stat_of "$D/u64.json" status) == ok ]] || fail "--stats: status is not ok"
[[ $(stat_of "$D/u64.json" records) == 600000 ]] || fail "--stats: records $(stat_of "$D/u64.json" records)"
[[ $(stat_of "$D/u64.json" verified) == True ]] || fail "--stats: not verified"
passes=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["passes"]))' "$D/u64.json")
[[ $passes == 1 ]] || fail "--stats: $passes passes, expected 1"
expect_temp_empty
end
expect_ref u64 8 0 asc "$D/u64.concat" "$D/u64.out" "$D/u64.idx" \
  "50 runs in one pass: the stable merge and its positions"

begin "merge of 50 runs with --host-memory 2M: passes through -T, the same bytes, nothing left in -T"
rmg merge "${RUNS[@]}" -t u64 -o "$D/u64.passes" --index-output "$D/u64.passes.idx" --host-memory 2M -T "$T" \
  --stats "$D/passes.json" --verify
expect_rc 0
passes=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["passes"]))' "$D/passes.json")
[[ $passes -ge 2 ]] || fail "--stats: $passes passes with --host-memory 2M, expected more than 1"
[[ $(stat_of "$D/passes.json" temporary_bytes) -gt 0 ]] || fail "--stats: no temporary bytes"
expect_same "$D/u64.out" "$D/u64.passes"
expect_same "$D/u64.idx" "$D/u64.passes.idx"
expect_temp_empty
end

begin "merge of 50 runs under ulimit -n 100: the fan-in the open files allow, passes, the same bytes"
(ulimit -n 100 && "$RMGSORT" merge "${RUNS[@]}" -t u64 -o "$D/u64.files" --stats "$D/files.json" -T "$T") \
  >"$WORK/stdout" 2>"$WORK/stderr"
RC=$?
expect_rc 0
fan_in=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["plan"]["fan_in_by_open_files"])' \
  "$D/files.json")
# (100 - 64) / 3 = 12 at most: the empty runs, read as streams, hold their descriptors throughout.
[[ $fan_in -ge 2 && $fan_in -le 12 ]] || fail "--stats: fan_in_by_open_files $fan_in, expected 2 .. 12"
passes=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["passes"]))' "$D/files.json")
[[ $passes -ge 2 ]] || fail "--stats: $passes passes under ulimit -n 100, expected more than 1"
expect_same "$D/u64.out" "$D/u64.files"
expect_temp_empty
end

# Each run of a pass holds a descriptor until merged: under ulimit -n 64 (fan-in 2), 300 inputs made 150
# runs at once and failed with "Too many open files" before the passes held their runs within the limit.
# (--method merge: auto takes 300 inputs on the CPU to the sort, which holds only some open at once.)
begin "merge of 300 inputs under ulimit -n 64: runs held within the limit, the stable merge, positions"
M300=$D/m300
mkdir -p "$M300"
"$PY" - "$M300" <<'PY'
import struct, sys
for i in range(300):
    open("%s/n%03d.u64" % (sys.argv[1], i), "wb").write(struct.pack("<3Q", i % 7, 7 + i % 5, 20))
PY
(ulimit -n 64 && "$RMGSORT" merge "$M300"/n*.u64 -t u64 --method merge -o "$D/m300.out" --index-output "$D/m300.idx" \
  --stats "$D/m300.json" -T "$T") >"$WORK/stdout" 2>"$WORK/stderr"
RC=$?
expect_rc 0
"$PY" - "$M300" "$D/m300.out" "$D/m300.idx" "$D/m300.json" <<'PY' || fail "300 inputs: not the stable merge"
import json, struct, sys
keys = []
for i in range(300):
    keys += [(k, 3 * i + j) for j, k in enumerate(struct.unpack("<3Q", open("%s/n%03d.u64" % (sys.argv[1], i), "rb").read()))]
ref = sorted(keys, key=lambda t: t[0])
out = struct.unpack("<900Q", open(sys.argv[2], "rb").read())
idx = struct.unpack("<900Q", open(sys.argv[3], "rb").read())
assert list(out) == [k for k, _ in ref] and list(idx) == [p for _, p in ref]
plan = json.load(open(sys.argv[4]))["plan"]
assert plan["fan_in"] == 2 and 2 <= plan["runs_held_at_most"] <= 64, plan
PY
expect_temp_empty
end

# Empty files are read as streams; merge closes them once opened (no record, nothing to read), sort
# those beyond half the limit; the soft limit is raised before any input is opened.
begin "a file and 100 empty inputs under a soft limit of 64: merge and sort raise it first"
mkdir -p "$D/empties"
for i in $(seq -w 1 100); do : >"$D/empties/e$i.u64"; done
(ulimit -Sn 64 && "$RMGSORT" merge "$D/u64.out" "$D"/empties/e*.u64 -t u64 -o "$D/e.merged" &&
  "$RMGSORT" sort "$D/u64.out" "$D"/empties/e*.u64 -t u64 -o "$D/e.sorted" --gpus none) \
  >"$WORK/stdout" 2>"$WORK/stderr"
RC=$?
expect_rc 0
expect_same "$D/e.merged" "$D/u64.out"
expect_same "$D/e.sorted" "$D/u64.out"
rm -f "$D/e.merged" "$D/e.sorted"
end

# One descriptor held per empty input ran merge (and sort) out of them under a hard limit.
begin "a file and 100 empty inputs under a hard limit of 64: merge and sort hold no descriptor for them"
(ulimit -n 64 && "$RMGSORT" merge "$D"/empties/e*.u64 "$D/u64.out" "$D"/empties/e*.u64 -t u64 -o "$D/e.merged" \
  --index-output "$D/e.merged.idx" -T "$T" && "$RMGSORT" merge "$D"/empties/e*.u64 -t u64 -o "$D/e.none" &&
  "$RMGSORT" sort "$D"/empties/e*.u64 "$D/u64.out" "$D"/empties/e*.u64 -t u64 -o "$D/e.sorted" -T "$T") \
  >"$WORK/stdout" 2>"$WORK/stderr"
RC=$?
expect_rc 0
expect_same "$D/e.merged" "$D/u64.out"
expect_same "$D/e.sorted" "$D/u64.out"
"$PY" - "$D/e.merged.idx" "$D/u64.out" <<'PY' || fail "positions of the one non-empty input: not 0..n-1"
import os, struct, sys
n = os.path.getsize(sys.argv[2]) // 8
assert struct.unpack("<%dQ" % n, open(sys.argv[1], "rb").read()) == tuple(range(n))
PY
[[ -f "$D/e.none" && ! -s "$D/e.none" ]] || fail "100 empty inputs: no empty output"
rm -f "$D/e.merged" "$D/e.merged.idx" "$D/e.none" "$D/e.sorted"
rm -rf "$D/empties" "$M300"
expect_temp_empty
end

begin "merge to standard output, one thread, equals the file output; check agrees"
run "$RMGSORT" merge "${RUNS[@]}" -t u64 --threads 1 -T "$T"
expect_rc 0
expect_same "$WORK/stdout" "$D/u64.out"
rmg check "$D/u64.out" -t u64 --original "$D/u64.concat"
expect_rc 0
end

begin "--index-output alone writes only the positions"
rmg merge "${RUNS[@]}" -t u64 --index-output "$D/u64.only.idx" -T "$T"
expect_rc 0
expect_stdout_empty
expect_same "$D/u64.idx" "$D/u64.only.idx"
end
rm -f "$D"/u64.*.in "$D"/u64.*.in.run

echo "== 2. every key type and record layouts, both orders, through passes"
seed=200
for type in u32 u64 i32 i64 f32 f64 bytes:1 bytes:3 bytes:10 bytes:32; do
  case $type in bytes:*) w=${type#bytes:} ;; *32) w=4 ;; *) w=8 ;; esac
  layouts=("$w 0" "100 37")
  ((w <= 10)) && layouts+=("13 3")
  for layout in "${layouts[@]}"; do
    read -r r k <<<"$layout"
    for dist in few special; do
      seed=$((seed + 1))
      in=$D/${type/:/_}-$r-$k-$dist
      ref gen <(echo "$in.in $type 3000 $r $k $dist $seed") || { echo "records_ref.py gen failed" >&2; exit 2; }
      mapfile -t slices < <(make_slices "$in.in" "$r" "$in" 0 1 7 900 40 1500 0 300)
      for order in asc desc; do
        flag=()
        [[ $order == desc ]] && flag=(-r)
        sort_runs "$type" "$r" "$k" "$order" "${slices[@]}"
        cp "$D/concat" "$in.$order.concat"
        what="$type --record-size $r --key-offset $k ($dist, ${order}ending)"
        begin "$what: merge of 8 runs, one pass and through passes (--host-memory 1M), exit 0"
        rmg merge "${RUNS[@]}" -t "$type" --record-size "$r" --key-offset "$k" "${flag[@]}" -o "$in.$order.out" \
          --index-output "$in.$order.idx" -T "$T" --verify
        expect_rc 0
        rmg merge "${RUNS[@]}" -t "$type" --record-size "$r" --key-offset "$k" "${flag[@]}" -o "$in.$order.passes" \
          --host-memory 1M -T "$T"
        expect_rc 0
        expect_same "$in.$order.out" "$in.$order.passes"
        expect_temp_empty
        end
        expect_ref "$type" "$r" "$k" "$order" "$in.$order.concat" "$in.$order.out" "$in.$order.idx" \
          "$what: the stable merge and its positions"
        begin "$what: --unique, one pass and through passes: the first of each run of equal keys, positions"
        rmg merge "${RUNS[@]}" -t "$type" --record-size "$r" --key-offset "$k" "${flag[@]}" -u -o "$in.$order.u" \
          --index-output "$in.$order.uidx" -T "$T" --verify
        expect_rc 0
        rmg merge "${RUNS[@]}" -t "$type" --record-size "$r" --key-offset "$k" "${flag[@]}" -u -o "$in.$order.up" \
          --index-output "$in.$order.upidx" --host-memory 1M -T "$T"
        expect_rc 0
        expect_same "$in.$order.u" "$in.$order.up"
        expect_same "$in.$order.uidx" "$in.$order.upidx"
        desc=()
        [[ $order == desc ]] && desc=(--desc)
        pipeline_ref_agrees --unique "${desc[@]}" --raw "$type" "$r" "$k" "$in.$order.u" "$in.$order.uidx" "${RUNS[@]}"
        expect_temp_empty
        end
      done
    done
  done
  flush_ref
  rm -f "$D"/*.in "$D"/*.run "$D"/*.out "$D"/*.passes "$D"/*.idx "$D"/*.concat "$D"/*.u "$D"/*.up "$D"/*idx
done

echo "== 3. standard input as one of the inputs"
ref gen <(echo "$D/s.in f64 30000 16 4 few 5") || { echo "records_ref.py gen failed" >&2; exit 2; }
mapfile -t slices < <(make_slices "$D/s.in" 16 "$D/s" 10000 12000 8000)
sort_runs f64 16 4 asc "${slices[@]}"
begin "merge A - C, B from a pipe, with --index-output: exit 0 (stdin's length learnt through -T)"
rmg merge "${RUNS[0]}" - "${RUNS[2]}" -t f64 --record-size 16 --key-offset 4 -o "$D/s.out" \
  --index-output "$D/s.idx" -T "$T" --stats "$D/s.json" < <(cat "${RUNS[1]}")
expect_rc 0
[[ $(stat_of "$D/s.json" inputs_copied) == 1 ]] || fail "--stats: inputs_copied $(stat_of "$D/s.json" inputs_copied)"
expect_temp_empty
end
begin "merge - B C < A (a file), with --index-output: exit 0, nothing copied"
rmg merge - "${RUNS[1]}" "${RUNS[2]}" -t f64 --record-size 16 --key-offset 4 -o "$D/s.pipe" \
  --index-output "$D/s.pipe.idx" --stats "$D/s.json" <"${RUNS[0]}"
expect_rc 0
[[ $(stat_of "$D/s.json" inputs_copied) == 0 ]] || fail "--stats: inputs_copied $(stat_of "$D/s.json" inputs_copied)"
end
expect_ref f64 16 4 asc "$D/concat" "$D/s.out" "$D/s.idx" \
  "stdin as the second input: the stable merge and its positions"
expect_ref f64 16 4 asc "$D/concat" "$D/s.pipe" "$D/s.pipe.idx" "stdin as the first input, a file: the stable merge"
flush_ref

echo "== 4. .npy inputs"
"$PY" - "$D" <<'EOF' || { echo "writing .npy runs failed" >&2; exit 2; }
import sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(3)
dtype = np.dtype([("id", "<u4"), ("key", "<i8"), ("w", "<f4")])
parts = []
for i, n in enumerate([0, 1, 7, 5000, 3000]):
    a = np.zeros(n, dtype=dtype)
    a["key"] = rng.integers(-50, 50, size=n)
    a["id"] = np.arange(n) + 100000 * i
    a = a[np.argsort(a["key"], kind="stable")]
    np.save(f"{d}/n{i}.npy", a)
    parts.append(a)
c = np.concatenate(parts)
np.save(f"{d}/n.expected.npy", c[np.argsort(c["key"], kind="stable")])
np.save(f"{d}/n.positions.npy", np.argsort(c["key"], kind="stable").astype("<u8"))
np.save(f"{d}/other.npy", np.zeros(3, dtype=[("id", "<u4"), ("key", "<i8")]))
np.arange(5, dtype="<i8").tofile(f"{d}/raw.i64")
EOF
begin ".npy runs merged by --key: a .npy of the summed shape, numpy's stable sort; positions as .npy"
rmg merge "$D"/n{0,1,2,3,4}.npy --key key -o "$D/n.out.npy" --index-output "$D/n.idx.npy" -T "$T"
expect_rc 0
"$PY" -c '
import sys, numpy as np
d = sys.argv[1]
got, expected = np.load(d + "/n.out.npy"), np.load(d + "/n.expected.npy")
assert got.dtype == expected.dtype and got.shape == expected.shape, (got.dtype, got.shape)
assert got.tobytes() == expected.tobytes(), "records differ"
assert np.array_equal(np.load(d + "/n.idx.npy"), np.load(d + "/n.positions.npy")), "positions differ"
' "$D" 2>"$WORK/py.err" || fail "$(cat "$WORK/py.err")"
end
begin "a .npy input of another dtype: exit 2 naming it"
rmg merge "$D/n3.npy" "$D/other.npy" --key key -o "$D/bad.npy"
expect_rc 2
expect_stderr "$D/other.npy: its .npy dtype" "merge's inputs share one layout"
expect_no_file "$D/bad.npy"
end
begin "a raw input among .npy inputs: exit 2 naming it"
rmg merge "$D/n3.npy" "$D/raw.i64" --key key -t i64 -o "$D/bad.npy"
expect_rc 2
expect_stderr "$D/raw.i64: not a .npy file, where $D/n3.npy is one"
expect_no_file "$D/bad.npy"
end

echo "== 5. an input out of order"
keys u64 "$D/a.u64" 1 5 9
keys u64 "$D/b.u64" 2 4 6 8 7 10
keys u64 "$D/c.u64" 0 3
begin "an unsorted input: exit 1 naming it, the key's index, both keys and the byte offset; nothing committed"
rmg merge "$D/a.u64" "$D/b.u64" "$D/c.u64" -t u64 -o "$D/abc.out" --stats "$D/abc.json" -T "$T"
expect_rc 1
expect_stderr "rmgsort: $D/b.u64: not in ascending order: key 4 is out of order (7 after 8, at byte offset 32)"
expect_no_file "$D/abc.out"
expect_no_temp "$D"
expect_temp_empty
[[ $(stat_of "$D/abc.json" status) == error ]] || fail "--stats: status is not error"
[[ $(stat_of "$D/abc.json" exit_code) == 1 ]] || fail "--stats: exit_code is not 1"
expect_stderr "merge takes inputs that are each sorted, and nothing was committed"
end
begin "an unsorted input merged into a pipe: exit 1, and the message says what the pipe got cannot be taken back"
"$RMGSORT" merge "$D/a.u64" "$D/b.u64" "$D/c.u64" -t u64 -o - --method merge 2>"$WORK/stderr" | cat >/dev/null
RC=${PIPESTATUS[0]}
expect_rc 1
expect_stderr "$D/b.u64: not in ascending order" "what was already written to stdout cannot be taken back"
grep -qF "nothing was committed" "$WORK/stderr" && fail "says nothing was committed"
end
begin "--host-memory below a merge's least (1 byte, the least - 1): exit 2 naming the least, nothing written; the least merges"
for limit in 1 699049; do
  rmg merge "$D/a.u64" "$D/c.u64" -t u64 -o "$D/least.out" --method merge --host-memory "$limit" --stats "$D/least.json"
  expect_rc 2
  expect_stderr "is too small to merge: give it at least 682.67 KiB (699050 bytes)"
  expect_no_file "$D/least.out"
  [[ $(stat_of "$D/least.json" status) == error ]] || fail "--stats: status is not error"
done
rmg merge "$D/a.u64" "$D/c.u64" -t u64 -o "$D/least.out" --method merge --host-memory 699050
expect_rc 0
end
begin "an unsorted input read in a pass of runs (--host-memory 1M, 30 inputs): exit 1, -T empty"
inputs=()
for ((i = 0; i < 30; i++)); do inputs+=("$D/a.u64"); done
inputs[2]=$D/b.u64
rmg merge "${inputs[@]}" -t u64 -o "$D/abc.out" --host-memory 1M -T "$T"
expect_rc 1
expect_stderr "$D/b.u64: not in ascending order: key 4 is out of order"
expect_no_file "$D/abc.out"
expect_temp_empty
end
begin "-r: ascending inputs are out of order, descending ones merge"
rmg merge "$D/a.u64" "$D/c.u64" -t u64 -r -o "$D/r.out"
expect_rc 1
expect_stderr "$D/a.u64: not in descending order: key 1 is out of order (5 after 1, at byte offset 8)"
keys u64 "$D/ra.u64" 9 5 1
keys u64 "$D/rc.u64" 3 0
rmg merge "$D/ra.u64" "$D/rc.u64" -t u64 -r -o "$D/r.out"
expect_rc 0
keys u64 "$D/r.expected" 9 5 3 1 0
expect_same "$D/r.out" "$D/r.expected"
end
begin "records: the record's index and its key at the byte offset of the record"
ref write u32 12 5 "$D/rec.in" 1 3 2 || exit 2
rmg merge "$D/rec.in" -t u32 --record-size 12 --key-offset 5 -o "$D/rec.out"
expect_rc 1
expect_stderr "$D/rec.in: not in ascending order: record 2 is out of order (key 2 after 3, at byte offset 24)"
end

begin "bare f64 keys whose NaNs are in numpy's order, not by bit pattern: check passes them, merge says why not"
keys f64 "$D/nan_np.f64" 1 -nan nan
keys f64 "$D/nan_other.f64" 0.5
rmg check "$D/nan_np.f64" -t f64
expect_rc 0
for method in merge sort; do
  rmg merge "$D/nan_np.f64" "$D/nan_other.f64" -t f64 -o "$D/nan.out" --method "$method" --gpus none
  expect_rc 1
  expect_stderr "$D/nan_np.f64: not in ascending order: key 2 is out of order (nan after -nan, at byte offset 16)" \
    "merge orders bare f64 keys' NaNs by their bit patterns" "check accepts NaNs in any order" "rmgsort sort INPUT"
  expect_no_file "$D/nan.out"
done
rmg sort "$D/nan_np.f64" "$D/nan_other.f64" -t f64 -o "$D/nan.out" --gpus none
expect_rc 0
keys f64 "$D/nan.expected" 0.5 1 nan -nan
expect_same "$D/nan.out" "$D/nan.expected"
end

echo "== 6. usage errors"
begin "no inputs: exit 2"
rmg merge -t u64 -o "$D/none.out"
expect_rc 2
expect_stderr "merge: no inputs"
expect_no_file "$D/none.out"
end
begin "- twice: exit 2"
rmg merge - - -t u64 -o "$D/none.out"
expect_rc 2
expect_stderr "more than once"
end
begin "- and /dev/stdin, one pipe: exit 2 naming both, nothing written"
cat "$D/a.u64" | { rmg merge "$D/a.u64" - /dev/stdin -t u64 -o "$D/none.out" --index-output "$D/none.idx"; }
expect_rc 2
expect_stderr "/dev/stdin and stdin are the same stream: it can be read only once"
expect_no_file "$D/none.out"
expect_no_file "$D/none.idx"
end
begin "a missing input: exit 2 naming it, before anything is written"
rmg merge "$D/a.u64" "$D/missing.u64" -t u64 -o "$D/none.out"
expect_rc 2
expect_stderr "$D/missing.u64"
expect_no_file "$D/none.out"
end
begin "raw input without --type: exit 2"
rmg merge "$D/a.u64" -o "$D/none.out"
expect_rc 2
expect_stderr "-t,--type is required"
end
begin "a raw file that is not whole records: exit 2 naming it"
head -c 13 "$D/b.u64" >"$D/cut.u64"
rmg merge "$D/a.u64" "$D/cut.u64" -t u64 -o "$D/none.out"
expect_rc 2
expect_stderr "$D/cut.u64: 13 bytes are not a whole number of u64 keys"
expect_no_file "$D/none.out"
end
begin "-o naming one of the inputs: replaced by the merge once it is complete"
cp "$D/a.u64" "$D/in-place.u64"
rmg merge "$D/in-place.u64" "$D/c.u64" -t u64 -o "$D/in-place.u64"
expect_rc 0
keys u64 "$D/in-place.expected" 0 1 3 5 9
expect_same "$D/in-place.u64" "$D/in-place.expected"
end
begin "one input, and empty inputs: the input itself"
: >"$D/empty.u64"
rmg merge "$D/empty.u64" "$D/a.u64" "$D/empty.u64" -t u64 -o "$D/one.out"
expect_rc 0
expect_same "$D/one.out" "$D/a.u64"
rmg merge "$D/empty.u64" -t u64 -o "$D/empty.out"
expect_rc 0
expect_size "$D/empty.out" 0
end

echo "== 7. --unique"
ref gen <(echo "$D/rep.in u64 200000 8 0 many 17") || { echo "records_ref.py gen failed" >&2; exit 2; }
sizes=()
for ((i = 0; i < 40; i++)); do sizes+=($(((i * 3571) % 9000))); done
sizes[1]=0 sizes[2]=1
mapfile -t slices < <(make_slices "$D/rep.in" 8 "$D/rep" "${sizes[@]}")
for order in asc desc; do
  flag=() desc=()
  [[ $order == desc ]] && flag=(-r) desc=(--desc)
  sort_runs u64 8 0 "$order" "${slices[@]}"
  begin "40 runs of repeated u64 keys, $order, -u: one pass, --stats records kept and duplicates dropped"
  rmg merge "${RUNS[@]}" -t u64 "${flag[@]}" -u -o "$D/rep.u" --index-output "$D/rep.uidx" -T "$T" \
    --stats "$D/rep.json" --verify
  expect_rc 0
  expect_stderr_empty
  pipeline_ref_agrees --unique "${desc[@]}" --raw u64 8 0 "$D/rep.u" "$D/rep.uidx" "${RUNS[@]}"
  kept=$(($(stat -c %s "$D/rep.u") / 8))
  [[ $(stat_of "$D/rep.json" unique) == True ]] || fail "--stats: unique is not true"
  [[ $(stat_of "$D/rep.json" records) == 200000 ]] || fail "--stats: records $(stat_of "$D/rep.json" records)"
  [[ $(stat_of "$D/rep.json" records_kept) == "$kept" ]] ||
    fail "--stats: records_kept $(stat_of "$D/rep.json" records_kept), wrote $kept"
  [[ $(stat_of "$D/rep.json" duplicates_dropped) == $((200000 - kept)) ]] ||
    fail "--stats: duplicates_dropped $(stat_of "$D/rep.json" duplicates_dropped), expected $((200000 - kept))"
  [[ $kept -lt 200000 ]] || fail "no duplicate dropped: the data has repeats"
  end
  begin "40 runs of repeated u64 keys, $order, -u through passes (--host-memory 1M): the same bytes"
  rmg merge "${RUNS[@]}" -t u64 "${flag[@]}" -u -o "$D/rep.up" --index-output "$D/rep.upidx" --host-memory 1M \
    -T "$T" --stats "$D/rep.passes.json"
  expect_rc 0
  passes=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["passes"]))' "$D/rep.passes.json")
  [[ $passes -ge 2 ]] || fail "--stats: $passes passes with --host-memory 1M, expected more than 1"
  [[ $(stat_of "$D/rep.passes.json" duplicates_dropped) == $(stat_of "$D/rep.json" duplicates_dropped) ]] ||
    fail "--stats: duplicates_dropped differs from the one pass's"
  expect_same "$D/rep.u" "$D/rep.up"
  expect_same "$D/rep.uidx" "$D/rep.upidx"
  expect_temp_empty
  end
  begin "-u with standard input as the third input, $order: the reference's records and positions"
  rmg merge "${RUNS[0]}" "${RUNS[1]}" - "${RUNS[@]:3}" -t u64 "${flag[@]}" -u -o "$D/rep.s" \
    --index-output "$D/rep.sidx" -T "$T" <"${RUNS[2]}"
  expect_rc 0
  expect_same "$D/rep.u" "$D/rep.s"
  expect_same "$D/rep.uidx" "$D/rep.sidx"
  end
done
begin "without -u: --stats unique false, duplicates_dropped null, records_kept every record"
rmg merge "${RUNS[@]}" -t u64 -r -o "$D/rep.all" --stats "$D/rep.all.json"
expect_rc 0
[[ $(stat_of "$D/rep.all.json" unique) == False ]] || fail "--stats: unique is not false"
[[ -z $(stat_of "$D/rep.all.json" duplicates_dropped) ]] || fail "--stats: duplicates_dropped is not null"
[[ $(stat_of "$D/rep.all.json" records_kept) == 200000 ]] || fail "--stats: records_kept is not every record"
end
rm -f "$D"/rep.*.in "$D"/rep.*.run "$D"/rep.u* "$D"/rep.s* "$D"/rep.all* "$D"/rep.*json

begin ".npy runs, -u --key key: a .npy of the count kept (its header written again), positions as .npy"
rmg merge "$D"/n{0,1,2,3,4}.npy --key key -u -o "$D/nu.npy" --index-output "$D/nu.idx.npy" -T "$T" \
  --stats "$D/nu.json"
expect_rc 0
pipeline_ref_agrees --unique --npy --key key "$D/nu.npy" "$D/nu.idx.npy" "$D"/n{0,1,2,3,4}.npy
[[ $(stat_of "$D/nu.json" duplicates_dropped) -gt 0 ]] || fail "--stats: no duplicate dropped (keys -50 .. 49)"
end
begin ".npy runs, -u -r through passes (--host-memory 1M): the same bytes as one pass"
"$PY" -c '
import sys, numpy as np
for i in range(5):
    a = np.load(f"{sys.argv[1]}/n{i}.npy")
    np.save(f"{sys.argv[1]}/r{i}.npy", a[np.argsort(-a["key"], kind="stable")])
' "$D" || fail "writing descending .npy runs failed"
for ((i = 0; i < 8; i++)); do cp "$D/r3.npy" "$D/rr$i.npy"; done
rmg merge "$D"/r{0,1,2,3,4}.npy "$D"/rr*.npy --key key -u -r -o "$D/ru.npy" -T "$T"
expect_rc 0
rmg merge "$D"/r{0,1,2,3,4}.npy "$D"/rr*.npy --key key -u -r -o "$D/ru.passes.npy" --host-memory 1M -T "$T"
expect_rc 0
expect_same "$D/ru.npy" "$D/ru.passes.npy"
pipeline_ref_agrees --unique --desc --npy --key key "$D/ru.npy" - "$D"/r{0,1,2,3,4}.npy "$D"/rr*.npy
expect_temp_empty
end
begin ".npy runs, -u to a pipe: exit 2 naming standard output (its header cannot be written again)"
"$RMGSORT" merge "$D"/n{0,1,2,3,4}.npy --key key -u 2>"$WORK/stderr" | cat >"$D/nu.piped"
RC=${PIPESTATUS[0]}
expect_rc 2
expect_stderr "standard output: --unique with .npy input writes the .npy header again at the end" \
  "is not a regular file" "-o FILE.npy"
expect_size "$D/nu.piped" 0
end

echo "== 8. --method sort and auto"
mapfile -t slices < <(make_slices "$D/rep.in" 8 "$D/m" "${sizes[@]}")
sort_runs u64 8 0 asc "${slices[@]}"
URUNS=("${RUNS[@]}")  # (RUNS is the records' runs below)
rmg merge "${RUNS[@]}" -t u64 -o "$D/m.merge" --index-output "$D/m.merge.idx" --method merge --stats "$D/m.merge.json"
[[ $(stat_of "$D/m.merge.json" method) == merge ]] || fail "--method merge: --stats method $(stat_of "$D/m.merge.json" method)"
rmg merge "${RUNS[@]}" -t u64 -u -o "$D/m.merge.u" --method merge
for memory in "" "--host-memory 4M"; do
  begin "--method sort ${memory:-in memory}: the merge's bytes and positions, -u too, --stats method sort, -T empty"
  rmg merge "${RUNS[@]}" -t u64 -o "$D/m.sort" --index-output "$D/m.sort.idx" --method sort $memory -T "$T" \
    --stats "$D/m.sort.json" --verify
  expect_rc 0
  expect_same "$D/m.merge" "$D/m.sort"
  expect_same "$D/m.merge.idx" "$D/m.sort.idx"
  [[ $(stat_of "$D/m.sort.json" method) == sort ]] || fail "--stats: method $(stat_of "$D/m.sort.json" method)"
  [[ $(stat_of "$D/m.sort.json" records) == 200000 ]] || fail "--stats: records $(stat_of "$D/m.sort.json" records)"
  path=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["plan"]["path"])' "$D/m.sort.json")
  [[ -z $memory || $path == spill ]] || fail "--stats: plan path $path with $memory, expected spill"
  rmg merge "${RUNS[@]}" -t u64 -u -o "$D/m.sort.u" --method sort $memory -T "$T"
  expect_rc 0
  expect_same "$D/m.merge.u" "$D/m.sort.u"
  expect_temp_empty
  end
  begin "--method sort ${memory:-in memory}, an input out of order: exit 1, the merge's words, nothing committed"
  rmg merge "$D/a.u64" "$D/b.u64" "$D/c.u64" -t u64 -o "$D/m.bad" --method sort $memory -T "$T" \
    --stats "$D/m.bad.json"
  expect_rc 1
  expect_stderr "rmgsort: $D/b.u64: not in ascending order: key 4 is out of order (7 after 8, at byte offset 32)"
  expect_no_file "$D/m.bad"
  [[ $(stat_of "$D/m.bad.json" exit_code) == 1 ]] || fail "--stats: exit_code is not 1"
  expect_temp_empty
  end
done
begin "--method sort through spill files, a large input out of order: exit 1 naming it (each input checked first)"
cp "${URUNS[10]}" "$D/m.late.run"
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$D/m.late.run" bs=8 seek=2 conv=notrunc status=none
rmg merge "${URUNS[@]}" "$D/m.late.run" -t u64 -o "$D/m.late" --method sort --host-memory 2M -T "$T" \
  --stats "$D/m.late.json"
expect_rc 1
expect_stderr "rmgsort: $D/m.late.run: not in ascending order: key 3 is out of order" "at byte offset 24)"
expect_no_file "$D/m.late"
path=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["plan"]["path"])' "$D/m.late.json")
[[ $path == spill ]] || fail "--stats: plan path $path, expected spill"
expect_temp_empty
end
begin "--method sort, records (13 bytes, f32 key at 3, both orders) and .npy runs: the merge's bytes"
for order in asc desc; do
  flag=()
  [[ $order == desc ]] && flag=(-r)
  ref gen <(echo "$D/mr.in f32 20000 13 3 special 41") || { echo "records_ref.py gen failed" >&2; exit 2; }
  mapfile -t rs < <(make_slices "$D/mr.in" 13 "$D/mr" 5000 0 7 8000 1)
  sort_runs f32 13 3 "$order" "${rs[@]}"
  for method in merge sort; do
    rmg merge "${RUNS[@]}" -t f32 --record-size 13 --key-offset 3 "${flag[@]}" -u -o "$D/mr.$method" --method "$method"
    expect_rc 0
  done
  expect_same "$D/mr.merge" "$D/mr.sort"
done
rmg merge "$D"/n{0,1,2,3,4}.npy --key key -u -o "$D/mn.sort.npy" --index-output "$D/mn.sort.idx.npy" --method sort
expect_rc 0
pipeline_ref_agrees --unique --npy --key key "$D/mn.sort.npy" "$D/mn.sort.idx.npy" "$D"/n{0,1,2,3,4}.npy
end
begin "--method sort with a pipe on standard input among the inputs: exit 2 naming it; auto merges it"
rmg merge "${URUNS[3]}" - -t u64 -o "$D/m.stdin" --method sort < <(cat "${URUNS[4]}")
expect_rc 2
expect_stderr "stdin: --method sort reads regular files only" "use --method merge"
expect_no_file "$D/m.stdin"
rmg merge "${URUNS[3]}" - -t u64 -o "$D/m.stdin" --stats "$D/m.stdin.json" < <(cat "${URUNS[4]}")
expect_rc 0
[[ $(stat_of "$D/m.stdin.json" method) == merge ]] || fail "auto: --stats method $(stat_of "$D/m.stdin.json" method)"
[[ $(stat_of "$D/m.stdin.json" method_because) == "stdin is a stream"* ]] ||
  fail "auto: --stats method_because $(stat_of "$D/m.stdin.json" method_because)"
end
begin "auto on the CPU: 40 inputs merged, 300 sorted (app/merge_method.hpp's rule), the same bytes"
rmg merge "${URUNS[@]}" -t u64 -o "$D/m.auto" --gpus none --stats "$D/m.auto.json"
expect_rc 0
expect_same "$D/m.merge" "$D/m.auto"
[[ $(stat_of "$D/m.auto.json" method_asked) == auto ]] || fail "--stats: method_asked is not auto"
[[ $(stat_of "$D/m.auto.json" method) == merge ]] || fail "40 inputs: --stats method $(stat_of "$D/m.auto.json" method)"
many=()
for ((i = 0; i < 300; i++)); do many+=("${URUNS[i % 40]}"); done
rmg merge "${many[@]}" -t u64 -o "$D/m.many.auto" --gpus none --stats "$D/m.many.json"
expect_rc 0
[[ $(stat_of "$D/m.many.json" method) == sort ]] || fail "300 inputs: --stats method $(stat_of "$D/m.many.json" method)"
rmg merge "${many[@]}" -t u64 -o "$D/m.many.merge" --method merge
expect_rc 0
expect_same "$D/m.many.merge" "$D/m.many.auto"
end
begin "--method sort --gpus 0 (where a GPU is present): the GPUs sort, the merge's bytes; auto sorts on them too"
if [[ $(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true) -eq 0 ]]; then
  skip "no GPU"
else
  rmg merge "${URUNS[@]}" -t u64 -u -o "$D/m.gpu.u" --method sort --gpus 0 --stats "$D/m.gpu.json"
  expect_rc 0
  expect_same "$D/m.merge.u" "$D/m.gpu.u"
  [[ $(stat_of "$D/m.gpu.json" engine) == gpu ]] || fail "--stats: engine $(stat_of "$D/m.gpu.json" engine)"
  rmg merge "${URUNS[@]}" -t u64 -o "$D/m.gpu.auto" --gpus 0 --stats "$D/m.gpu.auto.json"
  expect_rc 0
  expect_same "$D/m.merge" "$D/m.gpu.auto"
  [[ $(stat_of "$D/m.gpu.auto.json" method) == sort ]] ||
    fail "auto with a GPU: --stats method $(stat_of "$D/m.gpu.auto.json" method)"
  rmg merge "$D/a.u64" "$D/b.u64" "$D/c.u64" -t u64 -o "$D/m.gpu.bad" --method sort --gpus 0
  expect_rc 1
  expect_stderr "rmgsort: $D/b.u64: not in ascending order: key 4 is out of order (7 after 8, at byte offset 32)"
  end
fi
begin "auto with --gpus 99 (a GPU not present): exit 2 naming it, as sort; nothing written"
rmg merge "${URUNS[@]}" -t u64 -o "$D/m.gpu99" --gpus 99
expect_rc 2
expect_stderr "GPU 99"
expect_no_file "$D/m.gpu99"
end
begin "--method bogus: exit 2 naming the choices"
rmg merge "${URUNS[0]}" -t u64 -o "$D/m.bogus" --method bogus
expect_rc 2
expect_stderr "--method: unknown method 'bogus' (expected auto, merge or sort)"
end
begin "an open-file limit too low to merge at all: exit 2, the message names the limit, nothing written or left"
(ulimit -n 12 && "$RMGSORT" merge "${URUNS[@]}" -t u64 -o "$D/m.fds" --index-output "$D/m.fds.idx" -T "$T" \
  --stats "$D/m.fds.json") >"$WORK/stdout" 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_stderr "Too many open files (the process's open-file limit, \`ulimit -n\`, is 12: raise it)"
expect_no_file "$D/m.fds"
expect_no_file "$D/m.fds.idx"
[[ -z $(ls -A "$T") ]] || fail "--temp-dir is not empty: $(ls -A "$T")"
end
rm -f "$D"/m.* "$D"/mr.* "$D"/mn.*

summary
