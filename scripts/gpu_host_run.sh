#!/usr/bin/env bash
# Run on the GPU host, from the repository root, over a bundle made by scripts/gpu_host_bundle.sh:
#   scripts/gpu_host_run.sh tests [GTEST_FILTER]   every test executable (77 = skipped) + end-to-end tests
#   scripts/gpu_host_run.sh CMD ARGS...            any command with the bundle's environment
# Logs go to $RMGSORT_LOG_DIR when it is set.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export LD_LIBRARY_PATH="$root/.gpu-host/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$root/.gpu-host/bin:$PATH"
export RMGSORT="$root/.gpu-host/bin/rmgsort"
export NCCL_NVLS_ENABLE=0  # any NCCL program run through this script leaves NVLink multicast off
log_dir=${RMGSORT_LOG_DIR:-/tmp}

if [[ ${1:-} != tests ]]; then
  exec "$@"
fi

passed=0 failed=0 skipped=0
for test in "$root"/.gpu-host/bin/*_test; do
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
