#!/usr/bin/env bash
# Installs the Debian packages spmvkit needs, only those that are missing; packages named as
# arguments too (scripts/fuzz.sh passes its clang).
set -euo pipefail
packages=(cmake ninja-build g++ git zlib1g-dev libgtest-dev libcli11-dev nlohmann-json3-dev
          libeigen3-dev
          # the distributed layer (dist/): MPI and METIS
          libopenmpi-dev openmpi-bin libmetis-dev
          # the Python module and its tests (python/); numpy and scipy also for bench/fit_select.py
          python3-dev python3-pybind11 pybind11-dev python3-numpy python3-scipy python3-pytest
          python3-pip python3-setuptools python3-wheel
          "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# CUDA is optional: with nvcc on the PATH or in /usr/local/cuda the CUDA backend is built too.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "export PATH=/usr/local/cuda/bin:\$PATH" >&2
fi
