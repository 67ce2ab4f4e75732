#!/usr/bin/env bash
# Benchmark suites dealt over the GPUs of one machine, every format of each suite (format=auto
# and the cuSPARSE peers included), then the setup table (issue 24) and auto against the oracle
# (issue 25) over all of them. Each GPU runs its suites one after another, alone on its GPU.
#   scripts/gpu-suites.sh 0:csr,ell 1:bsr@1/2 2:bsr@2/2 3:real
# (SUITE@K/N: every N-th matrix of the suite from the K-th, spmvkit bench --part).
# Env: SKIP_BUILD=1, TIME_LIMIT (s: matrices not started by then are recorded as skipped,
#      default 240), BUDGET (s from the start, shared by every GPU: each suite gets what is
#      left as its time limit, and one with under 40 s left is not started; unset: none),
#      BENCH_ARGS (more bench options, every suite), EXPAND_ARGS (bsr-expand's; default every
#      format with auto and the cuSPARSE peers, --builds 3 --reps 20 --warmup 5), REAL_ARGS
#      (real's; default --builds 3), SPMVKIT_COMMIT.
set -uo pipefail
start=$(date +%s)
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
. scripts/gpu-env.sh
export NCCL_NVLS_ENABLE=0
export SPMVKIT_TUNING_FILE=${SPMVKIT_TUNING_FILE:-$OUT/tuning.tsv}
summary=$OUT/suites_summary.txt
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$summary" 2>&1
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  GPU_BUILD_LOG=$OUT/build.log gpu_build build-gpu "" spmvkit_cli | tee -a "$summary" || exit 1
fi
n=$#
threads=$(( $(nproc) / (n > 0 ? n : 1) ))
for spec in "$@"; do
  gpu=${spec%%:*}
  (
    IFS=, read -ra list <<< "${spec#*:}"
    for item in "${list[@]}"; do
      s=${item%@*} part=() tag=$item
      if [ "$item" != "$s" ]; then
        part=(--part "${item#*@}")
        tag=${s}_${item#*@}
        tag=${tag//\//of}
      fi
      limit=${TIME_LIMIT:-240} stop=()
      if [ -n "${BUDGET:-}" ]; then
        limit=$(( start + BUDGET - $(date +%s) ))
        if [ "$limit" -lt 40 ]; then
          echo "bench $item on GPU $gpu: not started (${limit}s of BUDGET left)" >> "$summary"
          continue
        fi
        stop=(timeout $(( limit + 30 )))  # the matrix running at the deadline: 30 s more
      fi
      extra=()
      case $s in
        bsr-expand) read -ra extra <<< "${EXPAND_ARGS:---formats csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa_static,bsr,bsr_balanced,auto,cusparse_csr_alg1,cusparse_csr_alg2,cusparse_coo,cusparse_bsr,cusparse_bsrmv --builds 3 --reps 20 --warmup 5}" ;;
        real) read -ra extra <<< "${REAL_ARGS:---builds 3}" ;;
      esac
      t0=$(date +%s)
      # shellcheck disable=SC2086  # BENCH_ARGS holds several options
      CUDA_VISIBLE_DEVICES=$gpu OMP_NUM_THREADS=$threads "${stop[@]}" \
        build-gpu/spmvkit bench "$s" "${part[@]}" "${extra[@]}" --backend cuda \
        --time-limit "$limit" --json "$OUT/bench_$tag.json" ${BENCH_ARGS:-} \
        > "$OUT/bench_$tag.txt" 2>&1
      echo "bench $item on GPU $gpu: rc=$? in $(( $(date +%s) - t0 ))s at $(( $(date +%s) - start ))s" >> "$summary"
    done
  ) &
done
wait
jsons=("$OUT"/bench_*.json)
if [ -e "${jsons[0]}" ]; then
  python3 bench/report.py setup "${jsons[@]}" > "$OUT/setup_table.md" 2>&1
  python3 bench/report.py oracle "${jsons[@]}" --svg "$OUT/auto_oracle.svg" > "$OUT/auto_oracle.md" 2>&1
  sed -n '/^| variant/,$p' "$OUT/auto_oracle.md" >> "$summary"
fi
echo "==== suites summary ===="
cat "$summary"
