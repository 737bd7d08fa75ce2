#!/usr/bin/env bash
# GPU faults end cleanly (label gpu). Needs a GPU and an rmgsort built with the test-only hook
# -DRMGSORT_FAULT_INJECTION=ON (gpu/fault_injection.hpp), whose GPU engine names the hook in --stats
# ("gpu": {"fault_injection": ...}); skipped (77) without either.
#   - A CUDA fault injected into each stage (copy in, histogram, scatter, swap, bucket sort, copy
#     back) of a sort of 4 million u64 keys, in memory, in rounds (--gpu-memory) and through spill
#     files (--host-memory), into an existing output: exit 2 within the time limit (no hang), one
#     message naming the GPU and the stage, the output byte for byte as it was, nothing new in the
#     output's directory but the failed run's --stats (status "error", the message) and nothing in
#     --temp-dir. With two GPUs, also a fault on the second.
#   - The sorter's allocation failing once, as if another process had taken GPU memory after the
#     plan (RMGSORT_INJECT_FAULT=allocate:0): planned again with smaller rounds, sorted correctly,
#     the notice on standard error and the rounds in --stats. Failing every time
#     (allocate-always:0): sorted on the CPU, --stats engine "cpu" with cpu_because, one notice,
#     and the plan the CPU's (it spills where the CPU's sort buffer does not fit --host-memory).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_python

gpus_present=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [[ ${gpus_present:-0} -eq 0 ]]; then
  echo "no GPU: skipped"
  exit 77
fi

# json FILE EXPR: EXPR evaluated on the --stats object `s` (python), printed.
json() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

rmg generate -o "$WORK/probe" -t u64 --count 1000 --seed 1
rmg sort "$WORK/probe" -o "$WORK/probe.out" -t u64 --gpus 0 --stats "$WORK/probe.json"
if [[ $RC -ne 0 ]]; then
  echo "FAIL cannot sort on GPU 0: $(head -c 500 "$WORK/stderr")"
  exit 1
fi
if [[ $(json "$WORK/probe.json" "'fault_injection' in s['gpu']") != True ]]; then
  echo "rmgsort was built without -DRMGSORT_FAULT_INJECTION=ON: skipped"
  exit 77
fi

KEYS=4000000
IN="$WORK/in/keys.u64"
mkdir -p "$WORK/in"
rmg generate -o "$IN" -t u64 --count $KEYS --seed 5
[[ $RC -eq 0 ]] || { echo "FAIL generate: $(cat "$WORK/stderr")"; exit 1; }

# listing DIR: its entries, hidden ones too, one a line.
listing() { ls -A "$1" | sort; }

# faulty_sort PATH SPEC GPUS WORDS... : a sort along PATH (in_memory, rounds, spill) on GPUS with
# RMGSORT_INJECT_FAULT=SPEC into an existing output; the case passes when it ends as a GPU fault
# must, its message holding every one of WORDS.
faulty_sort() {
  local path=$1 spec=$2 gpus=$3
  shift 3
  local out_dir="$WORK/out-$path" temp_dir="$WORK/temp-$path"
  rm -rf "$out_dir" "$temp_dir"
  mkdir -p "$out_dir" "$temp_dir"
  printf 'the output of an earlier run\n' >"$out_dir/sorted"
  cp "$out_dir/sorted" "$WORK/sorted.before"
  listing "$out_dir" >"$WORK/out_dir.before"
  local path_args=()
  case $path in
    rounds) path_args=(--gpu-memory 16M) ;;
    spill) path_args=(--host-memory 16M) ;;
  esac
  begin "$spec, $path on GPUs $gpus: exit 2 naming the GPU and the stage, nothing committed or left"
  run env RMGSORT_INJECT_FAULT="$spec" timeout 300 "$RMGSORT" sort "$IN" -o "$out_dir/sorted" -t u64 --gpus "$gpus" \
    "${path_args[@]}" --temp-dir "$temp_dir" --stats "$out_dir/stats.json"
  [[ $RC -ne 124 ]] || fail "did not end within 300 s"
  expect_rc 2
  expect_error_message
  [[ $(wc -l <"$WORK/stderr") -eq 1 ]] || fail "stderr has $(wc -l <"$WORK/stderr") lines, not one message"
  expect_stderr "$@" "(injected: RMGSORT_INJECT_FAULT=$spec)"
  expect_same "$out_dir/sorted" "$WORK/sorted.before"
  listing "$out_dir" | grep -vx stats.json | diff -u "$WORK/out_dir.before" - >/dev/null ||
    fail "the output's directory changed: $(listing "$out_dir" | tr '\n' ' ')"
  local why
  why=$(python3 "$KEYS_PY" stats "$out_dir/stats.json" status=error exit_code=2 \
    "error=$(head -n 1 "$WORK/stderr" | sed 's/^rmgsort: //')") || fail "--stats: $why"
  [[ -z $(ls -A "$temp_dir") ]] || fail "--temp-dir is not empty: $(ls -A "$temp_dir" | tr '\n' ' ')"
  end
}

# The stage (RMGSORT_INJECT_FAULT's name) and the words its message must hold besides "GPU N, ".
STAGES=(copy-in histogram scatter swap bucket-sort copy-back)
declare -A WORDS=(
  [copy-in]="copy in:"
  [histogram]="histogram of pass 1:"
  [scatter]="scatter of pass 1:"
  [swap]="key swap"
  [bucket-sort]="bucket sorts and copy back:|DeviceRadixSort"
  [copy-back]="bucket sorts and copy back:|cudaMemcpyDeviceToHost")

for path in in_memory rounds spill; do
  for stage in "${STAGES[@]}"; do
    IFS='|' read -r -a words <<<"${WORDS[$stage]}"
    words[0]="GPU 0, ${words[0]}"
    faulty_sort "$path" "$stage:0" 0 "${words[@]}" "cudaErrorLaunchFailure"
  done
done

if [[ $gpus_present -ge 2 ]]; then
  for stage in copy-in swap copy-back; do
    IFS='|' read -r -a words <<<"${WORDS[$stage]}"
    words[0]="GPU 1, ${words[0]}"
    faulty_sort in_memory "$stage:1" 0,1 "${words[@]}" "cudaErrorLaunchFailure"
  done
else
  begin "faults on the second of two GPUs"
  skip "one GPU"
fi

# ---------------------------------------------------------------------------------------------------
# The page-locking beside the read (in memory) or the partition (rounds): a failure leaves the
# memory pageable, each sort page-locks its own keys (in rounds, the two sorters' sorts one at a
# time: neighbouring rounds may share a page), and the run succeeds and tells it.
for path in in_memory rounds; do
  begin "page-lock:0, $path: sorted all the same, the failure told in --stats"
  path_args=()
  [[ $path == rounds ]] && path_args=(--gpu-memory 16M)
  run env RMGSORT_INJECT_FAULT=page-lock:0 timeout 300 "$RMGSORT" sort "$IN" -o "$WORK/page-lock-$path" -t u64 \
    --gpus 0 "${path_args[@]}" --stats "$WORK/page-lock-$path.json"
  expect_rc 0
  if [[ $RC -eq 0 ]]; then
    beside=$([[ $path == rounds ]] && echo partition || echo read)
    [[ $(json "$WORK/page-lock-$path.json" "s['gpu']['host_page_locking']['beside']") == "$beside" ]] ||
      fail "host_page_locking is not beside the $beside"
    # Rounds: two sorters, whose rounds may share a page, each page-locking its own in turn.
    sorters=$([[ $path == rounds ]] && echo 2 || echo 1)
    [[ $(json "$WORK/page-lock-$path.json" "s['gpu']['concurrent_sorters']") == "$sorters" ]] ||
      fail "expected $sorters sorters"
    [[ $(json "$WORK/page-lock-$path.json" \
      "'injected: RMGSORT_INJECT_FAULT=page-lock:0' in (s['gpu']['host_page_locking']['failure'] or '')") == True ]] ||
      fail "--stats gpu.host_page_locking.failure does not tell the injected failure"
    [[ ! -s $WORK/stderr ]] || fail "stderr is not empty: $(cat "$WORK/stderr")"
    rmg check "$WORK/page-lock-$path" -t u64 --input "$IN"
    expect_rc 0
  fi
  end
done

# ---------------------------------------------------------------------------------------------------
# The allocation

begin "allocate:0 (memory taken after the plan): planned again with smaller rounds, sorted, told"
run env RMGSORT_INJECT_FAULT=allocate:0 timeout 300 "$RMGSORT" sort "$IN" -o "$WORK/replanned" -t u64 --gpus 0 \
  --stats "$WORK/replanned.json"
expect_rc 0
if [[ $RC -eq 0 ]]; then
  [[ $(json "$WORK/replanned.json" "s['engine']") == gpu ]] || fail "not sorted on the GPUs"
  [[ $(json "$WORK/replanned.json" "s['gpu']['round_keys_first_planned']") == "$KEYS" ]] ||
    fail "the first plan was not for all $KEYS keys"
  round=$(json "$WORK/replanned.json" "s['plan']['round_keys']")
  [[ $round -lt $KEYS && $round -gt 0 ]] || fail "the plan's round is $round keys, not fewer than $KEYS"
  [[ $(json "$WORK/replanned.json" "s['plan']['path']") == rounds ]] || fail "not sorted in rounds"
  [[ $(json "$WORK/replanned.json" "s['rounds'] >= 2") == True ]] || fail "fewer than 2 rounds"
  [[ $(json "$WORK/replanned.json" "s['gpu']['replanned_because'].startswith('GPU 0 has only ')") == True ]] ||
    fail "--stats gpu.replanned_because does not say why"
  [[ $(json "$WORK/replanned.json" "s['cpu_because'] is None") == True ]] || fail "cpu_because is set"
  expect_stderr "rmgsort: GPU 0 has only " "; planned again for rounds of $round keys instead of $KEYS"
  [[ $(wc -l <"$WORK/stderr") -eq 1 ]] || fail "stderr holds more than the notice"
  rmg check "$WORK/replanned" -t u64 --input "$IN"
  expect_rc 0
fi
end

begin "allocate-always:0 (no GPU memory to be had): sorted on the CPU, cpu_because, one notice"
run env RMGSORT_INJECT_FAULT=allocate-always:0 timeout 300 "$RMGSORT" sort "$IN" -o "$WORK/on_cpu" -t u64 --gpus 0 \
  --stats "$WORK/on_cpu.json"
expect_rc 0
if [[ $RC -eq 0 ]]; then
  [[ $(json "$WORK/on_cpu.json" "s['engine']") == cpu ]] || fail "not sorted on the CPU"
  because="'GPU 0' in s['cpu_because'] and 'a smaller plan could not be allocated either' in s['cpu_because']"
  [[ $(json "$WORK/on_cpu.json" "$because") == True ]] ||
    fail "cpu_because does not say why: $(json "$WORK/on_cpu.json" "s['cpu_because']")"
  [[ $(json "$WORK/on_cpu.json" "s['plan']['path']") == in_memory ]] || fail "not sorted in memory"
  expect_stderr "; sorting on the CPU"
  [[ $(wc -l <"$WORK/stderr") -eq 1 ]] || fail "stderr holds $(wc -l <"$WORK/stderr") lines, not one notice"
  rmg check "$WORK/on_cpu" -t u64 --input "$IN"
  expect_rc 0
fi
end

# The GPUs sort 32 MB of keys in place within --host-memory 48M; the CPU needs its sort buffer as
# large beside them, so the CPU's plan spills.
begin "allocate-always:0 within --host-memory 48M: the CPU's own plan (through spill files)"
mkdir -p "$WORK/temp-cpu"
run env RMGSORT_INJECT_FAULT=allocate-always:0 timeout 300 "$RMGSORT" sort "$IN" -o "$WORK/cpu_spill" -t u64 --gpus 0 \
  --host-memory 48M --temp-dir "$WORK/temp-cpu" --stats "$WORK/cpu_spill.json"
expect_rc 0
if [[ $RC -eq 0 ]]; then
  [[ $(json "$WORK/cpu_spill.json" "s['engine']") == cpu ]] || fail "not sorted on the CPU"
  [[ $(json "$WORK/cpu_spill.json" "s['plan']['path']") == spill ]] || fail "the CPU's plan does not spill"
  [[ $(json "$WORK/cpu_spill.json" "s['plan']['host_memory']['peak_bytes'] <= 48 * 2**20") == True ]] ||
    fail "the plan's peak exceeds --host-memory"
  rmg check "$WORK/cpu_spill" -t u64 --input "$IN"
  expect_rc 0
  [[ -z $(ls -A "$WORK/temp-cpu") ]] || fail "--temp-dir is not empty"
fi
end

begin "a malformed RMGSORT_INJECT_FAULT is an error naming it"
run env RMGSORT_INJECT_FAULT=nowhere:0 timeout 300 "$RMGSORT" sort "$IN" -o "$WORK/never" -t u64 --gpus 0
expect_rc 2
expect_stderr "RMGSORT_INJECT_FAULT=nowhere:0"
expect_no_file "$WORK/never"
end

summary
