#!/usr/bin/env bash
# Run on the build machine for a GPU host that lacks the build tools: builds for Hopper (sm_90) into
# ${BUILD_DIR:-build}/ and gathers what the GPU host lacks into .device/ (ignored by git through
# .git/info/exclude; copy .device/ to the GPU host with the tree):
#   .device/bin  rmgsort, the test executables and the benchmarks
#   .device/lib  libtbb.so.12 (+ tbbmalloc) and libnuma.so.1; liburing is linked statically
# On the GPU machine, scripts/device_run.sh sets LD_LIBRARY_PATH and runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
exclude=$(git rev-parse --git-path info/exclude)
grep -qx "/.device/" "$exclude" 2>/dev/null || echo "/.device/" >> "$exclude"

build_dir=${BUILD_DIR:-build}
BUILD_DIR=$build_dir ./scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90
rm -rf .device
mkdir -p .device/bin .device/lib
cp "$build_dir/app/rmgsort" .device/bin/
find "$build_dir/tests" -maxdepth 2 -type f -perm -u+x \( -name '*_test' -o -name '*_bench' \) -exec cp {} .device/bin/ \;
for lib in libtbb.so.12 libtbbmalloc.so.2 libnuma.so.1; do
  cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ {print $NF; exit}')" .device/lib/
done
du -sh .device | awk '{print "device bundle: " $1 " in .device/ (copy it to the GPU host with the tree)"}'
