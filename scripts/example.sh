#!/usr/bin/env bash
# The main job on a generated example: install what is missing, build, benchmark SpMV on a
# 3D 27-point stencil (2.7M nonzeros on the CPU; 91M on a GPU) next to cuSPARSE.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh
if build/spmvkit bench --formats csr_scalar --reps 1 --warmup 0 --no-check stencil7_2 --backend cuda >/dev/null 2>&1; then
  build/spmvkit bench stencil27_150 --backend cuda
else
  build/spmvkit info stencil27_30
  build/spmvkit bench stencil27_100 --backend cpu --reps 20
fi
