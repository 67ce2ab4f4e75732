# G3 (1 GPU): the tree given (COMMIT). The bsr-all suite (reservoir_bsB at ~1e8 values for B =
# 2..32; never measured on an H200 before), every other block size (--part 1/2) as time allows,
# every format, cuSPARSE and auto (model only); its oracle table.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
left=$((T0 + 560 - $(date +%s)))
OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning.tsv timeout $((left)) build-gpu/spmvkit bench bsr-all --part 1/2 \
  --backend cuda --time-limit $((left - 45)) --json $OUT/bench_bsr-all.json > $OUT/bench_bsr-all.txt 2> $OUT/bench_bsr-all.err
echo "bench bsr-all 1/2: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
/usr/bin/python3 bench/report.py oracle $OUT/bench_bsr-all.json > $OUT/oracle_bsr-all.md 2>&1
cat $OUT/summary.txt; tail -n 4 $OUT/oracle_bsr-all.md; tail -n 3 $OUT/bench_bsr-all.err
cd $OUT && gzip -9 *.json; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
