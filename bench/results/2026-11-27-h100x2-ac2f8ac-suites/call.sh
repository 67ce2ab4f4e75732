# F1 (2 GPUs): every format + auto[tune=0] on auto-train (halves), csr, real, ell, bsr.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive; DEADLINE=$((T0 + ${BUDGET:-500}))
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
run_list() {  # GPU ITEM...
  local gpu=$1; shift
  for item in "$@"; do
    local s=${item%@*} part=() tag=$item
    [ "$item" != "$s" ] && { part=(--part "${item#*@}"); tag=${s}_${item#*@}; tag=${tag//\//of}; }
    local left=$((DEADLINE - $(date +%s))); [ $left -lt 15 ] && { echo "bench $item on GPU $gpu: not started" >> $OUT/summary.txt; continue; }
    local t0=$(date +%s)
    CUDA_VISIBLE_DEVICES=$gpu OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_$tag.tsv timeout $((left + 60)) build-gpu/spmvkit bench "$s" "${part[@]}" \
      --backend cuda --time-limit $left --params 'auto:tune=0' --json $OUT/bench_$tag.json > $OUT/bench_$tag.txt 2>&1
    echo "bench $item on GPU $gpu: rc=$? in $(( $(date +%s) - t0 ))s" >> $OUT/summary.txt
  done
}
run_list 0 auto-train@1/2 csr real &
run_list 1 auto-train@2/2 ell bsr &
wait
echo "suites done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
/usr/bin/python3 bench/report.py oracle $OUT/bench_*.json --svg $OUT/auto_oracle.svg > $OUT/auto_oracle.md 2>&1
cat $OUT/summary.txt; sed -n '/^| variant/,$p' $OUT/auto_oracle.md | head -30
cd $OUT && gzip -9 bench_*.json; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
