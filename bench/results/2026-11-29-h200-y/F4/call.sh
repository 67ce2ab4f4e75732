# F4 (1 GPU): the tree given (COMMIT: be50f2f, bench --builds N in rounds over the formats); the real suite twice more (two processes, --builds 3,
# auto model only); bsr-expand parts 3 and 11 of 16 (in no H200 table; H100's holds them) with
# every format, auto model only and with measured tuning (auto:tune=0|tune=1), --builds 3 as
# D4; auto's oracle ratios.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive; DEADLINE=$((T0 + ${BUDGET:-540}))
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
for r in 2 3; do
  OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_real$r.tsv timeout 100 build-gpu/spmvkit bench real --builds 3 \
    --backend cuda --time-limit 90 --json $OUT/bench_real_$r.json > $OUT/bench_real_$r.txt 2> $OUT/bench_real_$r.err
  echo "bench real ($r): rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
  /usr/bin/python3 bench/report.py oracle $OUT/bench_real_$r.json > $OUT/oracle_real_$r.md 2>&1
done
EXPAND_FORMATS=csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa_static,bsr,bsr_balanced,auto,cusparse_csr_alg1,cusparse_csr_alg2,cusparse_coo,cusparse_bsr,cusparse_bsrmv
n=2
for part in 3 11; do
  left=$((DEADLINE - $(date +%s))); [ $left -lt 20 ] && { echo "bsr-expand $part: not started" >> $OUT/summary.txt; continue; }
  OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_expand$part.tsv timeout $((left + 30)) build-gpu/spmvkit bench bsr-expand --part $part/16 \
    --formats $EXPAND_FORMATS --builds 3 --reps 20 --warmup 5 --params 'auto:tune=0|tune=1' \
    --backend cuda --time-limit $(( (left - 20) / n )) --json $OUT/bench_bsr-expand_${part}of16.json > $OUT/bench_bsr-expand_${part}of16.txt 2>&1
  echo "bench bsr-expand $part/16: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
  n=$((n - 1))
done
/usr/bin/python3 bench/report.py oracle $OUT/bench_bsr-expand_*of16.json > $OUT/oracle_expand.md 2>&1
cat $OUT/summary.txt; for f in $OUT/oracle_real_*.md $OUT/oracle_expand.md; do tail -n 4 $f; done
cd $OUT && gzip -9 *.json; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
