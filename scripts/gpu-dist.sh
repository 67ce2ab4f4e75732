#!/usr/bin/env bash
# The distributed layer's one command on the GPU machine (one GPU): build the dist tests and
# tools for Hopper, run the tests with 1 rank (MPI and NCCL transports, multi-GPU BSR with the
# one GPU) and 2 ranks on the one GPU (MPI transport through pinned host buffers), then the
# overhead of the distributed operator with 1 rank against the plain operator on a ~1e8
# nonzero matrix (stencil27_155, 9.7e7 nonzeros). Logs and JSON under $OUT, summary last.
#   scripts/gpu-dist.sh        Env: MATRIX (default stencil27_155), FORMAT (default csr_vector)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
. scripts/gpu-env.sh
summary=$OUT/summary.txt
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$summary" 2>&1
GPU_BUILD_LOG=$OUT/build.log gpu_build build-gpu "" spmvkit_dist_tests spmvkit_dist_cli spmvkit_cli \
  | tee -a "$summary" || exit 1
grep -E 'spmvkit: (MPI|CUDA)' "$OUT/build.log" | tee -a "$summary"
mpi="mpirun --oversubscribe"
[ "$(id -u)" = 0 ] && mpi="$mpi --allow-run-as-root"
for np in 1 2; do
  t0=$(date +%s)
  OMP_NUM_THREADS=4 timeout 900 $mpi -n $np build-gpu/tests/spmvkit_dist_tests \
    > "$OUT/dist_tests_np$np.log" 2>&1
  echo "dist tests, $np rank(s) on the GPU: rc=$? in $(( $(date +%s) - t0 ))s" | tee -a "$summary"
  grep -E '^\[  (PASSED|FAILED|SKIPPED) \]' "$OUT/dist_tests_np$np.log" | tee -a "$summary"
  grep -E 'Failure' -A3 "$OUT/dist_tests_np$np.log" | head -30 | tee -a "$summary"
done
M=${MATRIX:-stencil27_155}
F=${FORMAT:-csr_vector}
build-gpu/spmvkit bench "$M" --formats "$F" --backend cuda --json "$OUT/plain.json" \
  > "$OUT/plain.txt" 2>&1
echo "plain operator: rc=$?" >> "$summary"
cat "$OUT/plain.txt" >> "$summary"
for t in mpi nccl; do
  $mpi -n 1 build-gpu/spmvkit-dist spmv "$M" --format "$F" --backend cuda --transport $t \
    --runs 50 --json "$OUT/dist_1rank_$t.json" >> "$summary" 2>&1
  echo "spmvkit-dist 1 rank $t: rc=$?" >> "$summary"
done
$mpi -n 2 build-gpu/spmvkit-dist spmv "$M" --format "$F" --backend cuda --transport mpi \
  --runs 20 --json "$OUT/dist_2ranks_mpi.json" >> "$summary" 2>&1
echo "spmvkit-dist 2 ranks (one GPU) mpi: rc=$?" >> "$summary"
echo "==== summary ===="
cat "$summary"
