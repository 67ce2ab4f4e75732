# E7 (1 GPU): spmvkit at the tree given (4ed471e's code, 9cb6899); issue 25 on the H200: the
# real suite (35 small SuiteSparse matrices, L2-resident) with every format, cuSPARSE and auto
# (model only), time-limited; auto's oracle ratios (report.py oracle).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
left=$(( ${BUDGET:-330} - ($(date +%s) - T0) ))
OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning.tsv timeout $((left + 20)) build-gpu/spmvkit bench real \
  --backend cuda --time-limit $left --json $OUT/bench_real.json > $OUT/bench_real.txt 2> $OUT/bench_real.err
echo "bench real: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
/usr/bin/python3 bench/report.py oracle $OUT/bench_real.json > $OUT/oracle_real.md 2>&1
cat $OUT/summary.txt; tail -n 4 $OUT/oracle_real.md
cd $OUT && gzip -9 *.json; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
