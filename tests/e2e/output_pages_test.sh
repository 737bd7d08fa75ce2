#!/usr/bin/env bash
# rmgsort sort into an output on tmpfs, sorted in the output file's own pages (io/output_pages.hpp):
# the input is read into the staged output file's mapping and sorted there. Against the independent
# numpy reference (tests/e2e/pipeline_ref.py): every key type, both orders, --unique (the file cut back
# after the records kept), --verify, .npy input and output (the records after the header), several
# inputs (.npy ones too; from tmpfs and from a disk, closed until read under a low open-file limit),
# an output that is the input or replaces a file, (u64, u64) records (sorted as pairs in place).
# --stats says sorted_in_output_file. The CPU's bare keys without --verify are sorted there on up to
# 15 threads (--threads 4 here): on more, their output's pages are reserved beside the sort instead
# (tests/e2e/output_reservation_test.sh). What is not sorted in place (wider records, --index-output, a
# disk output, standard output's file) is written as before: standard output's file with the shell's
# next write after the keys, refused when opened read-only (untouched), cut back by a signal in its
# read and in its sort, and ended by that signal (not SIGBUS) without a word. A full tmpfs fails with exit
# 2, naming the output, and leaves the old output and nothing else. On a GPU host: the GPUs'
# in-memory sort, bare keys (--verify too) and (u64, u64) records, in the output's pages too, and
# rounds (larger than --gpu-memory) partitioned into the output's pages (-u and .npy too).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_numpy_python
require_tmpfs_shm
D=$WORK/disk
mkdir -p "$D"

# expect_in_pages STATS True|False: whether the keys were sorted in the output's pages.
expect_in_pages() {
  local got
  got=$(stat_of "$1" sorted_in_output_file)
  [[ $got == "$2" ]] || fail "stats: sorted_in_output_file $got, expected $2"
}

"$PY" - "$SHM" "$D" <<'PY' || { echo "setup failed"; exit 2; }
import sys
import numpy as np
shm, disk = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(23)
n = 300007
ints = {"u32": np.uint32, "i32": np.int32, "u64": np.uint64, "i64": np.int64}
for name, t in ints.items():
    info = np.iinfo(t)
    keys = rng.integers(info.min, info.max, n, dtype=t, endpoint=True)
    keys[:5] = [info.min, info.max, 0, info.min, info.max]
    keys[5:2000] = keys[2000:3995]  # repeats
    keys.tofile(f"{shm}/keys.{name}")
specials = {"f32": np.array([0x7fc00000, 0xffc00000, 0x80000000, 0, 0x7f800000, 0xff800000, 1], dtype="<u4"),
            "f64": np.array([0x7ff8000000000000, 0xfff8000000000000, 0x8000000000000000, 0, 0x7ff0000000000000,
                             0xfff0000000000000, 1], dtype="<u8")}
for name, t in {"f32": np.float32, "f64": np.float64}.items():
    keys = rng.standard_normal(n).astype(t)
    bits = keys.view(specials[name].dtype)
    bits[rng.integers(0, n, 3000)] = rng.choice(specials[name], 3000)
    keys.tofile(f"{shm}/keys.{name}")
np.fromfile(f"{shm}/keys.u64", dtype="<u8").tofile(f"{disk}/keys.u64")
np.save(f"{shm}/keys.npy", np.fromfile(f"{shm}/keys.i64", dtype="<i8"))
np.save(f"{shm}/small.npy", np.array([7, -1, 2**62, 0, 7], dtype="<i8"))
rec = np.zeros(n, dtype=[("key", "<u8"), ("payload", "<u8")])
rec["key"] = rng.integers(0, 1000, n)
rec["payload"] = np.arange(n)
rec.tofile(f"{shm}/pairs.rec")
wide = rng.integers(0, 256, (n, 13), dtype=np.uint8)
wide[:, 5:9] = rng.integers(0, 50, (n, 1), dtype="<u4").view(np.uint8)
wide.tofile(f"{shm}/wide.rec")
for i in range(40):
    np.fromfile(f"{shm}/keys.u64", dtype="<u8")[i * 7000:(i + 1) * 7000 + i].tofile(f"{shm}/part{i:02d}.u64")
open(f"{shm}/empty.u64", "wb").close()
PY

echo "== every key type, both orders, --unique, --verify"
for type in u32 i32 u64 i64 f32 f64; do
  for order in asc desc; do
    r=() desc=()
    [[ $order == desc ]] && r=(-r) desc=(--desc)
    begin "$type keys, $order: sorted in the output's pages, the reference's order"
    rmg sort "$SHM/keys.$type" -t "$type" "${r[@]}" -o "$SHM/out" --gpus none --threads 4 --stats "$SHM/stats.json"
    expect_rc 0
    expect_stderr_empty
    width=$(( ${type#[uif]} / 8 ))
    pipeline_ref_agrees "${desc[@]}" --raw "$type" "$width" 0 "$SHM/out" - "$SHM/keys.$type"
    expect_in_pages "$SHM/stats.json" True
    [[ $(stat_of "$SHM/stats.json" written_while_sorting_bytes) == 0 ]] || fail "stats: written while sorting"
    end

    begin "$type keys, $order, --unique --verify: the first of each run, the file cut back after them"
    rmg sort "$SHM/keys.$type" -t "$type" "${r[@]}" -u --verify -o "$SHM/out" --gpus none --stats "$SHM/stats.json"
    expect_rc 0
    pipeline_ref_agrees --unique "${desc[@]}" --raw "$type" "$width" 0 "$SHM/out" - "$SHM/keys.$type"
    expect_in_pages "$SHM/stats.json" True
    [[ $(stat_of "$SHM/stats.json" verified) == True ]] || fail "stats: verified"
    kept=$(($(stat -c %s "$SHM/out") / width))
    [[ $(stat_of "$SHM/stats.json" records_kept) == "$kept" ]] || fail "stats: records_kept, wrote $kept"
    end
  done
done

echo "== .npy, several inputs, outputs that are inputs"
begin ".npy i64 in and out, -u: the records after the header, its shape the count kept"
rmg sort "$SHM/keys.npy" -u -o "$SHM/out.npy" --gpus none --threads 4 --stats "$SHM/stats.json"
expect_rc 0
pipeline_ref_agrees --unique --npy "$SHM/out.npy" - "$SHM/keys.npy"
expect_in_pages "$SHM/stats.json" True
end

begin "raw input, .npy output (generate's header before the records)"
rmg sort "$SHM/keys.u32" -t u32 -o "$SHM/out.npy" --gpus none --threads 4 --stats "$SHM/stats.json"
expect_rc 0
expect_in_pages "$SHM/stats.json" True
"$PY" -c 'import sys, numpy as np
a = np.load(sys.argv[1]); b = np.sort(np.fromfile(sys.argv[2], dtype="<u4"))
sys.exit(0 if a.dtype == np.dtype("<u4") and np.array_equal(a, b) else 1)' "$SHM/out.npy" "$SHM/keys.u32" ||
  fail "the .npy output is not the keys sorted"
end

begin "41 inputs (an empty one, one from a disk) under ulimit -n 64: those beyond 32 closed until read, read in order"
inputs=("$SHM"/part*.u64 "$SHM/empty.u64" "$D/keys.u64")
( ulimit -n 64 && exec "$RMGSORT" sort "${inputs[@]}" -t u64 -o "$SHM/out" --gpus none --threads 4 \
  --stats "$SHM/stats.json" ) >"$WORK/stdout" 2>"$WORK/stderr"
RC=$?
expect_rc 0
pipeline_ref_agrees --raw u64 8 0 "$SHM/out" - "${inputs[@]}"
expect_in_pages "$SHM/stats.json" True
end

begin "three .npy inputs (each with its header): their records read after each header, in order"
rmg sort "$SHM/keys.npy" "$SHM/small.npy" "$SHM/keys.npy" -o "$SHM/out.npy" --gpus none --threads 4 \
  --stats "$SHM/stats.json"
expect_rc 0
pipeline_ref_agrees --npy "$SHM/out.npy" - "$SHM/keys.npy" "$SHM/small.npy" "$SHM/keys.npy"
expect_in_pages "$SHM/stats.json" True
end

begin "the output is the input, and an output that replaces a file: sorted, nothing left beside it"
cp "$SHM/keys.u64" "$SHM/self.u64"
rmg sort "$SHM/self.u64" -t u64 -o "$SHM/self.u64" --gpus none --threads 4
expect_rc 0
pipeline_ref_agrees --raw u64 8 0 "$SHM/self.u64" - "$SHM/keys.u64"
echo old >"$SHM/old"
rmg sort "$D/keys.u64" -t u64 -o "$SHM/old" --gpus none --threads 4
expect_rc 0
pipeline_ref_agrees --raw u64 8 0 "$SHM/old" - "$SHM/keys.u64"
expect_no_temp "$SHM"
end

begin "(u64 key, u64) records on the CPU, -u: sorted as pairs where they lie, in the output's pages, stable"
rmg sort "$SHM/pairs.rec" -t u64 --record-size 16 -u -o "$SHM/out" --gpus none --stats "$SHM/stats.json"
expect_rc 0
pipeline_ref_agrees --unique --raw u64 16 0 "$SHM/out" - "$SHM/pairs.rec"
expect_in_pages "$SHM/stats.json" True
end

echo "== written as before"
begin "wider records, --index-output, a disk output, standard output appended to: not in the output's pages"
rmg sort "$SHM/wide.rec" -t u32 --record-size 13 --key-offset 5 -o "$SHM/out" --gpus none --stats "$SHM/stats.json"
expect_rc 0
pipeline_ref_agrees --raw u32 13 5 "$SHM/out" - "$SHM/wide.rec"
expect_in_pages "$SHM/stats.json" False
rmg sort "$SHM/keys.u64" -t u64 -o "$SHM/out" --index-output "$SHM/idx" --gpus none --stats "$SHM/stats.json"
expect_rc 0
pipeline_ref_agrees --raw u64 8 0 "$SHM/out" "$SHM/idx" "$SHM/keys.u64"
expect_in_pages "$SHM/stats.json" False
rmg sort "$SHM/keys.u64" -t u64 -o "$D/out" --gpus none --stats "$SHM/stats.json"
expect_rc 0
pipeline_ref_agrees --raw u64 8 0 "$D/out" - "$SHM/keys.u64"
expect_in_pages "$SHM/stats.json" False
# Appended to (>>): a header would land after the records; written as before.
: >"$SHM/appended.npy"
run "$RMGSORT" sort "$SHM/keys.npy" --gpus none --stats "$SHM/stats.json"
cat "$WORK/stdout" >>"$SHM/appended.npy"
"$RMGSORT" sort "$SHM/keys.npy" --gpus none --stats "$SHM/stats.json" >>"$SHM/appended-direct.npy"
expect_rc 0
expect_same "$SHM/appended-direct.npy" "$SHM/appended.npy"
pipeline_ref_agrees --npy "$SHM/appended.npy" - "$SHM/keys.npy"
expect_in_pages "$SHM/stats.json" False
end

begin "standard output's file on tmpfs (> FILE): written as before, others hold it; the shell's next write after the keys"
{ "$RMGSORT" sort "$SHM/keys.u64" -t u64 -u --gpus none --stats "$SHM/stats.json" && printf tail; } >"$SHM/stdout.u64"
kept=$(stat_of "$SHM/stats.json" records_kept)
expect_size "$SHM/stdout.u64" $((kept * 8 + 4))
head -c $((kept * 8)) "$SHM/stdout.u64" >"$SHM/stdout-keys.u64"
pipeline_ref_agrees --unique --raw u64 8 0 "$SHM/stdout-keys.u64" - "$SHM/keys.u64"
[[ $(tail -c 4 "$SHM/stdout.u64") == tail ]] || fail "what the shell wrote after the keys is not after them"
expect_in_pages "$SHM/stats.json" False
end

# The file's permissions would let a descriptor opened again through /proc write to it; the one the
# shell gave is read-only: the run fails as writing to it fails, and the file keeps its bytes.
begin "standard output's file on tmpfs opened read-only (1< FILE): exit 2, the file untouched, empty or not"
: >"$SHM/read-only"
"$RMGSORT" sort "$SHM/keys.u64" -t u64 --gpus none 1<"$SHM/read-only" 2>"$WORK/stderr"
RC=$?
expect_rc 2
expect_error_message
expect_stderr "standard output" "Bad file descriptor"
expect_size "$SHM/read-only" 0
printf 'hello world' >"$SHM/read-only"
"$RMGSORT" sort "$SHM/keys.u64" -t u64 --gpus none 1<"$SHM/read-only" 2>"$WORK/stderr"
RC=$?
expect_rc 2
[[ $(cat "$SHM/read-only") == "hello world" ]] || fail "the read-only file changed: $(head -c 40 "$SHM/read-only" | od -c | head -2)"
end

begin "SIGTERM while 1 GiB is read for standard output's file, and while it is sorted and written: exit 143, the file cut back to empty"
if (($(df --output=avail -B1 /dev/shm | tail -n 1) < 3 * 2 ** 30)); then
  skip "less than 3 GiB free in /dev/shm"
else
  "$RMGSORT" generate -t u64 --count $((1 << 27)) -o "$SHM/big.u64" --progress never
  # The progress line says which phase the run is in. Killed while sorting, the writer's threads store
  # into the file's mapping (sort/sorted_prefix_writer.hpp), whose pages the handler has cut off: they
  # wait for it to end the process by SIGTERM (not SIGBUS).
  for phase in reading sorting; do
    for pause in 0 0.05; do
      # One thread: seconds per phase even on a host of many cores, time to be caught in it.
      "${DEFAULT_SIGNALS[@]}" "$RMGSORT" sort "$SHM/big.u64" -t u64 --gpus none --threads 1 --progress always \
        >"$SHM/killed.u64" 2>"$WORK/progress" &
      pid=$!
      for ((i = 0; i < 4000; i++)); do grep -q "rmgsort: $phase" "$WORK/progress" && break; sleep 0.005; done
      sleep $pause
      kill -TERM $pid
      wait_or_kill $pid
      [[ $RC -eq 143 ]] || fail "killed while $phase (+${pause} s): exit status $RC, expected 143"
      # The writer's thread may be growing the file when the handler cuts it back (MappedOutput's
      # ftruncate before its next piece): the lowered file size limit refuses that growth, and the
      # error it meets is not reported (a loaded 2-core machine once left 256 MiB of the file).
      expect_size "$SHM/killed.u64" 0
      tr '\r' '\n' <"$WORK/progress" | grep -v '^\(.\[K\)\?rmgsort: \(reading\|sorting\|writing\) \|^$' >"$WORK/said" || true
      [[ ! -s $WORK/said ]] || fail "killed while $phase: said $(head -c 300 "$WORK/said")"
    done
  done
  rm -f "$SHM/big.u64"
  end
fi

begin "a tmpfs too small for the output: exit 2 naming it, the old output intact, nothing left"
small=$WORK/small
mkdir -p "$small"
if [[ $(id -u) -ne 0 ]] || ! mount -t tmpfs -o size=1m rmgsort-e2e "$small" 2>/dev/null; then
  skip "mounting a small tmpfs needs root"
else
  E2E_CLEANUP+=("umount -l '$small'")
  echo old >"$small/out"
  rmg sort "$SHM/keys.u64" -t u64 -o "$small/out" --gpus none --threads 4
  expect_rc 2
  expect_error_message
  expect_stderr "$small/out" "No space left on device"
  [[ $(cat "$small/out") == old ]] || fail "the old output changed"
  expect_no_temp "$small"
  [[ $(ls -A "$small") == out ]] || fail "left in the small tmpfs: $(ls -A "$small")"
  end
fi

gpus_present=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [[ ${gpus_present:-0} -gt 0 ]]; then
  echo "== on the GPUs"
  for order in asc desc; do
    r=() desc=()
    [[ $order == desc ]] && r=(-r) desc=(--desc)
    begin "--gpus 0, f64 keys, $order: in the output's pages, page-locked there"
    rmg sort "$SHM/keys.f64" -t f64 "${r[@]}" -o "$SHM/out" --gpus 0 --stats "$SHM/stats.json"
    expect_rc 0
    pipeline_ref_agrees "${desc[@]}" --raw f64 8 0 "$SHM/out" - "$SHM/keys.f64"
    expect_in_pages "$SHM/stats.json" True
    [[ $(stat_of "$SHM/stats.json" engine) == gpu ]] || fail "stats: engine $(stat_of "$SHM/stats.json" engine)"
    # Released beside the write's end, before the pages were unmapped (not at the run's end).
    "$PY" -c 'import json,sys; l = json.load(open(sys.argv[1]))["gpu"]["host_page_locking"]
sys.exit(0 if l and l["bytes"] > 0 and l["release_seconds"] > 0 else 1)' "$SHM/stats.json" ||
      fail "stats: the page-locking was not released before the unmapping: $(head -c 600 "$SHM/stats.json")"
    end
  done
  begin "--gpus 0, u64 keys, --verify, .npy: in the output's pages, checked"
  rmg sort "$SHM/keys.npy" --verify -o "$SHM/out.npy" --gpus 0 --stats "$SHM/stats.json"
  expect_rc 0
  pipeline_ref_agrees --npy "$SHM/out.npy" - "$SHM/keys.npy"
  expect_in_pages "$SHM/stats.json" True
  [[ $(stat_of "$SHM/stats.json" verified) == True ]] || fail "stats: verified"
  end
  begin "--gpus 0, (u64, u64) records, -u: in the output's pages, stable"
  rmg sort "$SHM/pairs.rec" -t u64 --record-size 16 -u -o "$SHM/out" --gpus 0 --stats "$SHM/stats.json"
  expect_rc 0
  pipeline_ref_agrees --unique --raw u64 16 0 "$SHM/out" - "$SHM/pairs.rec"
  expect_in_pages "$SHM/stats.json" True
  end
  # Larger than --gpu-memory (8M: about 0.9 million 4-byte keys a round): partitioned into the
  # output's pages, reserved while the input is read, each round sorted there.
  rmg generate -o "$SHM/rounds.u32" -t u32 --count 4000037 --dist zipf:2.0 --seed 5
  rmg generate -o "$SHM/rounds.npy" -t f64 --count 2000029 --dist special --seed 6
  for order in asc desc; do
    r=() desc=()
    [[ $order == desc ]] && r=(-r) desc=(--desc)
    begin "--gpus 0 in rounds, u32 keys, $order, --verify: partitioned into the output's pages, sorted there"
    rmg sort "$SHM/rounds.u32" -t u32 "${r[@]}" --verify -o "$SHM/out" --gpus 0 --gpu-memory 8M --stats "$SHM/stats.json"
    expect_rc 0
    pipeline_ref_agrees "${desc[@]}" --raw u32 4 0 "$SHM/out" - "$SHM/rounds.u32"
    expect_in_pages "$SHM/stats.json" True
    (($(stat_of "$SHM/stats.json" rounds) >= 3)) || fail "stats: $(stat_of "$SHM/stats.json" rounds) rounds, expected 3 or more"
    end
  done
  begin "--gpus 0 in rounds, .npy f64 (NaNs, +-0, infinities), -u: the first of each run, closed up across rounds after the header"
  rmg sort "$SHM/rounds.npy" -u -o "$SHM/out.npy" --gpus 0 --gpu-memory 8M --stats "$SHM/stats.json"
  expect_rc 0
  pipeline_ref_agrees --unique --npy "$SHM/out.npy" - "$SHM/rounds.npy"
  expect_in_pages "$SHM/stats.json" True
  (($(stat_of "$SHM/stats.json" rounds) >= 3)) || fail "stats: $(stat_of "$SHM/stats.json" rounds) rounds, expected 3 or more"
  end
  begin "--gpus 0 in rounds to a disk file: written as before"
  rmg sort "$SHM/rounds.u32" -t u32 -o "$D/out" --gpus 0 --gpu-memory 8M --stats "$SHM/stats.json"
  expect_rc 0
  pipeline_ref_agrees --raw u32 4 0 "$D/out" - "$SHM/rounds.u32"
  expect_in_pages "$SHM/stats.json" False
  end
fi

summary
