# H2 (2 GPUs, H200 only): the auto-holdout suite with every format, in halves, time-limited: auto (the
# shipped H200 neighbour table) against the oracle on matrices no table has seen; on any other GPU it stops.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive; DEADLINE=$((T0 + ${BUDGET:-330}))
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
grep -q H200 $OUT/summary.txt || { cat $OUT/summary.txt; echo "not an H200: stopped"; exit 3; }
. scripts/gpu-env.sh
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
half() {  # GPU PART
  local left=$((DEADLINE - $(date +%s)))
  CUDA_VISIBLE_DEVICES=$1 OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_$1.tsv timeout $((left + 60)) build-gpu/spmvkit bench auto-holdout --part $2/2 \
    --backend cuda --time-limit $left --reps 20 --warmup 5 --params 'auto:tune=0' --json $OUT/bench_auto-holdout_$2of2.json > $OUT/bench_auto-holdout_$2of2.txt 2>&1
  echo "bench auto-holdout $2/2 on GPU $1: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
}
half 0 1 & half 1 2 & wait
/usr/bin/python3 bench/report.py oracle $OUT/bench_*.json --svg $OUT/auto_oracle.svg > $OUT/auto_oracle.md 2>&1
cat $OUT/summary.txt; sed -n '/^| variant/,$p' $OUT/auto_oracle.md | head -20
cd $OUT && gzip -9 bench_*.json; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
