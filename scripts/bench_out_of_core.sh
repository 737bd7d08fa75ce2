#!/usr/bin/env bash
# rmgsort sort of a file larger than the GPUs' memory (--gpu-memory forces the rounds), from a
# file in DIR to an output in DIR, beside a baseline measured in the same run, and prints a markdown
# table: wall time, its ratio to the baseline, and the phase split from --stats (read, partition,
# GPU sorts of the rounds, the writing the sorts did not hide). Nothing here is a test.
# The baseline depends on DIR's file system:
#   tmpfs (/dev/shm): `cp` of the same file (target: at most 1.5x);
#   a disk: `dd iflag=direct` reading the file plus `dd oflag=direct` writing as many bytes
#   (target: at most 1.3x). The input is dropped from the page cache before each read of it, and
#   rmgsort's wall time includes a `sync` after it, so that neither side reads or writes memory only.
# Usage: [HOST_MEMORY=SIZE] scripts/bench_out_of_core.sh [COUNT] [TYPE] [DIR] [GPU_MEMORY]
#   defaults: 8G u64 /dev/shm 8G (8e9 keys = 64 GB: at least 4 rounds on 4 GPUs of 8 GiB each)
# Needs host memory for twice the keys (three times on tmpfs, which holds the files), and room in
# DIR for two files of the keys' size.
# Binaries: $RMGSORT (default build/app/rmgsort; scripts/gpu_host_run.sh sets it on a GPU host).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rmgsort=${RMGSORT:-$root/build/app/rmgsort}
count=${1:-8G}
type=${2:-u64}
dir=${3:-/dev/shm}
gpu_memory=${4:-8G}
in="$dir/rmgsort-bench-ooc.$type"
sorted_file="$dir/rmgsort-bench-ooc-sorted.$type"
copy="$dir/rmgsort-bench-ooc-copy.$type"
stats=$(mktemp)
trap 'rm -f "$in" "$sorted_file" "$copy" "$stats"' EXIT

seconds_of() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.3f", e - s }'; }
# Drops FILE's pages from the page cache (clean pages only: sync first); no root needed.
evict() {
  sync
  python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
}

"$rmgsort" generate -o "$in" -t "$type" --count "$count" --dist uniform --seed 8
bytes=$(stat -c %s "$in")
fs=$(stat -f -c %T "$dir")
if [[ $fs == tmpfs ]]; then
  # cp first (it also touches the memory the output will take), then remove its copy.
  baseline_name="cp FILE COPY"
  start=$(date +%s.%N); cp "$in" "$copy"; end=$(date +%s.%N)
  baseline_s=$(seconds_of "$start" "$end")
  target=1.5
else
  baseline_name="dd iflag=direct of FILE + dd oflag=direct of as many bytes"
  evict "$in"
  start=$(date +%s.%N)
  dd if="$in" of=/dev/null bs=64M iflag=direct status=none
  dd if=/dev/zero of="$copy" bs=64M count=$(((bytes + (64 << 20) - 1) >> 26)) oflag=direct status=none
  end=$(date +%s.%N)
  baseline_s=$(seconds_of "$start" "$end")
  target=1.3
  evict "$in"
fi
rm -f "$copy"
# On virtual machines whose memory grows as it is touched, so the default reads low: give 3x the keys. A
# smaller HOST_MEMORY (bytes or 40G) than the keys makes the sort go through spill files in DIR.
host_memory=${HOST_MEMORY:-$((bytes * 3))}
start=$(date +%s.%N)
"$rmgsort" sort "$in" -o "$sorted_file" -t "$type" --gpus all --gpu-memory "$gpu_memory" --host-memory "$host_memory" \
  --stats "$stats"
[[ $fs == tmpfs ]] || sync
end=$(date +%s.%N)
wall_s=$(seconds_of "$start" "$end")
"$rmgsort" check "$sorted_file" -t "$type" >/dev/null

python3 - "$stats" "$bytes" "$baseline_s" "$wall_s" "$dir ($fs)" "$baseline_name" "$target" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
size, base_s, wall_s, where = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
base_name, target = sys.argv[6], sys.argv[7]
phases = stats["phases_seconds"]
gpu = stats.get("gpu") or {}
spill = f", spilled {stats['spilled_bytes'] / 1e9:.1f} GB in {stats['spill_levels']} level(s)" if stats.get("spilled") else ""
print(f"# rmgsort sort of {size / 1e9:.1f} GB of {stats['key_type']} in {where}, engine {stats['engine']}, "
      f"GPUs {stats['gpus_selected']}, {stats['rounds']} rounds of at most {gpu.get('round_keys_planned', '?')} keys{spill}, --host-memory {stats['host_memory_limit_bytes'] / 2**30:.1f} GiB")
print("| step | seconds | GB/s |")
print("|---|---|---|")
def row(name, s):
    print(f"| {name} | {s:.3f} | {size / s / 1e9 if s > 0 else 0:.2f} |")
row(f"baseline: {base_name} (same run)", base_s)
row("read", phases["read"])
row("partition into rounds (CPU, page-locking the rounds beside it; spilling: the streaming pass, reading included)", phases["partition"])
row("GPU allocation", phases["gpu_allocate"])
row("sort of every round (GPUs, host memory to host memory)", phases["sort"])
row("write, beyond what the sorts hid", phases["write"])
row("**wall, end to end**", wall_s)
goal = "the issue's target is for keys that fit host memory" if stats.get("spilled") else f"target: at most {target}x"
print(f"\nwall / baseline = **{wall_s / base_s:.2f}x** ({goal})")
print(f"read with O_DIRECT: {stats['read_direct_io']}; peak host memory {stats['peak_host_memory_bytes'] / 1e9:.1f} GB")
print("round keys: " + ", ".join(str(k) for k in stats["round_keys"]))
print("round sort seconds: " + ", ".join(f"{s:.3f}" for s in stats["round_sort_seconds"]))
print("GPU device ms per round: " + ", ".join(f"{s * 1e3:.1f}" for s in gpu.get("device_seconds_per_sort", [])))
locked = gpu.get("host_page_locking")
if locked:
    print(f"rounds page-locked once: {locked['bytes'] / 1e9:.1f} GB in {locked['seconds']:.3f} s beside the partition "
          f"(waited {locked['waited_seconds']:.3f} s after it), released in {locked['release_seconds']:.3f} s"
          + (f"; FAILED: {locked['failure']}" if locked["failure"] else ""))
else:
    print("rounds page-locked once: no (each round page-locked by its sort)")
PY
