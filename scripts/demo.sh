#!/usr/bin/env bash
# Installs what is missing, builds, generates 1 GiB of uniform u64 keys, sorts them (on the GPUs
# when present, else on the CPU), checks the result against the input and prints the throughput.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
rmgsort=${BUILD_DIR:-build}/app/rmgsort

work=$(mktemp -d "${TMPDIR:-/tmp}/rmgsort-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$rmgsort" generate -o "$work/keys.u64" -t u64 --size 1G --dist uniform --seed 42
"$rmgsort" sort "$work/keys.u64" -o "$work/sorted.u64" -t u64 --stats "$work/stats.json"
"$rmgsort" check "$work/sorted.u64" -t u64 --input "$work/keys.u64"
python3 - "$work/stats.json" <<'PY' 2>/dev/null || cat "$work/stats.json"
import json, sys
s = json.load(open(sys.argv[1]))
p = s["phases_seconds"]
print(f"sorted {s['keys']:,} {s['key_type']} keys ({s['bytes'] / 2**30:.2f} GiB) on {s['engine']} "
      f"({s['threads']} threads) in {s['wall_seconds']:.2f} s: {s['throughput']['keys_per_second'] / 1e6:.0f} M keys/s "
      f"end to end (read {p['read']:.2f} s, sort {p['sort']:.2f} s, write {p['write']:.2f} s)")
PY
