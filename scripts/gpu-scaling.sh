#!/usr/bin/env bash
# Multi-GPU scaling (issue 28) on a machine of several GPUs, one MPI rank a GPU, NCCL
# transport, f64 (docs/distributed.md): strong scaling of SpMV (row blocks with and without
# overlap) and of merged CG/BiCGSTAB iterations on 1, 2, 4 GPUs; weak scaling at about 1e8
# nonzeros a GPU; the BSR paper's 1D-cyclic scheme in one process over the same GPU counts.
# Every matrix is generated on the ranks (no rank holds more than its rows). JSON per run
# under $OUT (each record with `ranks`: the GPUs used), the tables and an SVG plot by
# bench/scaling.py, summary last.
#   SKIP_BUILD=1 scripts/gpu-scaling.sh
# Env: GPU_COUNTS (default "1 2 4", cut to the visible GPUs), FORMAT (row blocks, default
#      csr_balanced), STRONG, WEAK1/WEAK2/WEAK4 (matrix lists), CYCLIC, RUNS (default 30),
#      ITERS (solver iterations timed, default 100), SMALL=1 (small sizes: a check of the
#      script itself, CPU backend allowed with BACKEND=cpu).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT/scaling"
export NCCL_NVLS_ENABLE=0  # KINDS.md: no NVLink multicast
BACKEND=${BACKEND:-cuda}
summary=$OUT/scaling_summary.txt
: > "$summary"
if [ "$BACKEND" = cuda ]; then
  . scripts/gpu-env.sh
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >> "$summary" 2>&1
  visible=$(nvidia-smi -L | grep -c '^GPU')
  if [ "${SKIP_BUILD:-0}" != 1 ]; then
    GPU_BUILD_LOG=$OUT/scaling_build.log gpu_build build-gpu "" spmvkit_dist_cli | tee -a "$summary" ||
      exit 1
  fi
  bin=build-gpu/spmvkit-dist
  transport=nccl
else
  visible=4
  bin=${BIN:-build/spmvkit-dist}
  transport=mpi
fi
counts=()
for g in ${GPU_COUNTS:-1 2 4}; do [ "$g" -le "$visible" ] && counts+=("$g"); done
echo "GPU counts: ${counts[*]} (visible: $visible)" | tee -a "$summary"
mpi="mpirun --oversubscribe --bind-to none"
[ "$(id -u)" = 0 ] && mpi="$mpi --allow-run-as-root"
cores=$(nproc)
F=${FORMAT:-csr_balanced}
RUNS=${RUNS:-30}
ITERS=${ITERS:-100}
if [ "${SMALL:-0}" = 1 ]; then
  STRONG=${STRONG:-reservoir_bs7_12 stencil27_30 powerlaw_200000}
  WEAK1=${WEAK1:-reservoir_bs7_10 stencil27_20 powerlaw_50000}
  WEAK2=${WEAK2:-reservoir_bs7_12 stencil27_25 powerlaw_100000}
  WEAK4=${WEAK4:-reservoir_bs7_16 stencil27_32 powerlaw_200000}
  CYCLIC=${CYCLIC:-reservoir_bs7_12}
fi
# Strong: reservoir bs 7 (105^3 cells, 3.97e8 nonzeros), 27-point stencil (235^3, 3.5e8),
# power-law (3.2e7 rows, 4.0e8). Weak: about 1e8 nonzeros a GPU.
STRONG=${STRONG:-reservoir_bs7_105 stencil27_235 powerlaw_32000000}
WEAK1=${WEAK1:-reservoir_bs7_66 stencil27_155 powerlaw_8000000}
WEAK2=${WEAK2:-reservoir_bs7_83 stencil27_195 powerlaw_16000000}
WEAK4=${WEAK4:-reservoir_bs7_105 stencil27_246 powerlaw_32000000}
CYCLIC=${CYCLIC:-reservoir_bs7_105 stencil27_235}

# run P MATRIX: one spmvkit-dist spmv over P ranks (SpMV with and without overlap, then the
# solver iterations), its JSON as $OUT/scaling/MATRIX_npP.json (skipped when there already).
run() {
  local p=$1 m=$2 j=$OUT/scaling/${2}_np$1.json t0
  [ -s "$j" ] && return 0
  t0=$(date +%s)
  OMP_NUM_THREADS=$(( cores / p > 1 ? cores / p : 1 )) timeout 300 $mpi -n "$p" "$bin" spmv "$m" \
    --format "$F" --backend "$BACKEND" --transport "$transport" --overlap both --runs "$RUNS" \
    --solve-iters "$ITERS" --json "$j" >> "$summary" 2>&1
  echo "  ($m on $p: rc=$? in $(( $(date +%s) - t0 ))s)" >> "$summary"
}
echo "== strong scaling (format $F, transport $transport)" >> "$summary"
for m in $STRONG; do for p in "${counts[@]}"; do run "$p" "$m"; done; done
echo "== weak scaling" >> "$summary"
for p in "${counts[@]}"; do
  list=WEAK$p
  for m in ${!list:-}; do run "$p" "$m"; done
done
echo "== 1D-cyclic BSR (one process)" >> "$summary"
gl=$(IFS=,; echo "${counts[*]}")
for m in $CYCLIC; do
  t0=$(date +%s)
  OMP_NUM_THREADS=$cores timeout 400 $mpi -n 1 "$bin" cyclic "$m" --gpus "$gl" --backend "$BACKEND" \
    --runs "$RUNS" --json "$OUT/scaling/cyclic_$m.json" >> "$summary" 2>&1
  echo "  (cyclic $m: rc=$? in $(( $(date +%s) - t0 ))s)" >> "$summary"
done
python3 bench/scaling.py "$OUT"/scaling/*.json --svg "$OUT/scaling.svg" > "$OUT/scaling.md" 2>&1
cat "$OUT/scaling.md" >> "$summary"
echo "==== scaling summary ===="
cat "$summary"
