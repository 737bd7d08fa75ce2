#!/usr/bin/env bash
# rmgsort sort of NumPy .npy files against an independent reference (tests/e2e/npy_sort_ref.py: np.load,
# numpy's stable argsort, the header np.save writes):
#   1. every simple dtype (<u4 <u8 <i4 <i8 <f4 <f8) and a structured dtype by each kind of field (<i8
#      at an unaligned offset, S5, V3, <f4) x sizes 0, 1, 7 and 10^5 x both orders, with -o and
#      --index-output (.npy arrays of <u8); headers of versions 2.0 and 3.0;
#   2. every path: in memory, spilled (--host-memory 2M, and deep with 256K), stdin to stdout from a
#      pipe and from a file, --index-output -, --verify, --stats' input format and key field (the
#      rounds path is the GPUs': tests/e2e/gpu_sort_test.sh);
#   3. the refusals: exit 2 naming the file and the reason, nothing written (not even a header to a
#      piped stdout), the input untouched.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_numpy_python
REF="$E2E_DIR/npy_sort_ref.py"
ref() { "$PY" "$REF" "$@"; }
CPU=(--gpus none)

D=$WORK/npy
mkdir -p "$D"
MANIFEST=$WORK/manifest
: >"$MANIFEST"
# expect_ref's lines here (lib.sh): INPUT FIELD ORDER OUTPUT INDEX NAME...

# stat_of FILE MEMBER...: a member of a --stats JSON file (a path of keys; empty when absent or null).
stat_of() {
  "$PY" -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]: v = v.get(k) if isinstance(v, dict) else None
print("" if v is None else v)' "$@" 2>/dev/null
}

SIMPLE=(u4 u8 i4 i8 f4 f8)
SIZES=(0 1 7 100000)
spec=$WORK/spec
: >"$spec"
seed=1
for dtype in "${SIMPLE[@]}" rec; do
  for n in "${SIZES[@]}"; do
    echo "$D/$dtype.$n.npy $dtype $n $((seed++)) 1" >>"$spec"
  done
done
for version in 2 3; do
  echo "$D/u8.v$version.npy u8 1000 $((seed++)) $version" >>"$spec"
  echo "$D/rec.v$version.npy rec 1000 $((seed++)) $version" >>"$spec"
done
ref gen "$spec" || { echo "npy_sort_ref.py gen failed" >&2; exit 2; }

echo "== 1. every dtype and field, sizes 0, 1, 7, 10^5, both orders"
# run_case INPUT FIELD ORDER NAME: sorts INPUT to a .npy output and index, queues the comparison.
run_case() {
  local in=$1 field=$2 order=$3 name=$4 sorted="$D/out.$5" key=() desc=()
  [[ $field != - ]] && key=(--key "$field")
  [[ $order == desc ]] && desc=(-r)
  begin "$name: exit 0"
  rmg sort "$in" -o "$sorted.npy" --index-output "$sorted.idx.npy" "${key[@]}" "${desc[@]}" "${CPU[@]}"
  expect_rc 0
  end
  expect_ref "$in" "$field" "$order" "$sorted.npy" "$sorted.idx.npy" "$name: the reference's array and argsort"
}
i=0
for dtype in "${SIMPLE[@]}"; do
  for n in "${SIZES[@]}"; do
    for order in asc desc; do
      run_case "$D/$dtype.$n.npy" - "$order" "<$dtype, $n items, ${order}ending" $((i++))
    done
  done
done
for field in k s v f; do
  for n in "${SIZES[@]}"; do
    for order in asc desc; do
      run_case "$D/rec.$n.npy" "$field" "$order" "structured by '$field', $n items, ${order}ending" $((i++))
    done
  done
done
for version in 2 3; do
  run_case "$D/u8.v$version.npy" - asc "<u8, a version $version.0 header" $((i++))
  run_case "$D/rec.v$version.npy" k desc "structured by 'k', a version $version.0 header" $((i++))
done
flush_ref

echo "== 2. every path"
BIG_U8=$D/u8.100000.npy
BIG_REC=$D/rec.100000.npy
# path_case NAME EXPECTED_PATH INPUT FIELD ORDER OPTIONS...: sorts with OPTIONS, checks --stats' path.
path_case() {
  local name=$1 path=$2 in=$3 field=$4 order=$5 key=() desc=()
  shift 5
  [[ $field != - ]] && key=(--key "$field")
  [[ $order == desc ]] && desc=(-r)
  begin "$name: exit 0, path $path"
  rmg sort "$in" -o "$D/p.$i.npy" --index-output "$D/p.$i.idx.npy" "${key[@]}" "${desc[@]}" "${CPU[@]}" \
    --stats "$D/p.$i.json" -T "$D" "$@"
  expect_rc 0
  [[ $RC -ne 0 || $(stat_of "$D/p.$i.json" plan path) == "$path" ]] || fail "path $(stat_of "$D/p.$i.json" plan path)"
  end
  expect_ref "$in" "$field" "$order" "$D/p.$i.npy" "$D/p.$i.idx.npy" "$name: the reference's array and argsort"
  i=$((i + 1))
}
path_case "<u8, in memory" in_memory "$BIG_U8" - asc
path_case "<u8, spilled (--host-memory 2M)" spill "$BIG_U8" - desc --host-memory 2M
path_case "<u8, spilled deep (--host-memory 256K)" spill "$BIG_U8" - asc --host-memory 256K
path_case "<f8, spilled (--host-memory 2M)" spill "$D/f8.100000.npy" - desc --host-memory 2M
path_case "structured by 'k', in memory" in_memory "$BIG_REC" k asc
path_case "structured by 's', spilled (--host-memory 2M)" spill "$BIG_REC" s desc --host-memory 2M
path_case "structured by 'f', spilled deep (--host-memory 256K)" spill "$BIG_REC" f asc --host-memory 256K
path_case "structured by 'v', spilled deep (--host-memory 256K)" spill "$BIG_REC" v desc --host-memory 256K
path_case "<u8, in memory, --verify" in_memory "$BIG_U8" - desc --verify
path_case "structured by 's', spilled, --verify" spill "$BIG_REC" s asc --host-memory 2M --verify

# stream_case NAME INPUT FIELD ORDER OPTIONS...: a pipe on stdin to stdout, --index-output to a file.
stream_case() {
  local name=$1 in=$2 field=$3 order=$4 key=() desc=()
  shift 4
  [[ $field != - ]] && key=(--key "$field")
  [[ $order == desc ]] && desc=(-r)
  begin "$name: exit 0"
  "$RMGSORT" sort --index-output "$D/s.$i.idx.npy" -o - "${key[@]}" "${desc[@]}" "${CPU[@]}" -T "$D" "$@" \
    < <(cat "$in") >"$D/s.$i.npy" 2>"$WORK/stderr"
  RC=$?
  expect_rc 0
  end
  expect_ref "$in" "$field" "$order" "$D/s.$i.npy" "$D/s.$i.idx.npy" "$name: the reference's array and argsort"
  i=$((i + 1))
}
stream_case "<u8, a pipe to stdout, in memory" "$BIG_U8" - asc
stream_case "<u8, a pipe to stdout, spilled (--host-memory 512K)" "$BIG_U8" - desc --host-memory 512K
stream_case "<i4, 7 items, a pipe to stdout" "$D/i4.7.npy" - desc
stream_case "<u4, 0 items, a pipe to stdout" "$D/u4.0.npy" - asc
stream_case "structured by 'k', a pipe to stdout, in memory" "$BIG_REC" k desc
stream_case "structured by 's', a pipe to stdout, spilled (--host-memory 512K)" "$BIG_REC" s asc --host-memory 512K
stream_case "<u8 version 3.0, a pipe to stdout" "$D/u8.v3.npy" - asc
stream_case "structured by 'f', a pipe to stdout, spilled, --verify" "$BIG_REC" f desc --host-memory 512K --verify

begin "stdin redirected from a .npy file, --index-output - (stdout), -o FILE"
run "$RMGSORT" sort - -o "$D/r.npy" --index-output - -t u64 "${CPU[@]}" <"$BIG_U8"
cp "$WORK/stdout" "$D/r.idx.npy"
expect_rc 0
end
expect_ref "$BIG_U8" - asc "$D/r.npy" "$D/r.idx.npy" "stdin from a file, --index-output -: the reference's array and argsort"

begin "--index-output alone of a .npy input: a .npy array of <u8"
rmg sort "$BIG_REC" --key k --index-output "$D/alone.idx.npy" "${CPU[@]}"
expect_rc 0
end
expect_ref "$BIG_REC" k asc - "$D/alone.idx.npy" "--index-output alone: numpy's stable argsort"
flush_ref

begin "--stats names the input format and the key field"
rmg sort "$BIG_REC" --key s -o "$D/st.npy" --stats "$D/st.json" "${CPU[@]}"
expect_rc 0
[[ $(stat_of "$D/st.json" input_format) == npy ]] || fail "input_format $(stat_of "$D/st.json" input_format)"
[[ $(stat_of "$D/st.json" key_field) == s ]] || fail "key_field $(stat_of "$D/st.json" key_field)"
[[ $(stat_of "$D/st.json" key_type) == bytes:5 ]] || fail "key_type $(stat_of "$D/st.json" key_type)"
[[ $(stat_of "$D/st.json" record_size) == 23 ]] || fail "record_size $(stat_of "$D/st.json" record_size)"
end

begin "raw input stays raw: raw output, --stats input_format raw"
"$PY" -c 'import numpy as np, sys; np.arange(100, 0, -1, dtype="<u8").tofile(sys.argv[1])' "$D/raw.bin"
rmg sort "$D/raw.bin" -t u64 -o "$D/raw.out" --index-output "$D/raw.idx" --stats "$D/raw.json" "${CPU[@]}"
expect_rc 0
expect_size "$D/raw.out" 800
expect_size "$D/raw.idx" 800
[[ $(stat_of "$D/raw.json" input_format) == raw ]] || fail "input_format $(stat_of "$D/raw.json" input_format)"
"$PY" -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["key_field"] is not None)' "$D/raw.json" ||
  fail "key_field is not null for raw input"
end

# npy_agrees PYTHON: the Python statements (np, d: the work directory) raise nothing.
npy_agrees() {
  local why
  why=$("$PY" -c 'import sys, numpy as np
d = sys.argv[1]
exec(sys.argv[2])' "$D" "$1" 2>&1) || fail "numpy disagrees: $(tail -n 1 <<<"$why")"
}

begin "raw input to -o NAME.npy: a .npy of the key's dtype (generate's rule), --index-output raw"
"$PY" -c 'import numpy as np, sys; np.random.default_rng(3).integers(0, 2**64, 1000, dtype="<u8").tofile(sys.argv[1])' \
  "$D/raw1000.u64"
rmg sort "$D/raw1000.u64" -t u64 -o "$D/rawnpy.npy" --index-output "$D/rawnpy.idx" "${CPU[@]}"
expect_rc 0
expect_size "$D/rawnpy.idx" 8000
npy_agrees 'a = np.fromfile(d + "/raw1000.u64", dtype="<u8"); out = np.load(d + "/rawnpy.npy")
assert out.dtype == np.dtype("<u8") and out.shape == (1000,), (out.dtype, out.shape)
assert (out == np.sort(a)).all()
assert (np.fromfile(d + "/rawnpy.idx", dtype="<u8") == np.argsort(a, kind="stable")).all()'
end

begin "raw stream (a pipe), spilled, to -o NAME.NPY and --index-output NAME.npy: shapes set at the end"
"$PY" -c 'import numpy as np, sys; (np.random.default_rng(4).integers(-500, 500, 100000) / 4).astype("<f4").tofile(sys.argv[1])' \
  "$D/raw.f32"
"$RMGSORT" sort -t f32 -r -o "$D/rawstream.NPY" --index-output "$D/rawstream.idx.npy" --host-memory 512K -T "$D" \
  "${CPU[@]}" < <(cat "$D/raw.f32") 2>"$WORK/stderr"
RC=$?
expect_rc 0
npy_agrees 'a = np.fromfile(d + "/raw.f32", dtype="<f4"); out = np.load(d + "/rawstream.NPY")
idx = np.load(d + "/rawstream.idx.npy"); want = np.argsort(-a, kind="stable")
assert out.dtype == np.dtype("<f4") and out.shape == (100000,) and idx.dtype == np.dtype("<u8")
assert (idx == want).all() and (out == a[want]).all()'
end

begin "raw records, --unique, to -o NAME.npy: a structured array by 'key', shape the records kept"
"$PY" -c 'import numpy as np, sys
r = np.random.default_rng(5); n = 20000
rec = np.zeros((n, 13), dtype=np.uint8); rec[:, :5] = (np.arange(n) % 251)[:, None]
rec[:, 5:13] = r.integers(-40, 40, n).astype("<i8").view(np.uint8).reshape(n, 8)
rec.tofile(sys.argv[1])' "$D/raw.rec13"
rmg sort "$D/raw.rec13" -t i64 --record-size 13 --key-offset 5 -u -o "$D/rawrec.npy" --index-output "$D/rawrec.idx.npy" \
  "${CPU[@]}"
expect_rc 0
npy_agrees 'rec = np.fromfile(d + "/raw.rec13", dtype=np.uint8).reshape(-1, 13)
keys = rec[:, 5:13].copy().view("<i8").ravel(); out = np.load(d + "/rawrec.npy"); idx = np.load(d + "/rawrec.idx.npy")
assert out.dtype.names == ("before", "key") and out.dtype.itemsize == 13, out.dtype
u, first = np.unique(keys, return_index=True)
assert out.shape == (len(u),) and (out["key"] == u).all() and (idx == first).all()
assert (out.view(np.uint8).reshape(-1, 13) == rec[first]).all()'
rmg check "$D/rawrec.npy" --key key
expect_rc 0
end

begin "merge of raw sorted files to -o NAME.npy"
"$PY" -c 'import numpy as np, sys
for i, s in enumerate((6, 7)): np.sort(np.random.default_rng(s).integers(0, 2**32, 5000, dtype="<u4")).tofile(f"{sys.argv[1]}/m{i}.u32")' "$D"
rmg merge "$D/m0.u32" "$D/m1.u32" -t u32 -o "$D/merged.npy" "${CPU[@]}"
expect_rc 0
npy_agrees 'a = np.concatenate([np.fromfile(d + f"/m{i}.u32", dtype="<u4") for i in (0, 1)]); out = np.load(d + "/merged.npy")
assert out.dtype == np.dtype("<u4") and (out == np.sort(a)).all()'
end

begin "one dtype however the headers spell it ('<u4', \"<u4\", '=u4', 'u4'): several inputs sorted, merged"
"$PY" - "$D" <<'PY'
import numpy as np, sys
for i, descr in enumerate(("'<u4'", '"<u4"', "'=u4'", "'u4'")):
    a = np.sort(np.random.default_rng(i).integers(0, 2**32, 1000, dtype="<u4"))
    text = "{'descr': %s, 'fortran_order': False, 'shape': (%d,), }" % (descr, len(a))
    text += " " * (-(10 + len(text) + 1) % 64) + "\n"
    with open(f"{sys.argv[1]}/spelled{i}.npy", "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode("latin-1") + a.tobytes())
PY
spelled=("$D"/spelled{0,1,2,3}.npy)
rmg sort "${spelled[@]}" -o "$D/spelled_sorted.npy" "${CPU[@]}"
expect_rc 0
rmg merge "${spelled[@]}" -o "$D/spelled_merged.npy" "${CPU[@]}"
expect_rc 0
npy_agrees 'a = np.sort(np.concatenate([np.load(d + f"/spelled{i}.npy") for i in range(4)]))
for name in ("sorted", "merged"):
    out = np.load(d + f"/spelled_{name}.npy")
    assert out.dtype == np.dtype("<u4") and (out == a).all(), name'
"$PY" -c 'import numpy as np, sys; np.save(sys.argv[1], np.arange(3, dtype="<i4"))' "$D/spelled_i4.npy"
rmg merge "$D/spelled1.npy" "$D/spelled_i4.npy" -o "$D/spelled_never.npy" "${CPU[@]}"
expect_rc 2
expect_stderr "$D/spelled_i4.npy: its .npy dtype '<i4' is not"
expect_no_file "$D/spelled_never.npy"
end

begin "a FIFO named *.npy without a reader, for raw input (and --unique of .npy input): refused at once, exit 2"
mkfifo "$D/fifo.npy"
for args in "sort $D/raw1000.u64 -t u64 -o $D/fifo.npy" "sort $D/raw1000.u64 -t u64 -o $D/never.npy --index-output $D/fifo.npy" \
  "merge $D/m0.u32 -t u32 -o $D/fifo.npy" "sort $BIG_U8 -u -o $D/fifo.npy"; do
  run timeout 10 "$RMGSORT" $args "${CPU[@]}"
  expect_rc 2
  expect_stderr "$D/fifo.npy: " "is not a regular file (a pipe?)"
done
expect_no_file "$D/never.npy"
rm -f "$D/fifo.npy"
end

echo "== 3. refusals"
# craft FILE PYTHON: writes FILE with the Python statements (f: the open file, np, fmt: numpy.lib.format).
craft() {
  "$PY" -c 'import sys, numpy as np, numpy.lib.format as fmt
f = open(sys.argv[1], "wb")
exec(sys.argv[2])' "$1" "$2" || { echo "crafting $1 failed" >&2; exit 2; }
}
craft "$D/fortran.npy" 'fmt.write_array_header_1_0(f, {"descr": "<u8", "fortran_order": True, "shape": (3,)}); f.write(bytes(24))'
craft "$D/two_d.npy" 'np.save(f, np.zeros((2, 3), dtype="<u8"))'
craft "$D/big_endian.npy" 'np.save(f, np.arange(5, dtype=">u4"))'
craft "$D/object.npy" 'np.save(f, np.array([1, "a", None], dtype=object), allow_pickle=True)'
craft "$D/lying.npy" 'fmt.write_array_header_1_0(f, {"descr": "<u8", "fortran_order": False, "shape": (10,)}); f.write(bytes(40))'
craft "$D/truncated.npy" 'b = open(sys.argv[1].replace("truncated", "u8.7"), "rb").read(); f.write(b[:40])'
craft "$D/subarray.npy" 'np.save(f, np.zeros(4, dtype=[("a", "<u4", (3,)), ("b", "<u8")]))'

# refused NAME INPUT TEXT... -- ARGS...: exit 2, an "rmgsort: " message with every TEXT, no output, no
# temporary file, the input unchanged.
refused() {
  local name=$1 in=$2 texts=()
  shift 2
  while [[ $1 != -- ]]; do texts+=("$1"); shift; done
  shift
  begin "refused: $name"
  cp "$in" "$WORK/before"
  rmg sort "$in" -o "$D/refused.npy" --index-output "$D/refused.idx.npy" "${CPU[@]}" "$@"
  expect_rc 2
  expect_error_message
  expect_stderr "${texts[@]}"
  expect_no_file "$D/refused.npy"
  expect_no_file "$D/refused.idx.npy"
  expect_no_temp "$D"
  expect_same "$in" "$WORK/before"
  end
}
refused "Fortran order" "$D/fortran.npy" "$D/fortran.npy" "ortran" --
refused "a 2-D array" "$D/two_d.npy" "$D/two_d.npy" "(2, 3)" --
refused "a big-endian dtype" "$D/big_endian.npy" "$D/big_endian.npy" "big-endian" --
refused "an object dtype" "$D/object.npy" "$D/object.npy" "object" --
refused "a shape the file size contradicts" "$D/lying.npy" "$D/lying.npy" "208 bytes" "168 bytes" --
refused "a truncated header" "$D/truncated.npy" "$D/truncated.npy" "truncated" --
refused "a structured input without --key" "$BIG_REC" "$BIG_REC" "--key FIELD" "'k' '<i8'" "'s' '|S5'" "'v' '|V3'" --
refused "an unknown --key" "$BIG_REC" "$BIG_REC" "--key nope" "no such field" "'k' '<i8'" -- --key nope
refused "a sub-array key field" "$D/subarray.npy" "$D/subarray.npy" "--key a" "sub-array" -- --key a
refused "--key of a simple dtype" "$BIG_U8" "$BIG_U8" "--key k" "no fields" -- --key k
refused "-t disagreeing with the header" "$BIG_U8" "$BIG_U8" "--type u32" "<u8" -- -t u32
refused "-t disagreeing with the key field" "$BIG_REC" "$BIG_REC" "--type u64" "'k'" -- --key k -t u64
refused "--record-size given" "$BIG_U8" "$BIG_U8" "--record-size" "header" -- --record-size 8
refused "--key-offset given" "$BIG_REC" "$BIG_REC" "--key-offset" "header" -- --key k --key-offset 1
refused "--key of raw input" "$D/raw.bin" "$D/raw.bin" "--key k" "not a .npy file" -- -t u64 --key k
refused "raw input without -t" "$D/raw.bin" "$D/raw.bin" "-t,--type is required" --

begin "-t agreeing with the header is accepted"
rmg sort "$BIG_REC" --key k -t i64 -o "$D/agree.npy" "${CPU[@]}"
expect_rc 0
end
expect_ref "$BIG_REC" k asc "$D/agree.npy" - "-t agreeing: the reference's array"
flush_ref

# stream_refused NAME FILE OPTIONS...: a .npy stream whose data is not its header's: exit 2, nothing on
# stdout, a pipe (which cannot be cut back): not even the header, on every path.
craft "$D/short_stream.npy" 'fmt.write_array_header_1_0(f, {"descr": "<u8", "fortran_order": False, "shape": (100000,)}); f.write(bytes(8 * 99999))'
craft "$D/long_stream.npy" 'fmt.write_array_header_1_0(f, {"descr": "<u8", "fortran_order": False, "shape": (100000,)}); f.write(bytes(8 * 100001))'
stream_refused() {
  local name=$1 in=$2
  shift 2
  begin "refused: $name"
  "$RMGSORT" sort -o - "${CPU[@]}" -T "$D" "$@" < <(cat "$in") 2>"$WORK/stderr" | cat >"$D/stream.out"
  RC=${PIPESTATUS[0]}
  expect_rc 2
  expect_error_message
  expect_stderr "stdin" "800000"
  expect_size "$D/stream.out" 0
  end
}
stream_refused "a stream shorter than its header says, in memory" "$D/short_stream.npy"
stream_refused "a stream longer than its header says, in memory" "$D/long_stream.npy"
stream_refused "a stream shorter than its header says, spilled" "$D/short_stream.npy" --host-memory 512K
stream_refused "a stream longer than its header says, spilled" "$D/long_stream.npy" --host-memory 512K

summary
