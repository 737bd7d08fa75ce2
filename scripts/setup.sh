#!/usr/bin/env bash
# Installs what rmgsort needs to build and test, if missing (Debian/Ubuntu; idempotent and
# non-interactive). The CUDA toolkit (nvcc, at /usr/local/cuda or on PATH) is optional: without it
# rmgsort builds for the CPU only.
set -euo pipefail

packages=(cmake ninja-build g++ pkg-config libtbb-dev liburing-dev libnuma-dev libcli11-dev libgtest-dev
          nlohmann-json3-dev  # the --stats JSON writer (header-only)
          time  # /usr/bin/time: the spill tests measure peak memory with it
          strace  # the durable-replacement test watches the order of fdatasync and rename with it
          python3-numpy  # numpy: the records tests' independent reference
          help2man  # the man page, generated from --help (without it the build leaves the page out)
          openmpi-bin libopenmpi-dev)  # sort --distributed and its tests (mpirun)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]} > 0)); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install ${missing[*]}" >&2; exit 2; }
    sudo_cmd=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "setup: nvcc (the CUDA toolkit) is not on PATH or in /usr/local/cuda/bin: rmgsort will be built for the CPU only" >&2
fi
