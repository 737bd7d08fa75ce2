#!/usr/bin/env bash
# Run on the build machine for a GPU host that lacks the build tools: builds for Hopper (sm_90) into
# ${BUILD_DIR:-build}/ and gathers what the GPU host lacks into .gpu-host/ (ignored by git through
# .git/info/exclude; copy .gpu-host/ to the GPU host with the tree):
#   .gpu-host/bin  rmgsort, the test executables and the benchmarks
#   .gpu-host/lib  libtbb.so.12 (+ tbbmalloc) and libnuma.so.1; liburing is linked statically
# On the GPU host, scripts/gpu_host_run.sh sets LD_LIBRARY_PATH and runs them.
# Arguments are passed to CMake: -DRMGSORT_FAULT_INJECTION=ON builds the tests' fault hook
# (tests/e2e/gpu_faults_test.sh and gpu_faults_test skip without it); never for production use.
set -euo pipefail
cd "$(dirname "$0")/.."
exclude=$(git rev-parse --git-path info/exclude)
grep -qx "/.gpu-host/" "$exclude" 2>/dev/null || echo "/.gpu-host/" >> "$exclude"

build_dir=${BUILD_DIR:-build}
BUILD_DIR=$build_dir ./scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90 "$@"
rm -rf .gpu-host
mkdir -p .gpu-host/bin .gpu-host/lib
cp "$build_dir/app/rmgsort" .gpu-host/bin/
find "$build_dir/tests" -maxdepth 2 -type f -perm -u+x \( -name '*_test' -o -name '*_bench' \) -exec cp {} .gpu-host/bin/ \;
for lib in libtbb.so.12 libtbbmalloc.so.2 libnuma.so.1; do
  cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ {print $NF; exit}')" .gpu-host/lib/
done
du -sh .gpu-host | awk '{print "GPU host bundle: " $1 " in .gpu-host/ (copy it to the GPU host with the tree)"}'
