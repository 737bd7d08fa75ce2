#!/usr/bin/env bash
# rmgsort sort on the GPUs through the command line (label gpu; skipped where there is no GPU):
# every key type, a few distributions that take different paths (one pass, several passes, all
# passes with last-pass splits, special values), on one GPU and on every GPU (up to 4), at edge
# sizes (0, 1, 3, 7 keys, counts not divisible by g), in both orders. Each output must be a sorted
# permutation of its input (rmgsort check --input) and must come from the GPU engine. The full
# type x distribution x g x size matrix runs in-process in tests/gpu/in_core_sort_test.cpp: each
# command here starts the CUDA contexts anew. Inputs larger than --gpu-memory are sorted in rounds.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

gpus_present=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [[ ${gpus_present:-0} -eq 0 ]]; then
  echo "no GPU: skipped"
  exit 77
fi
max_gpus=$((gpus_present < 4 ? gpus_present : 4))
# Every GPU by number: --gpus all sends an input as small as these tests' to the CPU.
every_gpu=$(seq -s, 0 $((gpus_present - 1)))

engine_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["engine"])' "$1"; }

for type in u32 u64 i32 i64 f32 f64; do
  width=4; [[ $type == *64 ]] && width=8
  for dist in uniform zipf:1.0 bits:10 zero special; do
    for count in 7 1048579; do
      rmg generate -o "$WORK/in" -t "$type" --count "$count" --dist "$dist" --seed 11
      for g in $(printf '%s\n' 1 "$max_gpus" | sort -u); do
        list=$(seq -s, 0 $((g - 1)))
        orders=("")
        [[ $g -eq $max_gpus ]] && orders+=("-r")
        for order in "${orders[@]}"; do
          begin "$type $dist n=$count g=$g ${order:-ascending}"
          rmg sort "$WORK/in" -o "$WORK/out" -t "$type" $order --gpus "$list" --stats "$WORK/stats.json"
          expect_rc 0
          [[ $RC -eq 0 && $(engine_of "$WORK/stats.json") == gpu ]] || fail "not sorted by the GPU engine"
          rmg check "$WORK/out" -t "$type" $order --input "$WORK/in"
          expect_rc 0
          end
        done
      done
    done
  done
done

# --gpus all (the default): an input the CPU sorts before the GPUs have started goes to the CPU, and
# the CUDA driver is not started (sort/small_input.hpp: 64 MiB a thread); a device list forces the GPUs.
stat_field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
rmg generate -o "$WORK/in" -t u64 --count 1000 --seed 8
begin "--gpus all (the default), 1000 keys: the CPU sorts them, cpu_because says why, no GPU selected"
rmg sort "$WORK/in" -o "$WORK/out" -t u64 --stats "$WORK/stats.json"
expect_rc 0
if [[ $RC -eq 0 ]]; then
  [[ $(engine_of "$WORK/stats.json") == cpu ]] || fail "engine $(engine_of "$WORK/stats.json"), expected cpu"
  [[ $(stat_field "$WORK/stats.json" cpu_because) == *"small input"* ]] || fail "cpu_because: $(stat_field "$WORK/stats.json" cpu_because)"
  [[ $(stat_field "$WORK/stats.json" gpus_selected) == "[]" ]] || fail "gpus_selected: $(stat_field "$WORK/stats.json" gpus_selected)"
fi
rmg check "$WORK/out" -t u64 --input "$WORK/in"
expect_rc 0
end
begin "--gpus 0, 1000 keys: a device list forces the GPUs; --stats: cpu_because null, the GPU block in seconds"
rmg sort "$WORK/in" -o "$WORK/out" -t u64 --gpus 0 --stats "$WORK/stats.json"
expect_rc 0
[[ $RC -ne 0 || $(engine_of "$WORK/stats.json") == gpu ]] || fail "not sorted by the GPU engine"
if [[ $RC -eq 0 ]]; then
  why=$(python3 "$KEYS_PY" stats "$WORK/stats.json" status=ok cpu_because=None gpus_selected=[0] \
    'gpu.total_seconds>0' 'gpu.round_keys_planned>999') || fail "$why"
fi
rmg check "$WORK/out" -t u64 --input "$WORK/in"
expect_rc 0
end
rmg generate -o "$WORK/in" -t u64 --count 10000019 --seed 8
begin "--gpus all --threads 1, 80 MB of u64 keys (over 64 MiB a thread): the GPUs, every one selected"
rmg sort "$WORK/in" -o "$WORK/out" -t u64 --gpus all --threads 1 --stats "$WORK/stats.json"
expect_rc 0
if [[ $RC -eq 0 ]]; then
  [[ $(engine_of "$WORK/stats.json") == gpu ]] || fail "not sorted by the GPU engine"
  [[ $(stat_field "$WORK/stats.json" gpus_selected) == "[$(seq -s ', ' 0 $((gpus_present - 1)))]" ]] ||
    fail "gpus_selected: $(stat_field "$WORK/stats.json" gpus_selected)"
fi
rmg check "$WORK/out" -t u64 --input "$WORK/in"
expect_rc 0
end

begin "empty input on the GPUs"
: >"$WORK/empty"
rmg sort "$WORK/empty" -o "$WORK/out" -t u32 --gpus "$every_gpu"
expect_rc 0
[[ -f "$WORK/out" && ! -s "$WORK/out" ]] || fail "output is not an empty file"
end

begin "fewer keys than GPUs, all GPUs"
rmg generate -o "$WORK/in" -t f64 --count 3 --dist special --seed 2
rmg sort "$WORK/in" -o "$WORK/out" -t f64 --gpus "$every_gpu"
expect_rc 0
rmg check "$WORK/out" -t f64 --input "$WORK/in"
expect_rc 0
end

begin "stdin to stdout on the GPUs"
rmg generate -o "$WORK/in" -t i64 --count 100003 --dist zipf:1.0 --seed 3
run "$RMGSORT" sort -t i64 --gpus "$every_gpu" --stats "$WORK/stats.json" <"$WORK/in"
expect_rc 0
cp "$WORK/stdout" "$WORK/out"
[[ $(engine_of "$WORK/stats.json") == gpu ]] || fail "not sorted by the GPU engine"
rmg check "$WORK/out" -t i64 --input "$WORK/in"
expect_rc 0
end

begin "--verify on the GPU path: order and checksum checked before the commit"
rmg generate -o "$WORK/in" -t f32 --count 300007 --dist special --seed 6
rmg sort "$WORK/in" -o "$WORK/out" -t f32 -r --gpus "$every_gpu" --verify --stats "$WORK/stats.json"
expect_rc 0
[[ $(engine_of "$WORK/stats.json") == gpu ]] || fail "not sorted by the GPU engine"
grep -q '"verified":true' "$WORK/stats.json" || fail "stats do not say the output was verified"
rmg check "$WORK/out" -t f32 -r --input "$WORK/in"
expect_rc 0
end

# Inputs larger than --gpu-memory: partitioned on the CPU into rounds, each sorted on the GPUs
# (--gpu-memory 8M holds about 0.9 million 4-byte keys per GPU: 4 million per GPU make 4 rounds or more).
rounds_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rounds"])' "$1"; }
sorters_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["gpu"]["concurrent_sorters"])' "$1"; }
# expect_rounds STATS COUNTED: STATS shows at least 3 rounds, sorted by two sorters at once (bare keys
# in rounds in memory: one round's copy back beside the next one's copy in), and whether the
# partition was given the top-digit histogram counted while the input was read (COUNTED: True or False).
expect_rounds() {
  local rounds counted sorters
  rounds=$(rounds_of "$1")
  ((rounds >= 3)) || fail "expected at least 3 rounds, got $rounds"
  sorters=$(sorters_of "$1")
  [[ $sorters == 2 ]] || fail "expected two sorters for rounds in memory, got $sorters"
  counted=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["round_partition"]["top_digits_counted_while_reading"])' "$1")
  [[ $counted == "$2" ]] || fail "top digits counted while reading: $counted, expected $2"
}
for type in u32 u64 i32 i64 f32 f64; do
  for dist in uniform zipf:2.0 zero special; do
    for g in $(printf '%s\n' 1 "$max_gpus" | sort -u); do
      list=$(seq -s, 0 $((g - 1)))
      count=$((4000037 * g))
      rmg generate -o "$WORK/in" -t "$type" --count "$count" --dist "$dist" --seed 4
      for order in "" "-r"; do
        begin "rounds: $type $dist n=$count g=$g --gpu-memory 8M ${order:-ascending} --verify"
        rmg sort "$WORK/in" -o "$WORK/out" -t "$type" $order --gpus "$list" --gpu-memory 8M --verify \
          --stats "$WORK/stats.json"
        expect_rc 0
        if [[ $RC -eq 0 ]]; then
          [[ $(engine_of "$WORK/stats.json") == gpu ]] || fail "not sorted by the GPU engine"
          expect_rounds "$WORK/stats.json" True
          # Two sorters of half the memory each: together within --gpu-memory on every GPU.
          python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); m=d["peak_device_memory_bytes"]
sys.exit(0 if len(m) == int(sys.argv[2]) and all(0 < b <= 8 << 20 for b in m) else 1)' "$WORK/stats.json" "$g" ||
            fail "device memory beyond --gpu-memory 8M: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["peak_device_memory_bytes"])' "$WORK/stats.json")"
        fi
        rmg check "$WORK/out" -t "$type" $order --input "$WORK/in"
        expect_rc 0
        end
      done
    done
  done
done

begin "larger than --host-memory on the GPUs: spilled, rounds sorted on the GPUs, temp dir empty"
mkdir -p "$WORK/temp"
rmg generate -o "$WORK/in" -t f32 --count 5000000 --dist normal --seed 6
rmg sort "$WORK/in" -o "$WORK/out" -t f32 --gpus "$every_gpu" --host-memory 8M -T "$WORK/temp" --verify --stats "$WORK/stats.json"
expect_rc 0
if [[ $RC -eq 0 ]]; then
  [[ $(engine_of "$WORK/stats.json") == gpu ]] || fail "not sorted by the GPU engine"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["spilled"] and d["rounds"] >= 3 else 1)' \
    "$WORK/stats.json" || fail "expected a spill and at least 3 rounds"
  [[ $(sorters_of "$WORK/stats.json") == 1 ]] || fail "the spill path sorts a round at a time with one sorter"
fi
rmg check "$WORK/out" -t f32 --input "$WORK/in"
expect_rc 0
[[ -z $(ls -A "$WORK/temp") ]] || fail "spill files left"
end

begin "rounds from stdin to stdout on the GPUs"
rmg generate -o "$WORK/in" -t u64 --count 4000000 --dist normal --seed 5
"$RMGSORT" sort -t u64 --gpus 0 --gpu-memory 16M --stats "$WORK/stats.json" <"$WORK/in" >"$WORK/out"
RC=$?
expect_rc 0
# A file behind standard input is read as a file: its top digits are counted while it is read.
[[ $RC -ne 0 ]] || expect_rounds "$WORK/stats.json" True
rmg check "$WORK/out" -t u64 --input "$WORK/in"
expect_rc 0
end

begin "rounds page-locked once, beside the partition, and released: --stats tells it"
"$RMGSORT" sort "$WORK/in" -o "$WORK/out" -t u64 --gpus 0 --gpu-memory 16M --stats "$WORK/stats.json"
expect_rc 0
python3 - "$WORK/stats.json" "$(stat -c %s "$WORK/in")" <<'PY' || fail "gpu.host_page_locking is not the whole partition buffer, registered beside the partition and released"
import json, sys
locked = json.load(open(sys.argv[1]))["gpu"]["host_page_locking"]
# The partition buffer: the input's bytes rounded up to whole pages.
sys.exit(0 if 0 <= locked["bytes"] - int(sys.argv[2]) < 4096 and locked["beside"] == "partition" and locked["failure"] is None and locked["seconds"] > 0
         and locked["release_seconds"] > 0 and locked["waited_seconds"] >= 0 else 1)
PY
rmg check "$WORK/out" -t u64 --input "$WORK/in"
expect_rc 0
end

begin "keys sorted where they lie are page-locked beside the read: --stats tells it"
"$RMGSORT" sort "$WORK/in" -o "$WORK/out" -t u64 --gpus 0 --stats "$WORK/stats.json"
expect_rc 0
python3 - "$WORK/stats.json" "$(stat -c %s "$WORK/in")" <<'PY' || fail "gpu.host_page_locking is not the whole input, registered beside the read"
import json, sys
stats = json.load(open(sys.argv[1]))
locked = stats["gpu"]["host_page_locking"]
sys.exit(0 if stats["rounds"] == 1 and 0 <= locked["bytes"] - int(sys.argv[2]) < 4096 and locked["beside"] == "read"
         and locked["failure"] is None and locked["seconds"] > 0 else 1)
PY
rmg check "$WORK/out" -t u64 --input "$WORK/in"
expect_rc 0
end

begin "rounds from a pipe to a pipe on the GPUs"
cat "$WORK/in" | "$RMGSORT" sort -t u64 --gpus 0 --gpu-memory 16M --stats "$WORK/stats.json" | cat >"$WORK/out"
RC=${PIPESTATUS[1]}
expect_rc 0
# A pipe's length is known only at its end: the partition counts the top digits itself.
[[ $RC -ne 0 ]] || expect_rounds "$WORK/stats.json" False
rmg check "$WORK/out" -t u64 --input "$WORK/in"
expect_rc 0
end

# Records (--record-size, --key-offset, bytes:N): the GPUs sort them as pairs or by their tags. A
# stable sort has one right answer, so every GPU output must be the CPU's byte for byte (its tests
# compare it with numpy in records_test.sh): in memory, in rounds (a small --gpu-memory), with and
# without the input positions.
make_records() {  # make_records FILE COUNT RECORD_SIZE KEY_OFFSET KEY_BYTES: few distinct keys, payload = index
  python3 - "$@" <<'PY'
import random, struct, sys
path, count, size, offset, width = sys.argv[1], *map(int, sys.argv[2:])
rng = random.Random(count * 31 + size)
keys = [rng.randbytes(width) for _ in range(5)]
keys[0] = struct.pack("<d", float("nan"))[:width].ljust(width, b"\0")
out = bytearray()
for i in range(count):
    record = bytearray(struct.pack("<Q", i) * (size // 8 + 1))[:size]
    record[offset:offset + width] = rng.choice(keys) if rng.random() < 0.7 else rng.randbytes(width)
    out += record
open(path, "wb").write(out)
PY
}
# Records of a key and at most 8 more bytes (the first five layouts) are carried whole through the
# GPUs as pairs unless their positions are wanted; bare keys (the last three) are pairs of key and
# input position when their positions are wanted; each layout runs both ways.
for layout in "u64 16 0 8" "u32 12 8 4" "i64 9 1 8" "bytes:3 11 4 3" "f32 8 4 4" \
  "u32 13 3 4" "f64 12 4 8" "bytes:10 100 0 10" "bytes:16 24 8 16" "bytes:3 12 4 3" \
  "u64 8 0 8" "f32 4 0 4" "i32 4 0 4"; do
  read -r type size offset width <<<"$layout"
  for count in 1 7 200003; do
    make_records "$WORK/rin" "$count" "$size" "$offset" "$width"
    args=(-t "$type" --record-size "$size" --key-offset "$offset")
    for order in "" "-r"; do
      rmg sort "$WORK/rin" -o "$WORK/cpu" "${args[@]}" $order --gpus none --index-output "$WORK/cpu.idx"
      for gpu_args in "--gpus $every_gpu" "--gpus 0 --gpu-memory 16M"; do
        for with_index in yes no; do
          begin "records $type size=$size offset=$offset n=$count ${order:-ascending} $gpu_args index=$with_index"
          index_args=()
          [[ $with_index == yes ]] && index_args=(--index-output "$WORK/gpu.idx")
          rmg sort "$WORK/rin" -o "$WORK/gpu" "${args[@]}" $order $gpu_args --stats "$WORK/stats.json" \
            "${index_args[@]}"
          expect_rc 0
          [[ $RC -eq 0 && $(engine_of "$WORK/stats.json") == gpu ]] || fail "not sorted by the GPU engine"
          cmp -s "$WORK/cpu" "$WORK/gpu" || fail "the GPUs' records differ from the CPU's"
          if [[ $with_index == yes ]]; then
            cmp -s "$WORK/cpu.idx" "$WORK/gpu.idx" || fail "the GPUs' positions differ from the CPU's"
          fi
          end
        done
      done
    done
  done
done

# NumPy .npy input on the GPUs: in one round and in rounds (--gpu-memory 4M holds fewer than these
# 300007 records with their positions: 2 rounds or more), simple and structured arrays, with the index and
# --verify: the output must be the CPU's byte for byte (header included).
python3 - "$WORK" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(5)
n = 300007
np.save(sys.argv[1] + "/simple.npy", rng.integers(0, 1 << 40, n, dtype="<u8"))
rows = np.zeros(n, dtype=[("id", "<u4"), ("price", "<f8"), ("tag", "S3")])
rows["id"] = np.arange(n)
rows["price"] = rng.integers(0, 50, n).astype("<f8")  # ties: stability shows in "id"
rows["tag"] = np.array([b"abc", b"abd", b"zz"], dtype="S3")[rng.integers(0, 3, n)]
np.save(sys.argv[1] + "/rows.npy", rows)
PY
for case in "simple.npy" "rows.npy --key price" "rows.npy --key tag"; do
  read -r file key_args <<<"$case"
  for order in "" "-r"; do
    rmg sort "$WORK/$file" -o "$WORK/cpu.npy" $key_args $order --gpus none --index-output "$WORK/cpu.idx.npy"
    for gpu_args in "--gpus $every_gpu" "--gpus 0 --gpu-memory 4M"; do
      begin "npy $case ${order:-ascending} $gpu_args --verify"
      rmg sort "$WORK/$file" -o "$WORK/gpu.npy" $key_args $order $gpu_args --stats "$WORK/stats.json" \
        --index-output "$WORK/gpu.idx.npy" --verify
      expect_rc 0
      [[ $RC -eq 0 && $(engine_of "$WORK/stats.json") == gpu ]] || fail "not sorted by the GPU engine"
      if [[ $RC -eq 0 && $gpu_args == *gpu-memory* ]]; then
        rounds=$(rounds_of "$WORK/stats.json")
        ((rounds >= 2)) || fail "expected at least 2 rounds, got $rounds"
      fi
      cmp -s "$WORK/cpu.npy" "$WORK/gpu.npy" || fail "the GPUs' .npy output differs from the CPU's"
      cmp -s "$WORK/cpu.idx.npy" "$WORK/gpu.idx.npy" || fail "the GPUs' .npy index differs from the CPU's"
      end
    done
  done
done

# --unique and several inputs on the GPUs (issue 15): each output must be the CPU's byte for byte
# (tests/e2e/unique_test.sh and several_inputs_test.sh compare the CPU's with numpy), on every GPU
# path: in memory, in rounds (--gpu-memory 8M: the sink filters each round, runs of equal keys going
# on across rounds), through spill files (--host-memory 8M), with positions.
# same_as_cpu NAME ARGS...: rmgsort sort ARGS... on the GPUs (gpu.out, gpu.idx) is the CPU's, and
# ran on the GPU engine; CPU_ROUNDS (when set) says at least that many rounds.
same_as_cpu() {
  local name=$1
  shift
  "$RMGSORT" sort "$@" --gpus none -o "$WORK/cpu.out" --index-output "$WORK/cpu.idx" 2>/dev/null
  for gpu_args in "--gpus $every_gpu" "--gpus 0 --gpu-memory 8M" "--gpus $every_gpu --host-memory 8M -T $WORK"; do
    begin "$name, $gpu_args"
    rmg sort "$@" $gpu_args -o "$WORK/gpu.out" --index-output "$WORK/gpu.idx" --stats "$WORK/stats.json"
    expect_rc 0
    [[ $RC -eq 0 && $(engine_of "$WORK/stats.json") == gpu ]] || fail "not sorted by the GPU engine"
    if [[ $RC -eq 0 && $gpu_args == *gpu-memory* ]]; then
      rounds=$(rounds_of "$WORK/stats.json")
      ((rounds >= 2)) || fail "expected at least 2 rounds, got $rounds"
    fi
    cmp -s "$WORK/cpu.out" "$WORK/gpu.out" || fail "the GPUs' output differs from the CPU's"
    cmp -s "$WORK/cpu.idx" "$WORK/gpu.idx" || fail "the GPUs' positions differ from the CPU's"
    end
  done
}
rmg generate -o "$WORK/u1" -t u32 --count 4000037 --dist zipf:1.0 --seed 21
rmg generate -o "$WORK/u2" -t u32 --count 3000017 --dist zipf:1.0 --seed 22
rmg generate -o "$WORK/f1" -t f32 --count 3000017 --dist special --seed 23
make_records "$WORK/r1" 2000003 13 3 4
same_as_cpu "unique u32 zipf" "$WORK/u1" -t u32 -u
same_as_cpu "unique u32 zipf, descending" "$WORK/u1" -t u32 -u -r
same_as_cpu "unique f32 specials (NaNs by bit pattern, -0.0 and +0.0)" "$WORK/f1" -t f32 -u
same_as_cpu "unique 13-byte records (u32 at 3)" "$WORK/r1" -t u32 --record-size 13 --key-offset 3 -u
same_as_cpu "two inputs" "$WORK/u1" "$WORK/u2" -t u32
same_as_cpu "two inputs, unique" "$WORK/u1" "$WORK/u2" -t u32 -u
python3 - "$WORK" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(9)
np.save(sys.argv[1] + "/dup.npy", rng.integers(0, 100000, 3000017, dtype="<u8"))
PY
for gpu_args in "--gpus $every_gpu" "--gpus 0 --gpu-memory 8M"; do
  begin "unique .npy, $gpu_args: the header's shape the count kept, the CPU's bytes"
  rmg sort "$WORK/dup.npy" -u --gpus none -o "$WORK/cpu.npy" --index-output "$WORK/cpu.idx.npy"
  rmg sort "$WORK/dup.npy" -u $gpu_args -o "$WORK/gpu.npy" --index-output "$WORK/gpu.idx.npy" --stats "$WORK/stats.json"
  expect_rc 0
  [[ $RC -eq 0 && $(engine_of "$WORK/stats.json") == gpu ]] || fail "not sorted by the GPU engine"
  cmp -s "$WORK/cpu.npy" "$WORK/gpu.npy" || fail "the GPUs' .npy output differs from the CPU's"
  cmp -s "$WORK/cpu.idx.npy" "$WORK/gpu.idx.npy" || fail "the GPUs' .npy index differs from the CPU's"
  end
done
begin "several inputs with stdin (a pipe) among them, in rounds on the GPUs"
"$RMGSORT" sort "$WORK/u1" - -t u32 --gpus none -o "$WORK/cpu.out" < <(cat "$WORK/u2")
"$RMGSORT" sort "$WORK/u1" - -t u32 --gpus 0 --gpu-memory 8M -o "$WORK/gpu.out" --stats "$WORK/stats.json" < <(cat "$WORK/u2")
RC=$?
expect_rc 0
[[ $RC -eq 0 && $(engine_of "$WORK/stats.json") == gpu ]] || fail "not sorted by the GPU engine"
cmp -s "$WORK/cpu.out" "$WORK/gpu.out" || fail "the GPUs' output differs from the CPU's"
end

summary
