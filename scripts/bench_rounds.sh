#!/usr/bin/env bash
# Keys larger than the GPUs' memory, host memory to host memory through the rounds pipeline (the
# CPU partition into rounds, each round sorted by the GPUs), without file I/O, beside the bounds
# measured in the same run: a host copy on every core (the partition's) and the GPUs' pinned copies
# in and out (the rounds'). Prints a markdown table (tests/bench/rounds_bench.cu says what each row
# is); the last run checks the output. Nothing here is a test.
# PARTITION "gpu" measures the rounds sorted on the GPUs alone (gpu/rounds_on_gpus.hpp), "both" the
# two pipelines in the same run.
# Usage: scripts/bench_rounds.sh [COUNT] [TYPE] [GPUS] [GPU_MEMORY] [REPEATS] [PARTITION]
#   defaults: 8G u64 0,1 8G 2 cpu (8e9 u64 keys = 64 GB, at least 4 rounds on 2 GPUs of 8 GiB each)
# Needs host memory for three times the keys (the generated input, its copy, the partition).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${ROUNDS_BENCH:-$(command -v rounds_bench || echo "$root/build/tests/bench/rounds_bench")}
echo "<!-- $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPU threads, commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?') -->"
"$bench" --count "${1:-8G}" --type "${2:-u64}" --gpus "${3:-0,1}" --gpu-memory "${4:-8G}" --repeats "${5:-2}" --partition "${6:-cpu}"
