#!/usr/bin/env bash
# rmgsort sort --distributed under Open MPI (mpirun --allow-run-as-root --oversubscribe -np 1..4) on
# the CPU (--gpus none): the output, and the --output-parts concatenated, byte-identical to one
# process's `rmgsort sort` (the sort is stable, so that is well defined); keys (u32, u64, f64 with NaNs
# and -0, i64 extremes) and records (a u64 at an unaligned offset of 13-byte records, bytes:10 at the
# end of 100-byte records), uniform, zipf and all-equal inputs, fewer records than ranks, .npy,
# --index-output, --unique across rank boundaries, --verify, --stats, --output-parts after a run of
# more ranks (its stale parts removed), the splitters over collected keys and level by level, and
# the exchange in one round and in hundreds (RMGSORT_EXCHANGE_STAGING_BYTES). Faults: one rank's input missing, ranks given
# inputs of different sizes, an unwritable output directory, a full file system (a 64 KiB tmpfs,
# skipped where it cannot be mounted), --unique with a share beyond --host-memory (refused), and a
# rank killed by SIGKILL: every one ends nonzero, commits nothing and leaves no temporary file. Outputs
# that are the input, each other, a part of the output or standard error's file: refused, nothing written.
# Shares beyond --host-memory go through a file and spill files, byte-identical too. Last, 2 ranks x 1 GPU, which runs only where there are 2 GPUs (skipped otherwise).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if ! command -v mpirun >/dev/null; then
  echo "mpirun (Open MPI: apt-get install openmpi-bin) is not on PATH; skipping"
  exit 77
fi
MPI=(mpirun --allow-run-as-root --oversubscribe -x RMGSORT_EXCHANGE_STAGING_BYTES)
export RMGSORT_EXCHANGE_STAGING_BYTES=""
CPU=(--gpus none --progress never)
D=$WORK/d
mkdir -p "$D"

# dsort NP ARGS...: mpirun -np NP rmgsort sort --distributed ARGS --gpus none (stdout, stderr and RC
# as run() keeps them).
dsort() {
  local np=$1
  shift
  run timeout 120 "${MPI[@]}" -np "$np" "$RMGSORT" sort --distributed "$@" "${CPU[@]}"
}

# expect_clean DIR: DIR holds only what KEEP names (a glob), no temporary and no part.
expect_clean() {
  local left
  left=$(find "$1" -mindepth 1 -maxdepth 1 ! -name "${2:-ref*}" -printf '%f ')
  [[ -z "$left" ]] || fail "left in $1: $left"
}

# same_as_one NPS INPUT ARGS...: for each NP of NPS, the distributed output (-o, and --index-output
# when ARGS ask for it through INDEX=1) and the parts concatenated equal one process's.
same_as_one() {
  local nps=$1 input=$2 np x=${SUFFIX:-}  # SUFFIX: the outputs' names end in it (.npy)
  shift 2
  local index=()
  [[ ${INDEX:-0} == 1 ]] && index=(--index-output "$D/ref.idx$x")
  rmg sort "$input" -o "$D/ref$x" "${index[@]}" "${CPU[@]}" "$@"
  [[ $RC -eq 0 ]] || { fail "one process: exit $RC"; return; }
  for np in $nps; do
    [[ ${INDEX:-0} == 1 ]] && index=(--index-output "$D/out.idx$x")
    dsort "$np" "$input" -o "$D/out$x" "${index[@]}" "$@"
    [[ $RC -eq 0 ]] || fail "-np $np: exit $RC"
    expect_same "$D/ref$x" "$D/out$x"
    [[ ${INDEX:-0} == 1 ]] && expect_same "$D/ref.idx$x" "$D/out.idx$x"
    [[ ${INDEX:-0} == 1 ]] && index=(--index-output "$D/part.idx$x")
    dsort "$np" --output-parts "$input" -o "$D/part$x" "${index[@]}" "$@"
    [[ $RC -eq 0 ]] || fail "-np $np --output-parts: exit $RC"
    [[ $(ls "$D"/part$x.part-* | wc -l) -eq $np ]] || fail "-np $np: not $np parts: $(ls "$D")"
    cat "$D"/part$x.part-* | cmp -s - "$D/ref$x" || fail "-np $np: the parts concatenated are not one process's output"
    [[ ${INDEX:-0} == 1 ]] && { cat "$D"/part.idx$x.part-* | cmp -s - "$D/ref.idx$x" || fail "-np $np: index parts differ"; }
    rm -f "$D"/out* "$D"/part.*
    expect_clean "$D"
  done
  rm -f "$D"/ref*
}

# The build has MPI (without it, --distributed says so: exit 2; the script is then skipped).
dsort 1 /dev/null -t u32 -o "$D/probe"
if grep -q "built without MPI" "$WORK/stderr"; then
  echo "rmgsort was built without MPI; skipping"
  exit 77
fi
rm -f "$D/probe"

gen() { "$RMGSORT" generate --progress never "$@" || { echo "generate $* failed" >&2; exit 2; }; }
gen -t u32 --count 20000 -o "$WORK/u32"
gen -t u64 --count 20000 --dist zipf:1.2 -o "$WORK/u64.zipf"
gen -t f64 --count 9000 --dist special -o "$WORK/f64.special"
gen -t i64 --count 9000 --dist special -o "$WORK/i64.special"
gen -t u32 --count 5000 --dist zero -o "$WORK/u32.equal"
gen -t u64 --record-size 13 --key-offset 5 --count 6000 --dist zipf:1 -o "$WORK/rec13"
gen -t bytes:10 --record-size 100 --key-offset 90 --count 4000 --dist zipf:1 -o "$WORK/rec100"
gen -t f64 --count 7000 --dist special -o "$WORK/special.npy"
gen -t u64 --count 2000000 --dist zipf:1 -o "$WORK/spill.u64"

begin "u32 uniform, 1 to 4 ranks"
same_as_one "1 2 3 4" "$WORK/u32" -t u32
end

begin "u64 zipf, descending too"
same_as_one "2 4" "$WORK/u64.zipf" -t u64
same_as_one "3" "$WORK/u64.zipf" -t u64 -r
end

begin "f64 NaNs, -0.0 and +0.0, infinities; i64 extremes"
same_as_one "3 4" "$WORK/f64.special" -t f64
same_as_one "2" "$WORK/f64.special" -t f64 -r
same_as_one "2 4" "$WORK/i64.special" -t i64
end

begin "every key equal: split by input position"
same_as_one "2 3 4" "$WORK/u32.equal" -t u32
end

begin "13-byte records, the u64 key unaligned at 5"
INDEX=1 same_as_one "2 4" "$WORK/rec13" -t u64 --record-size 13 --key-offset 5
end

begin "bytes:10 keys at the end of 100-byte records"
INDEX=1 same_as_one "2 4" "$WORK/rec100" -t bytes:10 --record-size 100 --key-offset 90
same_as_one "3" "$WORK/rec100" -t bytes:10 --record-size 100 --key-offset 90 -r
end

begin "fewer records than ranks: 0, 1 and 3 records on 4 ranks"
for n in 0 1 3; do
  head -c $((n * 8)) "$WORK/i64.special" >"$WORK/few$n"
  INDEX=1 same_as_one "4" "$WORK/few$n" -t i64
done
end

begin ".npy input and --index-output"
INDEX=1 same_as_one "2 4" "$WORK/special.npy"
end

# (That one process's such outputs load in numpy: tests/e2e/npy_sort_test.sh.)
begin "raw input to outputs named *.npy: the .npy headers one process writes (in memory, spilled, --unique)"
SUFFIX=.npy INDEX=1 same_as_one "2 3" "$WORK/rec13" -t u64 --record-size 13 --key-offset 5
SUFFIX=.npy INDEX=1 same_as_one "3" "$WORK/u64.zipf" -t u64 -u
end

begin "--unique across rank boundaries (keys, records, .npy)"
same_as_one "3" "$WORK/u64.zipf" -t u64 -u
same_as_one "4" "$WORK/u32.equal" -t u32 -u
INDEX=1 same_as_one "4" "$WORK/rec100" -t bytes:10 --record-size 100 --key-offset 90 -u
INDEX=1 same_as_one "3" "$WORK/special.npy" -u -r
# --stats counts as one process's: every record sorted, those kept and those dropped.
"$RMGSORT" sort "$WORK/u64.zipf" -t u64 -u -o "$D/one" --stats "$D/one.json" "${CPU[@]}"
dsort 3 "$WORK/u64.zipf" -t u64 -u -o "$D/out" --stats "$D/three.json"
expect_rc 0
python3 - "$D/one.json" "$D/three.json" <<'PY' || fail "--unique's counts differ from one process's"
import json, sys
one, three = (json.load(open(f)) for f in sys.argv[1:])
members = ("keys", "records", "bytes", "records_kept", "duplicates_dropped")
assert [one[m] for m in members] == [three[m] for m in members], ([one[m] for m in members], [three[m] for m in members])
assert three["duplicates_dropped"] > 0 and three["records_kept"] + three["duplicates_dropped"] == three["records"]
PY
rm -f "$D"/*
end

begin "the splitters: the boundary buckets' keys collected (2 passes), or level by level beyond the bound"
# 20000 uniform u32 keys over 2 ranks: the first level (16 bits), then the keys in the boundary's
# bucket collected and its second level counted over them; with staging of 1 byte (the collected
# keys may take twice that: no key), the second level and the boundary key's count read the slice.
for staging in "" 1; do
  RMGSORT_EXCHANGE_STAGING_BYTES=$staging dsort 2 "$WORK/u32" -t u32 -o "$D/out" --stats "$D/stats.json"
  expect_rc 0
  rmg sort "$WORK/u32" -t u32 -o "$D/ref" "${CPU[@]}"
  expect_same "$D/ref" "$D/out"
  python3 - "$D/stats.json" "${staging:-default}" <<'PY' || fail "staging ${staging:-default}: $(cat "$D/stats.json")"
import json, sys
d = json.load(open(sys.argv[1]))["distributed"]
assert d["splitter_levels"] == 2, d
assert d["splitter_slice_passes"] == (2 if sys.argv[2] == "default" else 3), d
assert len(d["classify_seconds"]) == 2, d
assert len(d["setup_seconds"]) == 2 and len(d["exchange_setup_seconds"]) == 2, d
PY
  rm -f "$D"/*
done
end

begin "the exchange in hundreds of rounds (small staging buffers)"
RMGSORT_EXCHANGE_STAGING_BYTES=1000 INDEX=1 same_as_one "3" "$WORK/rec100" -t bytes:10 --record-size 100 --key-offset 90
RMGSORT_EXCHANGE_STAGING_BYTES=1 same_as_one "4" "$WORK/u64.zipf" -t u64
end

begin "--output-parts after a run of more ranks: its stale parts go, nothing else"
rmg sort "$WORK/u32" -t u32 -o "$D/ref" "${CPU[@]}"
dsort 4 --output-parts "$WORK/u32" -t u32 -o "$D/part" --index-output "$D/part.idx"
expect_rc 0
touch "$D/part.part-7" "$D/part.part-00009.old" "$D/part.part-0000x" "$D/other.part-00005"
dsort 2 --output-parts "$WORK/u32" -t u32 -o "$D/part" --index-output "$D/part.idx"
expect_rc 0
left=$(cd "$D" && LC_ALL=C ls -1 | grep -v '^ref' | tr '\n' ' ')
[[ $left == "other.part-00005 part.idx.part-00000 part.idx.part-00001 part.part-00000 part.part-00001 part.part-00009.old part.part-0000x part.part-7 " ]] ||
  fail "after -np 4, then -np 2: $left"
cat "$D"/part.part-0000[01] | cmp -s - "$D/ref" || fail "the 2 parts concatenated are not one process's output"
rm -f "$D"/*
end

begin "--verify passes; --stats has the distributed member"
dsort 3 "$WORK/rec13" -t u64 --record-size 13 --key-offset 5 --verify -o "$D/out" --stats "$D/stats.json"
expect_rc 0
rmg sort "$WORK/rec13" -t u64 --record-size 13 --key-offset 5 -o "$D/ref" "${CPU[@]}"
expect_same "$D/ref" "$D/out"
python3 - "$D/stats.json" <<'PY' || fail "--stats: $(cat "$D/stats.json")"
import json, sys
s = json.load(open(sys.argv[1]))
d = s["distributed"]
assert s["status"] == "ok" and s["records"] == 6000 and s["verified"], s
assert d["ranks"] == 3 and sum(d["records_received"]) == 6000, d
assert all(1999 <= r <= 2001 for r in d["records_received"]), d
assert len(d["exchange_seconds"]) == 3 and len(d["exchange_bytes_sent"]) == 3, d
PY
rm -f "$D"/*
end

# fault DESCRIPTION: after a failed run, nothing committed and no temporary left in $D.
expect_failed_clean() {
  [[ $RC -ne 0 ]] || fail "exit 0 where the run should fail"
  expect_no_file "$D/out"
  expect_no_temp "$D"
  expect_clean "$D" "nothing"
}

begin "one rank's input missing: every rank stops, the message names the rank; rank 0's --stats says so"
run timeout 120 mpirun --allow-run-as-root --oversubscribe -np 1 "$RMGSORT" sort --distributed "$WORK/u32" -t u32 \
  -o "$D/out" "${CPU[@]}" --stats "$WORK/failed.json" : \
  -np 1 "$RMGSORT" sort --distributed "$WORK/missing" -t u32 -o "$D/out" "${CPU[@]}"
expect_failed_clean
expect_stderr "rank 1 of 2: $WORK/missing: cannot open" "rank 0 of 2: stopped, nothing committed: rank 1 of 2 failed"
python3 - "$WORK/failed.json" <<'PY' || fail "failed run's --stats: $(head -c 600 "$WORK/failed.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["status"] == "error" and s["exit_code"] == 2, s
assert "rank 1 of 2 failed" in s["error"] and s["distributed"]["ranks"] == 2, s
PY
end

begin "ranks given inputs of different sizes"
run timeout 120 mpirun --allow-run-as-root --oversubscribe -np 1 "$RMGSORT" sort --distributed "$WORK/u32" -t u32 \
  -o "$D/out" "${CPU[@]}" : -np 1 "$RMGSORT" sort --distributed "$WORK/u32.equal" -t u32 -o "$D/out" "${CPU[@]}"
expect_failed_clean
expect_stderr "the ranks see inputs of different sizes"
end

begin "an input that is no whole number of records"
head -c 1001 "$WORK/u32" >"$WORK/cut"
dsort 3 "$WORK/cut" -t u32 -o "$D/out"
expect_failed_clean
expect_stderr "1001 bytes are not a whole number"
end

begin "unwritable output directory (one file, and parts)"
dsort 2 "$WORK/u32" -t u32 -o "$D/no/such/dir/out"
expect_rc 2
expect_failed_clean
expect_stderr "rank 0 of 2: $D/no/such/dir/out" "rank 1 of 2: stopped, nothing committed: rank 0 of 2 failed"
dsort 2 --output-parts "$WORK/u32" -t u32 -o "$D/no/such/dir/out"
expect_failed_clean
end

begin "-o /dev/null is written in place (in memory and through a file)"
dsort 3 "$WORK/u32" -t u32 -o /dev/null
expect_rc 0
dsort 2 "$WORK/spill.u64" -t u64 -o /dev/null --host-memory 3M -T "$D"
expect_rc 0
expect_clean "$D" "nothing"
end

begin "standard input and output are refused"
dsort 2 - -t u32 -o "$D/out" <"$WORK/u32"
expect_failed_clean
expect_stderr "standard input (-) cannot be read by every rank"
dsort 2 "$WORK/u32" -t u32 -o -
[[ $RC -ne 0 ]] || fail "-o - accepted"
expect_stderr "every rank writes its records into the output file"
end

# Each rank checks the files it writes as one process's sort does (app/separate_outputs.hpp), before
# anything is read or created: before, --index-output or --stats naming the input replaced it with exit 0.
begin "outputs that are the input, each other, a part, or standard error's file: refused, nothing written"
cp "$WORK/u32" "$D/in"
ln -s in "$D/in.link"
cp "$WORK/u32" "$D/kept"
for args in "--index-output $D/in" "--stats $D/in.link" "--index-output $D/kept -o $D/kept" \
  "--stats $D/kept -o $D/kept" "--stats $D/sub/../in"; do
  mkdir -p "$D/sub"
  out=(-o "$D/out")
  [[ $args == *" -o "* ]] && out=()
  dsort 2 "$D/in" -t u32 "${out[@]}" $args
  expect_rc 2
  expect_stderr "rank 0 of 2"
  grep -q -e "is the input file" -e "are the same file" "$WORK/stderr" || fail "$args: $(head -c 300 "$WORK/stderr")"
  cmp -s "$D/in" "$WORK/u32" || fail "$args: the input changed"
  cmp -s "$D/kept" "$WORK/u32" || fail "$args: $D/kept changed"
  expect_no_file "$D/out"
  expect_no_temp "$D"
  rmdir "$D/sub"
done
# --output-parts: a part this run writes, or one of an earlier run's that it removes, is neither an
# input (by any name) nor the statistics.
cp "$WORK/u32" "$D/p.part-00001"
ln -s p.part-00007 "$D/seven"
cp "$WORK/u32" "$D/p.part-00007"
for args in "$D/p.part-00001 -o $D/p" "$D/seven -o $D/p" "$D/in -o $D/p --stats $D/p.part-00001" \
  "$D/in -o $D/out --index-output $D/p --stats $D/p.part-00009"; do
  dsort 2 --output-parts $args -t u32
  expect_rc 2
  expect_stderr "(--output-parts): the run would replace it, or remove it as an earlier run's part"
  cmp -s "$D/p.part-00001" "$WORK/u32" && cmp -s "$D/p.part-00007" "$WORK/u32" || fail "$args: a part changed"
  expect_no_file "$D/p.part-00000"
  expect_no_file "$D/p.part-00009"
  expect_no_temp "$D"
done
rm -f "$D"/*
# Standard error into a regular file (2>> run.log) with --stats naming it: the log is not replaced.
echo "before" >"$D/run.log"
timeout 120 "${MPI[@]}" -np 1 "$RMGSORT" sort --distributed "$WORK/u32" -t u32 -o "$D/out" "${CPU[@]}" \
  --stats /dev/stderr 2>>"$D/run.log"
RC=$?
# (mpirun forwards a rank's standard error through a pipe of its own: the rank sees a pipe and writes
# the statistics there, and mpirun appends them to the log.)
expect_rc 0
[[ $(head -1 "$D/run.log") == before ]] || fail "the log lost its first line: $(head -c 300 "$D/run.log")"
grep -q '"status":"ok"' "$D/run.log" || fail "no statistics in the log: $(head -c 300 "$D/run.log")"
rm -f "$D"/*
end

# Options every rank must share: before, -r or -u on one rank wrote its share so with exit 0, and
# --verify or --output-parts on one rank left the job waiting in two collectives forever.
begin "ranks given different options: refused by every rank, nothing written, no hang"
for option in -r -u --verify --output-parts "--index-output $D/idx" "--record-size 8 --key-offset 0"; do
  # shellcheck disable=SC2086 # OPTION is one or two options with their values
  run timeout 120 mpirun --allow-run-as-root --oversubscribe -np 1 "$RMGSORT" sort --distributed "$WORK/u32" -t u32 \
    -o "$D/out" "${CPU[@]}" : -np 1 "$RMGSORT" sort --distributed "$WORK/u32" -t u32 -o "$D/out" "${CPU[@]}" $option
  [[ $RC -eq 2 ]] || fail "$option on one rank: exit $RC"
  expect_stderr "the ranks were given different options"
  expect_clean "$D" "nothing"
done
# Those a rank may choose for itself: its threads, memory and temporary directory.
run timeout 120 mpirun --allow-run-as-root --oversubscribe -np 1 "$RMGSORT" sort --distributed "$WORK/u32" -t u32 \
  -o "$D/out" "${CPU[@]}" --threads 1 : -np 1 "$RMGSORT" sort --distributed "$WORK/u32" -t u32 -o "$D/out" "${CPU[@]}" \
  -T "$WORK" --host-memory 1G
expect_rc 0
"$RMGSORT" check "$D/out" -t u32 --original "$WORK/u32" >/dev/null || fail "per-rank threads and memory: not sorted"
rm -f "$D"/*
end

begin "a share beyond --host-memory: received into a file, sorted through spill files"
same_as_one "3" "$WORK/spill.u64" -t u64 --host-memory 3M -T "$D"
same_as_one "2" "$WORK/rec13" -t u64 --record-size 13 --key-offset 5 --host-memory 200K -T "$D" -r
gen -t f64 --count 300000 --dist special -o "$WORK/spill.npy"
same_as_one "3" "$WORK/spill.npy" --host-memory 1M -T "$D"
SUFFIX=.npy same_as_one "2" "$WORK/spill.u64" -t u64 --host-memory 3M -T "$D"
dsort 3 "$WORK/spill.u64" -t u64 -o "$D/out" --host-memory 3M -T "$D" --stats "$D/stats.json"
expect_rc 0
python3 - "$D/stats.json" <<'PY' || fail "--stats of spilled shares: $(head -c 600 "$D/stats.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["spilled"] and s["plan"]["path"] == "spill", s["plan"]
assert s["distributed"]["share_through_file"] == [True, True, True], s["distributed"]
PY
rm -f "$D"/*
end

begin "--unique, --index-output or --verify with a share beyond --host-memory: refused, naming the sizes"
for option in -u --verify "--index-output $D/idx"; do
  dsort 2 "$WORK/spill.u64" -t u64 -o "$D/out" --host-memory 3M $option
  expect_failed_clean
  expect_stderr "its share of 1000000 records needs" "more than --host-memory" "need a rank's share in memory"
done
end

begin "a full file system (ENOSPC): nothing committed, no temporary"
FULL=$WORK/full
mkdir -p "$FULL"
if mount -t tmpfs -o size=64k tmpfs "$FULL" 2>/dev/null; then
  E2E_CLEANUP+=("umount '$FULL'")
  run timeout 120 "${MPI[@]}" -np 3 "$RMGSORT" sort --distributed "$WORK/u32" -t u32 -o "$FULL/out" "${CPU[@]}"
  [[ $RC -ne 0 ]] || fail "exit 0 on a full file system"
  expect_stderr "No space left on device"
  expect_no_file "$FULL/out"
  [[ -z $(ls -A "$FULL") ]] || fail "left on the full file system: $(ls -A "$FULL")"
  run timeout 120 "${MPI[@]}" -np 3 "$RMGSORT" sort --distributed --output-parts "$WORK/u32" -t u32 -o "$FULL/out" "${CPU[@]}"
  [[ $RC -ne 0 ]] || fail "exit 0 on a full file system (parts)"
  [[ -z $(ls -A "$FULL") ]] || fail "left on the full file system (parts): $(ls -A "$FULL")"
  end
else
  skip "cannot mount a tmpfs here"
fi

# A rank killed by SIGKILL, 2 ranks, its process id written by a wrapper: early (a tenth of a second
# in: starting, reading or finding the splitters), and while the ranks write the output (once its
# temporary file shows in the directory); should the run end before the kill, that moment is
# reported as not caught, not failed. Rank 0 killed too: then the other rank's SIGTERM handler,
# which mpirun sends, removes rank 0's temporary output.
begin "a rank killed by SIGKILL: the job ends nonzero, nothing committed, no temporary"
gen -t u64 --count 12000000 -o "$WORK/big"
rmg sort "$WORK/big" -t u64 -o "$D/ref.big" "${CPU[@]}"
for victim in 1 0; do
  for moment in early writing; do
    rm -f "$WORK"/pid.* "$D/out"
    wrapper=(bash -c 'echo $$ >"$0/pid.$OMPI_COMM_WORLD_RANK"; exec "$@"' "$WORK")
    timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "${wrapper[@]}" "$RMGSORT" sort --distributed \
      "$WORK/big" -t u64 -o "$D/out" "${CPU[@]}" >"$WORK/stdout" 2>"$WORK/stderr" &
    job=$!
    for _ in $(seq 1 1000); do [[ -s "$WORK/pid.$victim" ]] && break; sleep 0.01; done
    caught=1
    if [[ $moment == early ]]; then
      # A tenth of a second after the victim started: the ranks start, read or find the splitters
      # (the whole job takes about half a second on a quiet machine of 2 cores).
      sleep 0.1
      kill -0 "$job" 2>/dev/null || caught=0
    else
      caught=0
      for _ in $(seq 1 4000); do
        [[ -n $(find "$D" -maxdepth 1 -name '.*rmgsort*' 2>/dev/null) ]] && { caught=1; break; }
        kill -0 "$job" 2>/dev/null || break
        sleep 0.002
      done
    fi
    kill -KILL "$(cat "$WORK/pid.$victim")" 2>/dev/null
    wait "$job"
    RC=$?
    if [[ $caught -eq 0 && $RC -eq 0 ]]; then
      echo "    (rank $victim, $moment: the job was over before the kill: not caught this time)"
      rm -f "$D/out"
      continue
    fi
    [[ $RC -ne 0 ]] || fail "rank $victim killed $moment: exit 0"
    # A kill that lands after rank 0's rename (the ranks still finalizing) cannot undo the commit: the
    # job ends nonzero with the whole sorted output in place. Anything else committed is a failure.
    if [[ -e "$D/out" ]] && cmp -s "$D/ref.big" "$D/out"; then
      echo "    (rank $victim killed $moment after the commit: the output is whole; nothing else to check this time)"
      expect_no_temp "$D"
      rm -f "$D/out"
      continue
    fi
    expect_no_file "$D/out"
    expect_no_temp "$D"
  done
done
end

begin "2 ranks x 1 GPU (NCCL where built with it): byte-identical to one process"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [[ ${gpus:-0} -ge 2 ]]; then
  gen -t u64 --count 50000000 -o "$WORK/gpu.u64"
  rmg sort "$WORK/gpu.u64" -t u64 -o "$D/ref" --progress never
  run timeout 600 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 bash -c \
    'exec "$0" sort --distributed "$1" -t u64 -o "$2" --gpus "$OMPI_COMM_WORLD_LOCAL_RANK" --progress never --stats "$3"' \
    "$RMGSORT" "$WORK/gpu.u64" "$D/out" "$D/stats.json"
  expect_rc 0
  expect_same "$D/ref" "$D/out"
  echo "    (exchange: $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["distributed"]["exchange"])' "$D/stats.json"))"
  # And the host-memory exchange, for comparison.
  RMGSORT_EXCHANGE=mpi run timeout 600 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 -x RMGSORT_EXCHANGE bash -c \
    'exec "$0" sort --distributed "$1" -t u64 -o "$2" --gpus "$OMPI_COMM_WORLD_LOCAL_RANK" --progress never' \
    "$RMGSORT" "$WORK/gpu.u64" "$D/out"
  expect_rc 0
  expect_same "$D/ref" "$D/out"
  rm -f "$D"/*
  end
else
  skip "needs 2 GPUs, found ${gpus:-0}"
fi

summary
