# D5 (1 H100): the spmvkit target; half of the auto-holdout suite (--part 1/2: 16 generated matrices no table has seen),
# every format, auto[tune=0]; the oracle table.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
left=$(( ${BUDGET:-230} - ($(date +%s) - T0) ))
OMP_NUM_THREADS=16 timeout $((left + 40)) build-gpu/spmvkit bench auto-holdout --part 1/2 --backend cuda --params 'auto:tune=0' \
  --time-limit $left --json $OUT/bench_auto-holdout_1of2.json > $OUT/bench_auto-holdout_1of2.txt 2>&1
echo "bench auto-holdout@1/2: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
/usr/bin/python3 bench/report.py oracle $OUT/bench_*.json > $OUT/auto_oracle.md 2>&1
cat $OUT/summary.txt; sed -n '/^| variant/,$p' $OUT/auto_oracle.md; grep -c " ok" $OUT/bench_auto-holdout_1of2.txt
cd $OUT && gzip -9 bench_*.json; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
