#!/usr/bin/env bash
# The in-core sort's targets, measured in one run on a GPU host; prints one markdown table
# (nothing here is a test). From a build machine: scripts/gpu_host_bundle.sh, then on the GPU host
# (with .gpu-host/ copied there):
#   scripts/gpu_host_run.sh scripts/bench_in_core.sh [REPEATS]
# Rows, host memory to host memory (tests/bench/in_core_bench.cu), each beside the issue's
# single-GPU baseline of the same keys measured in the same run (pinned copy to GPU 0,
# cub::DeviceRadixSort of every bit, copy back):
#   4e9 uniform u32 on g = 1, 2, 4          2e9 uniform u64 on g = 1, 2, 4
#   4e9 zipf:1.0 u32 and 4e9 bits:10 u32 on 4 GPUs, as a ratio to uniform u32 on 4 GPUs
#   all partitioning passes of uniform u32, 1e9 keys per GPU: the slowest GPU's histogram and scatter
#   kernels plus the host exchange between them (partition_ms, see in_core_bench.cu)
# Beside every sorter row, the copy floor of the same g measured in the same run (every GPU's pinned
# copy of its share in, then out, no sort: in_core_bench's kind=copy_floor), and, with
# COMPARED_SORT set to another multi-GPU sort program (such as the RMG thesis's published radix
# sort), that program's time for the same keys and GPUs: it is run as `PROGRAM KEYS GPU_LIST TYPE
# uniform 0` (GPU_LIST like 0,1; TYPE uint32 or uint64) and must print its host-to-host time on a
# line "LABEL: N ms", LABEL being COMPARED_SORT_TIME_LABEL (default: that published sort's label);
# the median of COMPARED_REPEATS (default 3) runs, each stopped once it has printed its time. Without
# it, the peer column shows the RMG paper's figure on 4 H200s where N is the target.
# BENCH_GPUS (default "1 2 4") picks the GPU counts of the uniform rows. Rows needing more GPUs
# than present are skipped. N shrinks, with a note, where host memory (two
# copies of the keys) or GPU memory (g = 1: a double buffer of every key) is too small. Host memory
# is MemAvailable, which reads low at first on machines whose memory grows as it is touched (such as
# virtual machines): HOST_MEMORY_GIB=N overrides it. REPEATS (default 5) timed runs follow one warm-up.
# The full log goes to $RMGSORT_LOG_DIR/bench_in_core.log and the table to
# $RMGSORT_LOG_DIR/bench_in_core.md when RMGSORT_LOG_DIR is set (else to a temporary file, named at
# the end). About 5 minutes on 4 H200s.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
repeats=${1:-5}

bench=${IN_CORE_BENCH:-}
if [[ -z $bench ]]; then
  bench=$(command -v in_core_bench || true)  # .gpu-host/bin, on PATH through scripts/gpu_host_run.sh
  [[ -n $bench ]] || bench=$root/build/tests/bench/in_core_bench
fi
if [[ ! -x $bench ]]; then
  echo "bench_in_core.sh: in_core_bench not found: build it, run through scripts/gpu_host_run.sh, or set IN_CORE_BENCH" >&2
  exit 2
fi
if [[ -n ${RMGSORT_LOG_DIR:-} ]]; then
  log=$RMGSORT_LOG_DIR/bench_in_core.log
  table_file=$RMGSORT_LOG_DIR/bench_in_core.md
else
  log=$(mktemp "${TMPDIR:-/tmp}/bench_in_core.XXXXXX.log")
  table_file=/dev/null
fi
: >"$log"

# ---- The machine

devices=$("$bench" --devices)
echo "$devices" >>"$log"
present=$(awk '$1 == "devices" { print $2 }' <<<"$devices")
if [[ -z $present || $present -eq 0 ]]; then
  echo "bench_in_core.sh: no CUDA device" >&2
  exit 2
fi
gpu_name=$(awk '$1 == "device" && $2 == 0 { $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print }' <<<"$devices")
# The least free and total memory among GPUs 0..3, the ones the rows use.
gpu_free=$(awk '$1 == "device" && $2 < 4 { if (m == "" || $3 < m) m = $3 } END { print m }' <<<"$devices")
gpu_total=$(awk '$1 == "device" && $2 < 4 { if (m == "" || $4 < m) m = $4 } END { print m }' <<<"$devices")
if [[ -n ${HOST_MEMORY_GIB:-} ]]; then
  host_bytes=$((HOST_MEMORY_GIB << 30))
  host_source="HOST_MEMORY_GIB"
else
  host_bytes=$(($(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) * 1024))
  host_source="MemAvailable"
fi

gib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 2^30 }'; }
# 4000000000 -> 4e9, 3500000000 -> 3.5e9
keys_text() { awk -v n="$1" 'BEGIN { e = int(log(n) / log(10) + 1e-9); printf "%ge%d", n / 10^e, e }'; }

# fit TARGET WIDTH G: the largest N <= TARGET whose two host copies fit in 85 % of the host memory
# less 4 GiB, and whose sorter fits G GPUs (a double buffer of N/G keys and 10 % more in 90 % of
# the least free memory); below TARGET, rounded down to two significant digits. 0: nothing fits.
fit() {
  awk -v t="$1" -v w="$2" -v g="$3" -v host="$host_bytes" -v gpu="$gpu_free" 'BEGIN {
    n = t
    h = (host * 0.85 - 4 * 2^30) / (2 * w); if (h < n) n = h
    d = gpu * 0.9 * g / (2.2 * w); if (d < n) n = d
    if (n < 1e6) { print 0; exit }
    if (n < t) { p = 10 ^ (int(log(n) / log(10)) - 1); n = int(n / p) * p }
    printf "%.0f\n", n }'
}

notes=()
failed=0
results=""
output=""
# run_bench ARGS...: one in_core_bench run, its output appended to the log; $results holds its
# RESULT lines and $output the rest. A failed run is reported and remembered, not fatal.
run_bench() {
  local run_log status=0
  run_log=$(mktemp "${TMPDIR:-/tmp}/in_core_bench.XXXXXX")
  echo "running: in_core_bench $* --repeats $repeats" >&2
  echo "\$ in_core_bench $* --repeats $repeats" >>"$log"
  "$bench" "$@" --repeats "$repeats" >"$run_log" 2>&1 || status=$?
  cat "$run_log" >>"$log"
  results=$(grep '^RESULT ' "$run_log" || true)
  output=$(grep -v '^RESULT ' "$run_log" || true)
  if ((status != 0)); then
    failed=1
    echo "in_core_bench $* exited with $status:" >&2
    tail -15 <<<"$output" >&2
  fi
  rm -f "$run_log"
}
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }
result_line() { grep -E "^RESULT kind=$1 .* g=$2 " <<<"$results" | head -1 || true; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# compared_ms KEYS G TYPE: COMPARED_SORT's median host-to-host ms over COMPARED_REPEATS runs, each
# stopped once it has printed its time (whatever it does after that is skipped); empty if it fails.
compared_ms() {
  local keys=$1 g=$2 type=$3 label=${COMPARED_SORT_TIME_LABEL:-Total sort duration}
  local command run transcript pid times=()
  command=("$COMPARED_SORT" "$keys" "$(seq -s, 0 $((g - 1)))" "${type/u/uint}" uniform 0)
  transcript=$(mktemp "${TMPDIR:-/tmp}/compared_sort.XXXXXX")
  for ((run = 0; run < ${COMPARED_REPEATS:-3}; ++run)); do
    echo "running: ${command[*]}" >&2
    "${command[@]}" >"$transcript" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null && ! grep -qF "$label:" "$transcript"; do sleep 0.2; done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    { echo "\$ ${command[*]}"; cat "$transcript"; } >>"$log"
    times+=("$(grep -F "$label:" "$transcript" | head -1 | sed -n 's/.*: *\([0-9.]*\) *ms.*/\1/p')")
  done
  rm -f "$transcript"
  printf '%s\n' "${times[@]}" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

rows=()
# row CASE GPUS KEYS MS GKEYS_PER_S VERSUS ALLOCATION PHASES PEER
row() { rows+=("$(printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |' "$@")"); }

# sorter_row CASE KEYS G LINE BASELINE_MS PEER_MS: a row for one RESULT kind=sorter line.
sorter_row() {
  local case=$1 keys=$2 g=$3 line=$4 baseline_ms=$5 peer=$6 status versus floor_line
  status=$(field "$line" status)
  if [[ $status != ok ]]; then
    row "$case" "$g" "$keys" "${status:-no result}" "" "" "" "" "$peer"
    [[ $status == not_measured || $status == skipped ]] || failed=1
    return
  fi
  versus=""
  [[ -n $baseline_ms ]] && versus="$(ratio "$baseline_ms" "$(field "$line" median_ms)")x"
  floor_line=$(result_line copy_floor "$g")
  if [[ $(field "$floor_line" status) == ok ]]; then
    versus+="${versus:+; }$(ratio "$(field "$line" median_ms)" "$(field "$floor_line" floor_ms)")x the copy floor $(field "$floor_line" floor_ms) (in $(field "$floor_line" in_ms) + out $(field "$floor_line" out_ms))"
  fi
  row "$case" "$g" "$keys" "$(field "$line" median_ms)" "$(field "$line" gkeys_per_s)" "$versus" \
    "$(field "$line" alloc_ms) (plan $(field "$line" plan_ms))" \
    "$(field "$line" copy_in_ms_max) / $(field "$line" histogram_ms_max) / $(field "$line" scatter_ms_max) / $(field "$line" swap_ms_max) / $(field "$line" sort_copy_back_ms_max); $(field "$line" passes) pass(es)" \
    "$peer"
}

# uniform_rows TYPE WIDTH TARGET PEER_G1 PEER_G2 PEER_G4: g = 1, 2, 4 and the baseline. Sets $n_used
# and leaves the run's RESULT lines in $results.
uniform_rows() {
  local type=$1 width=$2 target=$3 n gpus="" g baseline_line baseline_ms="" case peer status line
  local -A peers=([1]=$4 [2]=$5 [4]=$6)
  n=$(fit "$target" "$width" 1)
  n_used=$n
  if [[ $n == 0 ]]; then
    notes+=("uniform $type: not measured, too little host or GPU memory for even 1e6 keys")
    return
  fi
  [[ $n == "$target" ]] || notes+=("uniform $type: $(keys_text "$n") keys instead of $(keys_text "$target"): host memory $(gib "$host_bytes") GiB ($host_source), GPU memory $(gib "$gpu_free") GiB free")
  for g in ${BENCH_GPUS:-1 2 4}; do
    if ((g <= present)); then gpus+=${gpus:+,}$g; else notes+=("uniform $type g=$g: skipped, $present GPU(s) present"); fi
  done
  run_bench --type "$type" --count "$n" --dist uniform --gpus "$gpus"
  case="$(keys_text "$n") uniform $type"
  baseline_line=$(result_line baseline 1)
  if [[ $(field "$baseline_line" status) == ok ]]; then
    baseline_ms=$(field "$baseline_line" median_ms)
    row "$case" "baseline: GPU 0, CUB" "$(keys_text "$n")" "$baseline_ms" "$(field "$baseline_line" gkeys_per_s)" "1.00x" \
      "$(field "$baseline_line" alloc_ms)" \
      "in $(field "$baseline_line" copy_in_ms) / sort $(field "$baseline_line" sort_ms) / out $(field "$baseline_line" copy_out_ms)" ""
  else
    status=$(field "$baseline_line" status)
    row "$case" "baseline: GPU 0, CUB" "$(keys_text "$n")" "${status:-no result}" "" "" "" \
      "$(grep -m1 '^baseline: not measured' <<<"$output" | cut -d: -f3- | cut -c2-160 || true)" ""
    [[ $status == not_measured ]] || failed=1
  fi
  for g in ${BENCH_GPUS:-1 2 4}; do
    ((g <= present)) || continue
    peer=""
    if [[ -n ${COMPARED_SORT:-} ]]; then
      peer=$(compared_ms "$n" "$g" "$type")
      line=$(result_line sorter "$g")
      [[ -n $peer && $(field "$line" status) == ok ]] && peer="$peer; rmgsort $(ratio "$(field "$line" median_ms)" "$peer")x"
    elif [[ $n == "$target" ]]; then
      peer=${peers[$g]}
    fi
    sorter_row "$case" "$(keys_text "$n")" "$g" "$(result_line sorter "$g")" "$baseline_ms" "$peer"
  done
}

# ---- Rows

uniform_rows u32 4 4000000000 "673 (RMG, thrust)" 367 268
n_u32=$n_used
uniform_u32_g4=$(result_line sorter 4)
uniform_rows u64 8 2000000000 "" "" 244

if ((present >= 4)) && [[ $n_u32 != 0 ]]; then
  uniform_ms=$(field "$uniform_u32_g4" median_ms)
  for dist in zipf:1.0 bits:10; do
    run_bench --type u32 --count "$n_u32" --dist "$dist" --gpus 4 --no-baseline
    line=$(result_line sorter 4)
    peer=""
    [[ $dist == zipf:1.0 && $n_u32 == 4000000000 ]] && peer=276
    case="$(keys_text "$n_u32") $dist u32"
    if [[ $(field "$line" status) == ok && -n $uniform_ms ]]; then
      rows+=("$(printf '| %s | 4 | %s | %s | %s | %s | %s | %s | %s |' "$case" "$(keys_text "$n_u32")" \
        "$(field "$line" median_ms)" "$(field "$line" gkeys_per_s)" \
        "$(ratio "$(field "$line" median_ms)" "$uniform_ms") of uniform" \
        "$(field "$line" alloc_ms) (plan $(field "$line" plan_ms))" \
        "$(field "$line" copy_in_ms_max) / $(field "$line" histogram_ms_max) / $(field "$line" scatter_ms_max) / $(field "$line" swap_ms_max) / $(field "$line" sort_copy_back_ms_max); $(field "$line" passes) pass(es)" \
        "$peer")")
    else
      sorter_row "$case" "$(keys_text "$n_u32")" 4 "$line" "" "$peer"
    fi
  done
else
  notes+=("zipf:1.0 and bits:10 u32: skipped, they need 4 GPUs ($present present)")
fi

# The partitioning pass with 1e9 keys per GPU, on 4 GPUs (fewer where fewer are present).
pg=1
((present >= 2)) && pg=2
((present >= 4)) && pg=4
target=$((pg * 1000000000))
n=$(fit "$target" 4 "$pg")
if ((pg == 4)) && [[ $n == "$n_u32" && $n != 0 ]]; then
  line=$uniform_u32_g4  # the uniform u32 row's 4-GPU run is this case
elif [[ $n != 0 ]]; then
  run_bench --type u32 --count "$n" --dist uniform --gpus "$pg" --no-baseline
  line=$(result_line sorter "$pg")
else
  line=""
fi
((pg == 4)) || notes+=("partitioning pass: on $pg GPU(s), $present present")
[[ $n == "$target" || $n == 0 ]] || notes+=("partitioning pass: $(keys_text "$n") keys instead of $(keys_text "$target")")
if [[ $(field "$line" status) == ok ]]; then
  row "partitioning pass, uniform u32, $(keys_text $((n / pg))) keys per GPU" "$pg" "$(keys_text "$n")" \
    "$(field "$line" partition_ms_max)" "" "" "" \
    "all passes: the slowest GPU's histogram + scatter kernels, $(field "$line" histogram_ms_max) + $(field "$line" scatter_ms_max) at most, plus the exchange between them" \
    "$([[ $pg == 4 && $n == "$target" ]] && echo "7.2 (2.3 + 4.9)")"
else
  status=$(field "$line" status)
  row "partitioning pass, uniform u32" "$pg" "$([[ $n == 0 ]] || keys_text "$n")" "${status:-not measured}" "" "" "" "" ""
fi

# ---- The table

{
  echo "## In-core sort, $(date -u '+%Y-%m-%d %H:%M UTC'): $present x $gpu_name ($(gib "$gpu_total") GiB), $(nproc) host cores, $(gib "$host_bytes") GiB host memory ($host_source)"
  echo
  echo "Host memory to host memory; times in ms, the median of $repeats runs after one warm-up. Phases:"
  echo "copy in / histogram / scatter / swap / sort + copy out, the slowest GPU, from InCoreStats. Allocation:"
  if [[ -n ${COMPARED_SORT:-} ]]; then
    echo "building the sorter (plan apart). Peer: $(basename "$COMPARED_SORT") on the same keys and GPUs in this run, the median"
    echo "of ${COMPARED_REPEATS:-3}, and rmgsort's time as a ratio to it."
  else
    echo "building the sorter (plan apart). Peer: the RMG sort's own figure on 4 H200s, only where N is the target."
  fi
  echo
  echo "| case | GPUs | keys | ms | G keys/s | vs baseline; vs copy floor | allocation ms | phases ms | peer ms |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  if ((${#notes[@]} > 0)); then
    echo
    printf -- '- %s\n' "${notes[@]}"
  fi
  if ((failed)); then
    echo
    echo "**Some runs failed or produced wrong output: see $log.**"
  fi
} | tee "$table_file"
echo "full log: $log" >&2
exit $((failed ? 1 : 0))
