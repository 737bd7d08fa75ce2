#!/usr/bin/env bash
# rmgsort sort of bare keys on the CPU, in memory, into an output on tmpfs, on 16 threads or more
# (io/output_reservation.hpp): the keys are sorted in memory of their own and written while they are
# sorted, into output pages allocated beside the read and the sort. Against the independent numpy
# reference (tests/e2e/pipeline_ref.py): key types, both orders, --unique (the file ends after the
# records kept, and the pages reserved past them are freed), a .npy output (its header before the
# records), several inputs. --stats says output_reserved_bytes (all of them) and
# output_reserved_seconds. Not reserved: --verify (sorted in the output's pages), fewer threads, a
# disk output, standard output's file. A full tmpfs fails with exit 2 naming the output, the old
# output intact; a SIGTERM during the sort leaves nothing, and the pages are given back. On a machine
# of fewer than 16 cores, only the cases where nothing is reserved run.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_numpy_python
require_tmpfs_shm
D=$WORK/disk
mkdir -p "$D"
CPU=(--gpus none --threads 16)  # the threshold (app/output_memory.hpp), where the machine has the cores
MANY_CORES=$(( $(nproc) >= 16 ))


# expect_reserved STATS BYTES: the output's pages were reserved, BYTES of them ("" for none), and the
# keys were not sorted in them.
expect_reserved() {
  local got
  got=$(stat_of "$1" output_reserved_bytes)
  [[ $got == "$2" ]] || fail "stats: output_reserved_bytes '$got', expected '$2'"
  if [[ -n $2 ]]; then
    [[ -n $(stat_of "$1" output_reserved_seconds) ]] || fail "stats: output_reserved_seconds null"
    [[ $(stat_of "$1" sorted_in_output_file) == False ]] || fail "stats: sorted in the output's pages"
  fi
}

# expect_allocated_within FILE: the file holds no allocated page past its end (a tmpfs of huge pages
# allocates 2 MiB at a time).
expect_allocated_within() {
  local size blocks
  read -r size blocks < <(stat -c '%s %b' "$1")
  ((blocks * 512 <= size + (2 << 20) + 8192)) || fail "$1: $((blocks * 512)) bytes allocated for $size"
}

# expect_npy_sorted NPY U32: the .npy file holds the raw u32 file's keys sorted, as '<u4'.
expect_npy_sorted() {
  "$PY" -c 'import sys, numpy as np
a = np.load(sys.argv[1]); b = np.sort(np.fromfile(sys.argv[2], dtype="<u4"))
sys.exit(0 if a.dtype == np.dtype("<u4") and np.array_equal(a, b) else 1)' "$1" "$2" ||
    fail "the .npy output is not the keys sorted"
}

"$PY" - "$SHM" "$D" <<'PY' || { echo "setup failed"; exit 2; }
import sys
import numpy as np
shm, disk = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(29)
n = 300007
for name, t in {"u32": np.uint32, "i64": np.int64}.items():
    info = np.iinfo(t)
    keys = rng.integers(info.min, info.max, n, dtype=t, endpoint=True)
    keys[:5] = [info.min, info.max, 0, info.min, info.max]
    keys[5:2000] = keys[2000:3995]  # repeats
    keys.tofile(f"{shm}/keys.{name}")
f64 = rng.standard_normal(n)
f64.view("<u8")[rng.integers(0, n, 3000)] = rng.choice(
    np.array([0x7ff8000000000000, 0xfff8000000000000, 0x8000000000000000, 0, 0x7ff0000000000000,
              0xfff0000000000000], dtype="<u8"), 3000)
f64.tofile(f"{shm}/keys.f64")
rng.standard_normal(n).astype(np.float32).tofile(f"{shm}/keys.f32")
np.save(f"{shm}/keys.npy", np.fromfile(f"{shm}/keys.i64", dtype="<i8"))
np.fromfile(f"{shm}/keys.u32", dtype="<u4")[:1000].tofile(f"{shm}/few.u32")
rng.integers(0, 1000, 2_000_003, dtype=np.uint32).tofile(f"{shm}/dups.u32")
for i in range(3):
    np.fromfile(f"{shm}/keys.i64", dtype="<i8")[i * 90000:(i + 1) * 90000 + i].tofile(f"{shm}/part{i}.i64")
PY

if ((MANY_CORES)); then
  echo "== reserved beside the sort"
  for type in u32 i64 f32 f64; do
    for order in asc desc; do
      r=() desc=()
      [[ $order == desc ]] && r=(-r) desc=(--desc)
      begin "$type keys, $order: the reference's order, every byte of the output reserved"
      rmg sort "$SHM/keys.$type" -t "$type" "${r[@]}" -o "$SHM/out" "${CPU[@]}" --stats "$SHM/stats.json"
      expect_rc 0
      expect_stderr_empty
      width=$(( ${type#[uif]} / 8 ))
      pipeline_ref_agrees "${desc[@]}" --raw "$type" "$width" 0 "$SHM/out" - "$SHM/keys.$type"
      expect_reserved "$SHM/stats.json" "$(stat -c %s "$SHM/keys.$type")"
      expect_allocated_within "$SHM/out"
      end
    done
  done

  begin "u32 keys with many duplicates, -u: the first of each run; the pages reserved past them given back"
  rmg sort "$SHM/dups.u32" -t u32 -u -o "$SHM/out" "${CPU[@]}" --stats "$SHM/stats.json"
  expect_rc 0
  pipeline_ref_agrees --unique --raw u32 4 0 "$SHM/out" - "$SHM/dups.u32"
  expect_size "$SHM/out" 4000
  expect_reserved "$SHM/stats.json" "$(stat -c %s "$SHM/dups.u32")"
  expect_allocated_within "$SHM/out"
  end

  begin ".npy i64 in and out, -u, and raw u32 to .npy: the records after the header"
  rmg sort "$SHM/keys.npy" -u -o "$SHM/out.npy" "${CPU[@]}" --stats "$SHM/stats.json"
  expect_rc 0
  pipeline_ref_agrees --unique --npy "$SHM/out.npy" - "$SHM/keys.npy"
  expect_reserved "$SHM/stats.json" $((300007 * 8))
  expect_allocated_within "$SHM/out.npy"
  rmg sort "$SHM/keys.u32" -t u32 -o "$SHM/out.npy" "${CPU[@]}" --stats "$SHM/stats.json"
  expect_rc 0
  expect_npy_sorted "$SHM/out.npy" "$SHM/keys.u32"
  expect_reserved "$SHM/stats.json" $((300007 * 4))
  end

  begin "three inputs, and an output that is the input: sorted, nothing left beside it"
  rmg sort "$SHM"/part?.i64 -t i64 -o "$SHM/out" "${CPU[@]}" --stats "$SHM/stats.json"
  expect_rc 0
  pipeline_ref_agrees --raw i64 8 0 "$SHM/out" - "$SHM"/part?.i64
  expect_reserved "$SHM/stats.json" $(( $(cat "$SHM"/part?.i64 | wc -c) ))
  cp "$SHM/keys.u32" "$SHM/self.u32"
  rmg sort "$SHM/self.u32" -t u32 -o "$SHM/self.u32" "${CPU[@]}"
  expect_rc 0
  pipeline_ref_agrees --raw u32 4 0 "$SHM/self.u32" - "$SHM/keys.u32"
  expect_no_temp "$SHM"
  end

fi

echo "== not reserved"
begin "--verify (sorted in the output's pages), 8 threads, a disk output, standard output's file"
rmg sort "$SHM/keys.u32" -t u32 --verify -o "$SHM/out" "${CPU[@]}" --stats "$SHM/stats.json"
expect_rc 0
pipeline_ref_agrees --raw u32 4 0 "$SHM/out" - "$SHM/keys.u32"
expect_reserved "$SHM/stats.json" ""
[[ $(stat_of "$SHM/stats.json" sorted_in_output_file) == True ]] || fail "--verify: not in the output's pages"
rmg sort "$SHM/keys.u32" -t u32 -o "$SHM/out" --gpus none --threads 8 --stats "$SHM/stats.json"
expect_rc 0
pipeline_ref_agrees --raw u32 4 0 "$SHM/out" - "$SHM/keys.u32"
expect_reserved "$SHM/stats.json" ""
[[ $(stat_of "$SHM/stats.json" sorted_in_output_file) == True ]] || fail "8 threads: not in the output's pages"
rmg sort "$SHM/keys.u32" -t u32 -o "$D/out" "${CPU[@]}" --stats "$SHM/stats.json"
expect_rc 0
pipeline_ref_agrees --raw u32 4 0 "$D/out" - "$SHM/keys.u32"
expect_reserved "$SHM/stats.json" ""
"$RMGSORT" sort "$SHM/keys.u32" -t u32 "${CPU[@]}" --stats "$SHM/stats.json" >"$SHM/stdout.u32"
RC=$?
expect_rc 0
pipeline_ref_agrees --raw u32 4 0 "$SHM/stdout.u32" - "$SHM/keys.u32"
expect_reserved "$SHM/stats.json" ""
end

if ((MANY_CORES)); then
  echo "== failures"
  begin "a tmpfs too small for the output: exit 2 naming it, the old output intact, nothing left"
  small=$WORK/small
  mkdir -p "$small"
  if [[ $(id -u) -ne 0 ]] || ! mount -t tmpfs -o size=1m rmgsort-e2e "$small" 2>/dev/null; then
    skip "mounting a small tmpfs needs root"
else
    E2E_CLEANUP+=("umount -l '$small'")
    echo old >"$small/out"
    rmg sort "$SHM/keys.u32" -t u32 -o "$small/out" "${CPU[@]}"
    expect_rc 2
    expect_error_message
    expect_stderr "$small/out" "No space left on device"
    [[ $(cat "$small/out") == old ]] || fail "the old output changed"
    [[ $(ls -A "$small") == out ]] || fail "left in the small tmpfs: $(ls -A "$small")"
    rmg sort "$SHM/few.u32" -t u32 -o "$small/out" "${CPU[@]}" --stats "$SHM/stats.json"
    expect_rc 0
    pipeline_ref_agrees --raw u32 4 0 "$small/out" - "$SHM/few.u32"
    expect_reserved "$SHM/stats.json" 4000
    end
fi

begin "SIGTERM while sorting: exit 143, nothing left, the reserved pages given back"
if (($(df --output=avail -B1 /dev/shm | tail -n 1) < 5 * 2 ** 30)); then
  skip "less than 5 GiB free in /dev/shm"
else
  # The signal must land while the keys sort (0.2 s for 2^26 keys on 16 cores, longer on a loaded
  # machine than the wait for the progress line): a run that ended first is tried again, twice as large.
  mkdir -p "$SHM/killed"
  for log2 in 26 27 28; do
    "$RMGSORT" generate -t u64 --count $((1 << log2)) -o "$SHM/big.u64" --progress never
    used_before=$(df --output=used -B1 /dev/shm | tail -n 1)
    "${DEFAULT_SIGNALS[@]}" "$RMGSORT" sort "$SHM/big.u64" -t u64 -o "$SHM/killed/out" "${CPU[@]}" --progress always \
      2>"$WORK/progress" &
    pid=$!
    for ((i = 0; i < 4000; i++)); do grep -q "rmgsort: sorting" "$WORK/progress" && break; sleep 0.005; done
    kill -TERM $pid
    wait_or_kill $pid
    [[ $RC -eq 0 ]] || break
    rm -f "$SHM/killed/out"
  done
  expect_rc 143
  [[ -z $(ls -A "$SHM/killed") ]] || fail "left: $(ls -A "$SHM/killed")"
  used_after=$(df --output=used -B1 /dev/shm | tail -n 1)
  ((used_after <= used_before + (64 << 20))) || fail "/dev/shm holds $((used_after - used_before)) bytes more"
  rm -f "$SHM/big.u64"
  end
fi

else
  begin "reserved beside the sort: key types, --unique, .npy, several inputs, a full tmpfs, SIGTERM"
  skip "$(nproc) cores: fewer than 16, the keys are sorted in the output's pages (tests/e2e/output_pages_test.sh)"
fi

summary
