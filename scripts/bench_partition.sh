#!/usr/bin/env bash
# The partitioning into rounds against its target, measured in one run on this machine (prints a
# markdown table; nothing here is a test): partition_into_rounds throughput >= 0.6 of a parallel
# memcpy of the same bytes (tests/bench/round_partition_bench.cpp, which alternates the two and
# reports medians). The first row is the target's case: 2^LOG2 uniform u64 keys (default 2^28,
# 2 GiB) in rounds of 2^(LOG2-3) keys, about 8 rounds. The others show the key types, the
# descending order and skewed inputs, whose heavy top digits need refinement passes; the last rows
# ("given") are histogram while reading: the partition is given the top-digit histogram that
# read_file's callbacks would have counted (its cost, "add ms", moves into the read).
# Needs three buffers of the keys: 6 GiB of memory at the default size.
# Usage: scripts/bench_partition.sh [LOG2_KEYS] [REPEATS]
# Binary: $ROUND_PARTITION_BENCH (default build/tests/bench/round_partition_bench, else on PATH).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${ROUND_PARTITION_BENCH:-$root/build/tests/bench/round_partition_bench}
[[ -x $bench ]] || bench=$(command -v round_partition_bench)
log2=${1:-28}
repeats=${2:-5}
capacity=$((log2 - 3))

echo "# Partitioning benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "# part/cpy = memcpy ms / partition ms (target >= 0.6); hist/plan/scat: RoundPartitionStats, medians;"
echo "# hist: own (the partition counts the top digits) or given (counted while reading, in add ms)"
echo
run() { "$bench" --log2-keys "$log2" --capacity-log2 "$capacity" --repeats "$repeats" "$@"; }
run --type u64 --dist uniform --header
run --type u32 --dist uniform
run --type f64 --dist uniform --descending
run --type i64 --dist normal
run --type u64 --dist sorted
run --type u64 --dist zipf:1.0
run --type u64 --dist bits:10
run --type u64 --dist uniform --given-histogram
run --type u32 --dist uniform --given-histogram
run --type u64 --dist zipf:1.0 --given-histogram
run --type u64 --dist bits:10 --given-histogram
