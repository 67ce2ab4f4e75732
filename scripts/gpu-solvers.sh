#!/usr/bin/env bash
# The solvers' one command on the GPU machine: build the solver tests and the CLI for Hopper,
# run every solver test (CUDA cases included), then `spmvkit bench solvers`; logs and JSON
# under $OUT, a compact summary printed last.
#   scripts/gpu-solvers.sh [MATRIX ...]   (default: the solvers suite)
# Env: SPMVKIT_COMMIT (the commit to report), SKIP_TESTS=1, SKIP_BENCH=1, BENCH_ARGS,
# SKIP_PRECOND=1 (skips `spmvkit bench precond`: block-Jacobi vs Jacobi, mixed vs f64).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
. scripts/gpu-env.sh
summary=$OUT/summary.txt
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv \
  > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt" > "$summary"
GPU_BUILD_LOG=$OUT/build.log gpu_build build-gpu "" spmvkit_solvers_tests spmvkit_cli \
  | tee -a "$summary" || exit 1

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  t0=$(date +%s)
  OMP_NUM_THREADS=8 build-gpu/tests/spmvkit_solvers_tests > "$OUT/solver_tests.log" 2>&1
  echo "solver tests: rc=$? in $(( $(date +%s) - t0 ))s" | tee -a "$summary"
  grep -E '^\[  (PASSED|FAILED|SKIPPED) \] [0-9]+ test' "$OUT/solver_tests.log" | tee -a "$summary"
  grep -E 'Failure|FAILED  \] All' "$OUT/solver_tests.log" | head -30 | tee -a "$summary"
fi

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  t0=$(date +%s)
  # shellcheck disable=SC2086  # BENCH_ARGS holds several arguments
  build-gpu/spmvkit bench solvers "$@" --backend cuda --json "$OUT/bench_solvers.json" \
    ${BENCH_ARGS:-} > "$OUT/bench_solvers.txt" 2>&1
  echo "bench solvers: rc=$? in $(( $(date +%s) - t0 ))s" >> "$summary"
  cat "$OUT/bench_solvers.txt" >> "$summary"
fi
if [ "${SKIP_PRECOND:-0}" != 1 ]; then
  t0=$(date +%s)
  build-gpu/spmvkit bench precond --backend cuda --json "$OUT/bench_precond.json" \
    > "$OUT/bench_precond.txt" 2>&1
  echo "bench precond: rc=$? in $(( $(date +%s) - t0 ))s" >> "$summary"
  cat "$OUT/bench_precond.txt" >> "$summary"
fi
echo "==== summary ===="
cat "$summary"
