#!/usr/bin/env bash
# One input larger than 2^31 bytes (2.25 GiB of u32): sizes, offsets and single read/write calls
# must not be limited to 32 bits. About 20 s on 2 cores; needs about 7 GiB of free disk and memory.
# Skipped (77) when the machine is too small or RMGSORT_E2E_SKIP_LARGE is set.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [[ -n "${RMGSORT_E2E_SKIP_LARGE:-}" ]]; then
  echo "RMGSORT_E2E_SKIP_LARGE is set; skipping"
  exit 77
fi
free_disk_kib=$(df -Pk "$WORK" | awk 'NR == 2 { print $4 }')
available_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
if [[ $free_disk_kib -lt $((6 << 20)) || $available_kib -lt $((8 << 20)) ]]; then
  echo "needs 6 GiB of free disk in $WORK and 8 GiB of available memory; skipping"
  exit 77
fi

BYTES=$((2304 << 20))  # 2.25 GiB = 603979776 u32 keys
KEYS=$((BYTES / 4))

begin "generate 2.25 GiB of u32 (more than 2^31 bytes): exit 0, the exact size"
rmg generate -o "$WORK/big.in" -t u32 --size 2304M --seed 91
expect_rc 0
expect_size "$WORK/big.in" "$BYTES"
end

begin "sort the 2.25 GiB file: exit 0, the same size, --stats counts every key"
rmg sort "$WORK/big.in" -o "$WORK/big.out" -t u32 --stats "$WORK/stats.json"
expect_rc 0
expect_size "$WORK/big.out" "$BYTES"
grep -q "\"keys\":$KEYS\b" "$WORK/stats.json" || fail "stats do not count $KEYS keys: $(head -c 300 "$WORK/stats.json")"
expect_no_temp "$WORK"
end

begin "check --input: the 2.25 GiB output is sorted and a permutation of the input"
rmg check "$WORK/big.out" -t u32 --input "$WORK/big.in"
expect_rc 0
expect_stdout "OK" "$KEYS u32 keys in ascending order" "a permutation of"
end

summary
