#!/usr/bin/env bash
# Run ON the GPU machine, from the repository root, over a bundle made by scripts/device_bundle.sh:
#   scripts/device_run.sh tests [GTEST_FILTER]   every test executable (77 = skipped) + end-to-end tests
#   scripts/device_run.sh CMD ARGS...            any command with the bundle's environment
# Logs go to $OUT when it is set.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export LD_LIBRARY_PATH="$root/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$root/.device/bin:$PATH"
export RMGSORT="$root/.device/bin/rmgsort"
export NCCL_NVLS_ENABLE=0  # never NVLink multicast on the shared machines
log_dir=${OUT:-/tmp}

if [[ ${1:-} != tests ]]; then
  exec "$@"
fi

passed=0 failed=0 skipped=0
for test in "$root"/.device/bin/*_test; do
  name=$(basename "$test")
  "$test" ${2:+--gtest_filter="$2"} >"$log_dir/$name.log" 2>&1
  case $? in
    0) passed=$((passed + 1)); echo "PASS $name" ;;
    77) skipped=$((skipped + 1)); echo "SKIP $name" ;;
    *) failed=$((failed + 1)); echo "FAIL $name (log: $log_dir/$name.log)"; tail -20 "$log_dir/$name.log" ;;
  esac
done
for test in "$root"/tests/e2e/*_test.sh; do
  [[ -e $test ]] || continue
  name=$(basename "$test" .sh)
  bash "$test" "$RMGSORT" >"$log_dir/$name.log" 2>&1
  case $? in
    0) passed=$((passed + 1)); echo "PASS $name" ;;
    77) skipped=$((skipped + 1)); echo "SKIP $name" ;;
    *) failed=$((failed + 1)); echo "FAIL $name (log: $log_dir/$name.log)"; tail -20 "$log_dir/$name.log" ;;
  esac
done
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
