#!/usr/bin/env bash
# rmgsort sort --unique (-u, as sort -u): the first record of each run of equal keys, against an
# independent numpy reference (tests/e2e/pipeline_ref.py), on every CPU path: in memory, through
# spill files (one level and several, the spill file in memory or in --temp-dir), a stream in memory
# and spilled, several inputs; keys and records, both orders, NaNs (records: one key; bare floats:
# one per bit pattern), -0.0 and +0.0 apart; --index-output the kept records' positions; a .npy
# output's shape the count kept (its header written again at the end: refused, exit 2, on a pipe);
# --stats records kept and duplicates dropped; --verify still checks the sort; an output disk that
# holds only what is kept (in memory, spilled, merge: nothing reserved for the dropped). The GPUs' paths
# (in memory and in rounds): tests/e2e/gpu_sort_test.sh.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_numpy_python
REF="$E2E_DIR/pipeline_ref.py"
CPU=(--gpus none)

U=$WORK/u
mkdir -p "$U" "$U/temp"

# expect_ref ARGS...: pipeline_ref.py check ARGS... agrees.
expect_ref() {
  local why
  why=$("$PY" "$REF" check "$@" 2>&1) || fail "not the reference: $why"
}

# stat_of FILE MEMBER: a member of a --stats JSON file ("" for null).
stat_of() {
  "$PY" -c 'import json, sys; v = json.load(open(sys.argv[1])).get(sys.argv[2]); print("" if v is None else v)' "$@"
}

"$PY" - "$U" <<'PY' || { echo "setup failed"; exit 2; }
import sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(15)
n = 200003
# u64 keys with many repeats (a few thousand values) and the extremes.
np.asarray(rng.choice(np.concatenate([rng.integers(0, 2**64, 3000, dtype=np.uint64),
                                      np.array([0, 1, 2**64 - 1], dtype=np.uint64)]), n), dtype="<u8").tofile(f"{d}/keys.u64")
# f32 keys: a few values, -0.0 and +0.0, infinities, NaNs of three bit patterns.
specials = np.array([0x7fc00000, 0xffc00000, 0x7fa5a5a5, 0x80000000, 0x00000000, 0x3f800000, 0xbf800000,
                     0x7f800000, 0xff800000], dtype="<u4")
rng.choice(specials, n).tofile(f"{d}/keys.f32")
# 13-byte records with an f32 key at byte 5 (NaNs among them): the payload is the record's position.
rec = np.zeros((n, 13), dtype=np.uint8)
rec[:, 0:5] = np.arange(n, dtype="<u8").view(np.uint8).reshape(-1, 8)[:, :5]
rec[:, 5:9] = rng.choice(specials, n).view(np.uint8).reshape(-1, 4)
rec[:, 9:13] = np.arange(n, dtype="<u4").view(np.uint8).reshape(-1, 4)
rec.tofile(f"{d}/f32.rec")
# bytes:10 keys in 100-byte records (few distinct keys).
keys10 = rng.integers(0, 256, (50, 10), dtype=np.uint8)
big = rng.integers(0, 256, (50000, 100), dtype=np.uint8)
big[:, 0:10] = keys10[rng.integers(0, 50, 50000)]
big.tofile(f"{d}/b10.rec")
np.save(f"{d}/keys.npy", np.fromfile(f"{d}/keys.u64", dtype="<u8"))
tbl = np.zeros(30000, dtype=[("id", "<u4"), ("price", "<f8")])
tbl["id"] = np.arange(30000)
tbl["price"] = rng.choice(np.array([np.nan, 1.5, -0.0, 0.0, 2.5]), 30000)
np.save(f"{d}/table.npy", tbl)
PY

PATHS=("in memory:" "spilled:--host-memory 1M" "spilled deep:--host-memory 128K")

echo "== keys and records, every path"
for path in "${PATHS[@]}"; do
  name=${path%%:*}
  read -ra memory <<<"${path#*:}"
  for order in asc desc; do
    r=() desc=()
    [[ $order == desc ]] && r=(-r) desc=(--desc)
    begin "u64 keys with repeats, $name, $order: the first of each run, positions"
    rmg sort "$U/keys.u64" -t u64 -u "${r[@]}" -o "$U/out" --index-output "$U/idx" "${CPU[@]}" -T "$U/temp" \
      "${memory[@]}" --stats "$U/stats.json"
    expect_rc 0
    expect_stderr_empty
    expect_ref --unique "${desc[@]}" --raw u64 8 0 "$U/out" "$U/idx" "$U/keys.u64"
    kept=$(($(stat -c %s "$U/out") / 8))
    [[ $(stat_of "$U/stats.json" records_kept) == "$kept" ]] || fail "stats: records_kept $(stat_of "$U/stats.json" records_kept), wrote $kept"
    [[ $(stat_of "$U/stats.json" duplicates_dropped) == $((200003 - kept)) ]] || fail "stats: duplicates_dropped"
    [[ $(stat_of "$U/stats.json" records) == 200003 ]] || fail "stats: records $(stat_of "$U/stats.json" records)"
    [[ $(stat_of "$U/stats.json" unique) == True ]] || fail "stats: unique"
    end
  done

  begin "bare f32 keys, $name: NaNs kept once per bit pattern, -0.0 and +0.0 both"
  rmg sort "$U/keys.f32" -t f32 --unique -o "$U/out" --index-output "$U/idx" "${CPU[@]}" -T "$U/temp" "${memory[@]}"
  expect_rc 0
  expect_size "$U/out" 36  # the nine bit patterns
  expect_ref --unique --raw f32 4 0 "$U/out" "$U/idx" "$U/keys.f32"
  rmg check "$U/out" -t f32  # counts duplicates as --unique compares keys: none left
  expect_rc 0
  expect_stdout "9 f32 keys in ascending order; 0 duplicate keys;"
  end

  begin "13-byte records, f32 key at 5, $name: every NaN one key, the first in input order"
  rmg sort "$U/f32.rec" -t f32 --record-size 13 --key-offset 5 -u -o "$U/out" --index-output "$U/idx" "${CPU[@]}" \
    -T "$U/temp" "${memory[@]}"
  expect_rc 0
  expect_size "$U/out" $((7 * 13))  # six numbers (-0.0 and +0.0 apart) and one NaN
  expect_ref --unique --raw f32 13 5 "$U/out" "$U/idx" "$U/f32.rec"
  rmg check "$U/out" -t f32 --record-size 13 --key-offset 5
  expect_rc 0
  expect_stdout "; 0 duplicate keys;"
  end

  begin "bytes:10 keys of 100-byte records, descending, $name"
  rmg sort "$U/b10.rec" -t bytes:10 --record-size 100 -u -r -o "$U/out" "${CPU[@]}" -T "$U/temp" "${memory[@]}"
  expect_rc 0
  expect_ref --unique --desc --raw bytes:10 100 0 "$U/out" - "$U/b10.rec"
  end
done

echo "== streams and several inputs"
for path in "${PATHS[@]}"; do
  name=${path%%:*}
  read -ra memory <<<"${path#*:}"
  begin "stdin (a pipe), $name: the same as the file"
  run "$RMGSORT" sort -t u64 -u -o "$U/out" --index-output "$U/idx" "${CPU[@]}" -T "$U/temp" "${memory[@]}" \
    < <(cat "$U/keys.u64")
  expect_rc 0
  expect_ref --unique --raw u64 8 0 "$U/out" "$U/idx" "$U/keys.u64"
  end

  begin "two files and stdin, $name: runs across the inputs keep the first input's record"
  run "$RMGSORT" sort "$U/keys.u64" - "$U/keys.u64" -t u64 -u -o "$U/out" --index-output "$U/idx" "${CPU[@]}" \
    -T "$U/temp" "${memory[@]}" < <(head -c 80000 "$U/keys.u64")
  expect_rc 0
  head -c 80000 "$U/keys.u64" >"$U/head.u64"
  expect_ref --unique --raw u64 8 0 "$U/out" "$U/idx" "$U/keys.u64" "$U/head.u64" "$U/keys.u64"
  end
done

begin "-u to standard output (a pipe), --verify: exit 0, the first of each run"
run "$RMGSORT" sort "$U/keys.u64" -t u64 -u --verify "${CPU[@]}"
expect_rc 0
cp "$WORK/stdout" "$U/out"
expect_ref --unique --raw u64 8 0 "$U/out" - "$U/keys.u64"
end

begin "without --unique: duplicates_dropped null, records_kept every record"
rmg sort "$U/keys.u64" -t u64 -o "$U/out" "${CPU[@]}" --stats "$U/stats.json"
expect_rc 0
[[ -z $(stat_of "$U/stats.json" duplicates_dropped) ]] || fail "duplicates_dropped is not null"
[[ $(stat_of "$U/stats.json" records_kept) == 200003 ]] || fail "records_kept $(stat_of "$U/stats.json" records_kept)"
[[ $(stat_of "$U/stats.json" unique) == False ]] || fail "stats: unique"
end

echo "== .npy: the header's shape is the count kept"
for path in "${PATHS[@]}"; do
  name=${path%%:*}
  read -ra memory <<<"${path#*:}"
  begin "a <u8 array, $name: the output and --index-output of the count kept, as np.save writes them"
  rmg sort "$U/keys.npy" -u -o "$U/out.npy" --index-output "$U/idx.npy" "${CPU[@]}" -T "$U/temp" "${memory[@]}"
  expect_rc 0
  expect_ref --unique --npy "$U/out.npy" "$U/idx.npy" "$U/keys.npy"
  end

  begin "a structured array by --key price (f8 with NaNs), from a pipe, $name"
  run "$RMGSORT" sort - --key price -u -o "$U/out.npy" --index-output "$U/idx.npy" "${CPU[@]}" -T "$U/temp" \
    "${memory[@]}" < <(cat "$U/table.npy")
  expect_rc 0
  expect_ref --unique --npy --key price "$U/out.npy" "$U/idx.npy" "$U/table.npy"
  end
done

begin ".npy to a regular standard output: the header written again in place"
printf 'before' >"$U/stdout.npy"
"$RMGSORT" sort "$U/keys.npy" -u "${CPU[@]}" 1<>"$U/stdout.npy" 2>"$WORK/stderr"
RC=$?
expect_rc 0
expect_ref --unique --npy "$U/stdout.npy" - "$U/keys.npy"
end

begin ".npy with --unique to a pipe: refused (exit 2, why), nothing written"
"$RMGSORT" sort "$U/keys.npy" -u "${CPU[@]}" 2>"$WORK/stderr" | cat >"$U/piped"
RC=${PIPESTATUS[0]}
expect_rc 2
expect_stderr "standard output: --unique with .npy input" "is not a regular file" "-o FILE.npy"
expect_size "$U/piped" 0
end

begin ".npy with --unique, --index-output to a pipe: refused, -o not committed"
"$RMGSORT" sort "$U/keys.npy" -u -o "$U/not.npy" --index-output - "${CPU[@]}" 2>"$WORK/stderr" | cat >"$U/piped"
RC=${PIPESTATUS[0]}
expect_rc 2
expect_stderr "standard output: --unique with .npy input"
expect_no_file "$U/not.npy"
expect_size "$U/piped" 0
end

begin ".npy with --unique appended to standard output (>>): refused"
: >"$U/appended.npy"
"$RMGSORT" sort "$U/keys.npy" -u "${CPU[@]}" >>"$U/appended.npy" 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_stderr "is opened to append"
expect_size "$U/appended.npy" 0
# Named by -o as well (it is standard output's file): the message says which file that is.
"$RMGSORT" sort "$U/keys.npy" -u -o "$U/appended.npy" "${CPU[@]}" >>"$U/appended.npy" 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_stderr "$U/appended.npy (standard output): --unique with .npy input" "is opened to append"
expect_size "$U/appended.npy" 0
end

# A disk that holds what --unique keeps but not the input: nothing is reserved for the records that
# --unique may drop (a reservation of the whole input failed with ENOSPC). A small ext4 image,
# loop-mounted (root, a loop device and mkfs.ext4 needed).
SMALL=$WORK/small-ext4
mkdir -p "$SMALL"
if [[ $(id -u) -eq 0 ]] && command -v mkfs.ext4 >/dev/null && truncate -s 4M "$WORK/small.img" &&
  mkfs.ext4 -q -F "$WORK/small.img" >/dev/null 2>&1 && mount -o loop "$WORK/small.img" "$SMALL" 2>/dev/null; then
  E2E_CLEANUP+=("umount -l '$SMALL'")
  rmg generate -o "$U/many.u64" -t u64 --count 2000000 --dist bits:10 --seed 5  # 16 MB, 1024 values
  "$RMGSORT" sort "$U/many.u64" -t u64 -o "$U/many-sorted.u64" "${CPU[@]}" 2>"$WORK/stderr" ||
    { echo "setup failed"; exit 2; }
  cp "$U/many-sorted.u64" "$U/many-sorted-2.u64"
  for how in "in memory" "through spill files" "merge"; do
    begin "sort -u of 16 MB with 1024 values ($how) onto a 4 MiB disk: fits, nothing reserved for the dropped"
    rm -f "$SMALL/out"
    case $how in
      "in memory") rmg sort "$U/many.u64" -t u64 -u -o "$SMALL/out" "${CPU[@]}" ;;
      "through spill files") rmg sort "$U/many.u64" -t u64 -u -o "$SMALL/out" "${CPU[@]}" --host-memory 8M -T "$U/temp" ;;
      merge) rmg merge "$U/many-sorted.u64" "$U/many-sorted-2.u64" -t u64 -u -o "$SMALL/out" ;;
    esac
    expect_rc 0
    expect_ref --unique --raw u64 8 0 "$SMALL/out" - "$U/many.u64"
    expect_no_temp "$SMALL"
    end
  done
else
  begin "sort -u onto a small loop-mounted ext4"
  skip "cannot mount a loop-mounted ext4 here (root, a loop device and mkfs.ext4 are needed)"
fi

summary
