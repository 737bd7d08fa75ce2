#!/usr/bin/env bash
# NumPy .npy files with generate and check, against numpy itself (tests/e2e/npy_ref.py):
#   1. generate -o FILE.npy for every key type and several record layouts (0, 1 and 1000 records):
#      np.load reads the dtype and shape promised, and the data is the raw generate's bytes; a .NPY
#      name is .npy too, standard output stays raw;
#   2. check on numpy-made .npy files (simple dtypes, S<n>, V<n>; a structured array by a numeric
#      field at an unaligned offset, an S<n>, a V<n> field, one of many equal keys): sorted ones pass,
#      unsorted ones fail with exit 1, --input .npy or raw, a changed record fails; from standard
#      input as a file and as a pipe; versions 2.0 and 3.0; a .npy generated then checked by --key;
#   3. refusals, exit 2 naming the file and the reason, nothing on stdout: Fortran order, 2-D,
#      big-endian, object and complex dtypes, lying shapes, truncated and malformed headers, a
#      structured array without --key (its fields listed), unknown, nested and sub-array --key
#      fields, a disagreeing -t, --record-size/--key-offset/--key where they do not apply, a .npy
#      stream whose data is longer or shorter than its shape.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_numpy_python
ref() { "$PY" "$E2E_DIR/npy_ref.py" "$@"; }

D=$WORK/npy
mkdir -p "$D"

echo "== 1. generate -o FILE.npy: np.load reads it, the data is the raw generate's"
: >"$WORK/manifest"
seed=0
while read -r type r k; do
  for n in 0 1 1000; do
    seed=$((seed + 1))
    base=$D/gen-${type/:/_}-r$r-k$k-n$n
    lay=(-t "$type")
    [[ $r != - ]] && lay+=(--record-size "$r" --key-offset "$k")
    begin "generate ${lay[*]} --count $n -o FILE.npy and -o FILE.raw: exit 0, nothing on stdout"
    rmg generate "${lay[@]}" --count "$n" --seed "$seed" -o "$base.npy"
    expect_rc 0
    expect_stdout_empty
    rmg generate "${lay[@]}" --count "$n" --seed "$seed" -o "$base.raw"
    expect_rc 0
    end
    case $type in bytes:*) w=${type#bytes:} ;; *32) w=4 ;; *) w=8 ;; esac
    [[ $r == - ]] && { r=$w; k=0; }
    echo "$base.npy $base.raw $type $r $k $n" >>"$WORK/manifest"
  done
done <<'LAYOUTS'
u32 - -
u64 - -
i32 - -
i64 - -
f32 - -
f64 - -
bytes:1 - -
bytes:3 - -
bytes:10 - -
bytes:32 - -
u64 9 0
u64 13 3
u32 5 1
i64 100 92
f32 12 4
f64 9 1
bytes:10 100 0
bytes:3 13 5
bytes:32 40 8
LAYOUTS
ref verify-generated "$WORK/manifest" >"$WORK/verified" 2>&1
[[ $? -le 1 ]] || echo "FAIL npy_ref.py verify-generated itself failed: $(tail -n 3 "$WORK/verified")" >>"$WORK/verified"
count_verdicts "$WORK/verified"

begin "generate -o FILE.NPY (any case) writes .npy; -o - stays raw"
rmg generate -t i64 --count 77 --seed 5 --dist zipf:1.0 -o "$D/upper.NPY"
expect_rc 0
rmg generate -t i64 --count 77 --seed 5 --dist zipf:1.0 -o "$D/plain.raw"
expect_rc 0
"$RMGSORT" generate -t i64 --count 77 --seed 5 --dist zipf:1.0 -o - >"$D/stdout.raw" 2>"$WORK/stderr" || fail "generate -o - failed"
expect_same "$D/stdout.raw" "$D/plain.raw"
"$PY" -c 'import numpy as np, sys; a = np.load(sys.argv[1]); assert a.dtype == np.dtype("<i8") and a.shape == (77,), a.dtype
assert a.tobytes() == open(sys.argv[2], "rb").read()' "$D/upper.NPY" "$D/plain.raw" 2>>"$WORK/stderr" ||
  fail "np.load of upper.NPY: not 77 <i8 keys equal to the raw generate's"
end

begin "generate --record-size 13 --key-offset 3 -o FILE.npy, numpy sorts it by 'key', check --key key passes (and --input the generated file)"
rmg generate -t u64 --record-size 13 --key-offset 3 --count 500 --dist bits:3 -o "$D/rec.npy"
expect_rc 0
"$PY" -c 'import numpy as np, sys; a = np.load(sys.argv[1]); np.save(sys.argv[2], a[np.argsort(a["key"], kind="stable")])' \
  "$D/rec.npy" "$D/rec.sorted.npy" || fail "numpy could not sort rec.npy by 'key'"
rmg check "$D/rec.sorted.npy" --key key --input "$D/rec.npy"
expect_rc 0
expect_stdout "OK $D/rec.sorted.npy: 500 13-byte records (u64 key at offset 3) in ascending order;" "a permutation of $D/rec.npy"
rmg check "$D/rec.npy" --key key
expect_rc 1
end

echo "== 2. check on numpy-made .npy files"
ref make-check-files "$D" >"$WORK/cases" || { echo "npy_ref.py make-check-files failed" >&2; exit 2; }
while read -r how rest; do
  case $how in
    STDIN | PIPE) read -r want file args <<<"$rest" ;;
    *) want=$how; read -r file args <<<"$rest"; how=FILE ;;
  esac
  # shellcheck disable=SC2086
  case $how in
    FILE) rmg check "$file" $args ;;
    STDIN) rmg check - $args <"$file" ;;
    PIPE) rmg check - $args < <(cat "$file") ;;
  esac
  name=$file
  [[ $how != FILE ]] && name=stdin
  begin "check ${how/FILE/} $(basename "$file") $args: exit $want"
  expect_rc "$want"
  if [[ $want == 0 ]]; then
    expect_stdout "OK $name: "
    [[ $args == *--input* ]] && expect_stdout "; a permutation of "
  else
    expect_stdout "FAIL $name: "
  fi
  expect_stderr_empty
  end
done <"$WORK/cases"

echo "== 3. refusals: exit 2, the file and the reason named, nothing on stdout"
mkdir -p "$D/refused"
ref make-refused "$D/refused" >"$WORK/refused" || { echo "npy_ref.py make-refused failed" >&2; exit 2; }
while read -r file text args; do
  # shellcheck disable=SC2086
  rmg check "$file" $args
  begin "check $(basename "$file") $args: exit 2, stderr names the file and '$text'"
  expect_rc 2
  expect_stdout_empty
  expect_error_message
  [[ $args == *--record-size* || $args == *--key-offset* ]] || expect_stderr "$file"
  expect_stderr "$text"
  end
done <"$WORK/refused"

begin "a .npy stream: truncated header, data longer and shorter than its shape, a header of 2 dimensions: exit 2"
rmg check - < <(head -c 50 "$D/refused/whole.npy")
expect_rc 2
expect_stderr "stdin:" "inside its .npy header"
rmg check - < <(cat "$D/refused/whole.npy" "$D/refused/whole.npy")
expect_rc 2
expect_stderr "stdin:" "shape says 5 items" "goes on after them"
rmg check - < <(head -c 144 "$D/refused/whole.npy")
expect_rc 2
expect_stderr "stdin:" "shape says 5 items" "holds 2"
rmg check - < <(head -c 147 "$D/refused/whole.npy")
expect_rc 2
expect_stderr "stdin:" "inside a key" "shape says 5 items"
rmg check - < <(cat "$D/refused/twod.npy")
expect_rc 2
expect_stderr "stdin:" "dimensions"
expect_stdout_empty
end

begin "--input (--original's former name): a malformed .npy ORIGINAL and one of another item size are exit 2 naming it"
rmg check "$D/refused/whole.npy" --input "$D/refused/truncated.npy"
expect_rc 2
expect_stderr "$D/refused/truncated.npy" "inside its .npy header"
rmg check "$D/refused/whole.npy" --input "$D/one.npy"
expect_rc 2
expect_stderr "--original $D/one.npy" "4 bytes" "8 bytes"
expect_stdout_empty
end

begin "--key of a field of a type rmgsort does not sort (u1): exit 2 naming the field's type"
rmg check "$D/struct-price.asc.npy" --key id
expect_rc 2
expect_stderr "$D/struct-price.asc.npy" "--key id" "'|u1'"
end

begin "a raw FILE: -t is still required, --key refused"
rmg check "$D/simple-u8.in.raw"
expect_rc 2
expect_stderr "--type" "$D/simple-u8.in.raw" "not a .npy file"
rmg check "$D/simple-u8.in.raw" -t u64 --key x
expect_rc 2
expect_stderr "--key x" "not a .npy file"
rmg check "$D/simple-u8.in.raw" -t u64
expect_rc 1
end

summary
