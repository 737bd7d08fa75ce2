#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (GPU tests skip, exit 77, without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure --parallel "$(nproc)" "$@"
