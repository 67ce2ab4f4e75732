# F1 (1 GPU): the tree given (COMMIT), every target built; the real suite (35 SuiteSparse
# matrices, L2-resident) with every format, cuSPARSE and auto (model only), each format built
# 3 times (--builds 3: a record the median of its builds' medians); auto's oracle ratios; then
# every GPU test (scripts/gpu_tests.py).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=ON" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning.tsv timeout 200 build-gpu/spmvkit bench real --builds 3 \
  --backend cuda --time-limit 180 --json $OUT/bench_real.json > $OUT/bench_real.txt 2> $OUT/bench_real.err
echo "bench real: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
/usr/bin/python3 bench/report.py oracle $OUT/bench_real.json > $OUT/oracle_real.md 2>&1
DEADLINE=$((T0 + 570)) /usr/bin/python3 scripts/gpu_tests.py build-gpu $OUT > $OUT/tests.txt 2>&1
echo "tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt; tail -n 4 $OUT/oracle_real.md; tail -n 25 $OUT/tests.txt
cd $OUT && gzip -9 *.json; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
