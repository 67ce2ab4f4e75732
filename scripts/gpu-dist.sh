#!/usr/bin/env bash
# The distributed layer's one command on the GPU machine: build the dist tests and tools for
# Hopper, run the tests with 1 rank (MPI and NCCL transports, multi-GPU BSR over the visible
# GPUs), 2 ranks (on one GPU: MPI through pinned host buffers; on several: NCCL too, a GPU a
# rank), 3 ranks (the CUDA tests only: the merged CUDA solver's reductions over an odd rank
# count) and, with 4 GPUs or more, 4 ranks; then the
# overhead of the distributed operator with 1 rank against the plain operator on a ~1e8
# nonzero matrix (stencil27_155, 9.7e7 nonzeros), the merged against the reference CUDA
# solver over 1 and 2 ranks (SOLVE_MATRIX), and a power-law matrix's nonzeros per rank (its
# rows generated per rank, balanced by nonzeros). Logs and JSON under $OUT, summary last.
#   scripts/gpu-dist.sh        Env: MATRIX (default stencil27_155), FORMAT (default csr_vector),
#                              SOLVE_MATRIX (default convdiff3d_100)
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
gpus=$(nvidia-smi -L | grep -c '^GPU')
nps="1 2 3"
[ "$gpus" -ge 4 ] && nps="1 2 3 4"
for np in $nps; do
  t0=$(date +%s)
  filter=""
  [ $np = 3 ] && filter="--gtest_filter=DistCuda.*"
  OMP_NUM_THREADS=4 timeout 900 $mpi -n $np build-gpu/tests/spmvkit_dist_tests $filter \
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
# The merged CUDA solver over ranks (its reductions summed at each reduction point) beside the
# reference one: the same iterations within 1-2, the true residual, the time per iteration.
S=${SOLVE_MATRIX:-convdiff3d_100}
for np in 1 2; do
  for impl in reference merged; do
    $mpi -n $np build-gpu/spmvkit-dist solve "$S" --method bicgstab --impl $impl --backend cuda \
      --format "$F" --rtol 1e-8 --maxiter 2000 --json "$OUT/solve_${impl}_np$np.json" \
      >> "$summary" 2>&1
    echo "spmvkit-dist solve $S bicgstab $impl, $np rank(s): rc=$?" >> "$summary"
  done
done
# A power-law matrix generated per rank: nonzeros per rank (balanced by nonzeros).
$mpi -n 2 build-gpu/spmvkit-dist spmv powerlaw_2000000 --format "$F" --backend cuda --runs 10 \
  --json "$OUT/powerlaw_2ranks.json" >> "$summary" 2>&1
echo "spmvkit-dist 2 ranks powerlaw_2000000: rc=$?" >> "$summary"
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print("powerlaw nnz per rank:", [p["nnz"] for p in r["per_rank"]])' \
  "$OUT/powerlaw_2ranks.json" >> "$summary" 2>&1
# The one-process CLI under mpirun (spmvkit bench|solve --dist) on the GPU: NCCL with a GPU a
# rank where there are 2 GPUs, else MPI with both ranks on the one GPU.
t=mpi
[ "$gpus" -ge 2 ] && t=nccl
timeout 120 $mpi -n 2 build-gpu/spmvkit bench stencil27_100 --dist --backend cuda --transport $t \
  --formats csr_vector,sellp --reps 20 --json "$OUT/cli_bench_dist.json" >> "$summary" 2>&1
echo "spmvkit bench --dist --backend cuda, 2 ranks, $t: rc=$?" >> "$summary"
timeout 120 $mpi -n 2 build-gpu/spmvkit solve convdiff3d_60 --dist --backend cuda --transport $t \
  --method bicgstab --impl merged --format csr_vector --rtol 1e-8 >> "$summary" 2>&1
echo "spmvkit solve --dist --backend cuda, 2 ranks, $t: rc=$?" >> "$summary"
echo "==== summary ===="
cat "$summary"
