# E8 (1 GPU): spmvkit at the tree given (d1e607b: auto's block test merging rows' sorted block
# columns); the select GPU tests (device-CSR features among them); the real suite again with
# every format, cuSPARSE and auto (E7's, for arrow's selection).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=ON" spmvkit_cli spmvkit_select_tests | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
(cd build-gpu && timeout 120 tests/spmvkit_select_tests > $OUT/select_tests.txt 2>&1; echo "select tests rc=$?" >> $OUT/summary.txt)
grep -hE "^\[  PASSED|^\[  FAILED|SKIPPED \] [0-9]" $OUT/select_tests.txt >> $OUT/summary.txt
OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning.tsv timeout 200 build-gpu/spmvkit bench real \
  --backend cuda --time-limit 180 --json $OUT/bench_real.json > $OUT/bench_real.txt 2> $OUT/bench_real.err
echo "bench real: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
/usr/bin/python3 bench/report.py oracle $OUT/bench_real.json > $OUT/oracle_real.md 2>&1
cat $OUT/summary.txt; grep -E "^\| arrow" $OUT/oracle_real.md; tail -n 3 $OUT/oracle_real.md
cd $OUT && gzip -9 *.json; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
