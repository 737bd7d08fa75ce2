#!/usr/bin/env bash
# What fresh and recycled host memory, page-locking and writing a file cost on this machine: the
# figures the out-of-core sort's buffer plan rests on (tests/bench/host_memory_bench.cu says what
# each row is). Prints a markdown table. Nothing here is a test.
# Usage: scripts/bench_host_memory.sh [GIB] [DIR]   defaults: 32 /dev/shm (needs ~4x GIB of memory)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${HOST_MEMORY_BENCH:-$(command -v host_memory_bench || echo "$root/build/tests/bench/host_memory_bench")}
gib=${1:-32}
dir=${2:-/dev/shm}
echo "<!-- $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo '?'), shmem THP $(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null || echo '?') -->"
"$bench" "$gib" "$dir"
