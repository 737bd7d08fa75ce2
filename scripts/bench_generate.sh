#!/usr/bin/env bash
# Does `rmgsort generate` write as fast as the disk? In one run: dd writing SIZE_GIB GiB of zeros
# with O_DIRECT (the disk's speed) against rmgsort generate of the same size for a few
# distributions, into DIR (default /var/tmp). Prints a table; nothing here is a test.
# Usage: scripts/bench_generate.sh [SIZE_GIB] [DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rmgsort=${RMGSORT:-$root/build/app/rmgsort}
size_gib=${1:-4}
dir=${2:-/var/tmp}
file="$dir/rmgsort-bench-generate.bin"
trap 'rm -f "$file"' EXIT

seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>&1; end=$(date +%s.%N); awk -v s="$start" -v e="$end" 'BEGIN { print e - s }'; }
rate() { awk -v g="$size_gib" -v t="$1" 'BEGIN { printf "%.2f", g * 1.073741824 / t }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

rm -f "$file"
disk=$(seconds dd if=/dev/zero of="$file" bs=4M count=$((size_gib * 256)) oflag=direct conv=fsync)
echo "# generate vs disk, $(date -u +%Y-%m-%d), $(nproc) cores, $size_gib GiB into $dir"
printf '| %-40s | %8s | %8s | %12s |\n' "writer" "seconds" "GB/s" "vs dd direct"
printf '|%s|%s|%s|%s|\n' "------------------------------------------" "----------" "----------" "--------------"
printf '| %-40s | %8.2f | %8s | %12s |\n' "dd oflag=direct bs=4M (the disk)" "$disk" "$(rate "$disk")" "1.00"
for dist in uniform:u64 zipf:1.0:u32 normal:u64; do
  type=${dist##*:}
  name=${dist%:*}
  rm -f "$file"
  # sync inside the timing: the page cache must not flatter a buffered tail.
  t=$(seconds sh -c "'$rmgsort' generate -o '$file' -t $type --size ${size_gib}G --dist $name && sync '$file'")
  printf '| %-40s | %8.2f | %8s | %12s |\n' "rmgsort generate --dist $name -t $type" "$t" "$(rate "$t")" \
    "$(ratio "$disk" "$t")"
done
