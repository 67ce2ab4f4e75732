#!/usr/bin/env bash
# Benchmark suites dealt over the GPUs of one machine, every format of each suite (format=auto
# and the cuSPARSE peers included), then the setup table (issue 24) and auto against the oracle
# (issue 25) over all of them. Each GPU runs its suites one after another, alone on its GPU.
#   scripts/gpu-suites.sh 0:csr,ell 1:bsr@1/2 2:bsr@2/2 3:real
# (SUITE@K/N: every N-th matrix of the suite from the K-th, spmvkit bench --part).
# Env: SKIP_BUILD=1, TIME_LIMIT (s: matrices not started by then are recorded as skipped,
#      default 240), BENCH_ARGS (more bench options), SPMVKIT_COMMIT.
set -uo pipefail
cd "$(dirname "$0")/.."
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
      t0=$(date +%s)
      # shellcheck disable=SC2086  # BENCH_ARGS holds several options
      CUDA_VISIBLE_DEVICES=$gpu OMP_NUM_THREADS=$threads build-gpu/spmvkit bench "$s" "${part[@]}" \
        --backend cuda --time-limit "${TIME_LIMIT:-240}" --json "$OUT/bench_$tag.json" \
        ${BENCH_ARGS:-} > "$OUT/bench_$tag.txt" 2>&1
      echo "bench $item on GPU $gpu: rc=$? in $(( $(date +%s) - t0 ))s" >> "$summary"
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
