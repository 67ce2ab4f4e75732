# S5 (1 GPU): the tree given (COMMIT: 843e9b1's code, cuSPARSE COO an auto candidate): bsr-expand part
# 11 of 16 (in no H200 table; expand_bs11_rajat01, where cuSPARSE COO led every format of ours in F4,
# is in it) with every format, auto model only, --builds 3 as F4; auto's oracle ratios.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
EXPAND_FORMATS=csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa_static,bsr,bsr_balanced,auto,cusparse_csr_alg1,cusparse_csr_alg2,cusparse_coo,cusparse_bsr,cusparse_bsrmv
left=$((T0 + 330 - $(date +%s)))
OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_expand11.tsv timeout $((left + 10)) build-gpu/spmvkit bench bsr-expand --part 11/16 \
  --formats $EXPAND_FORMATS --builds 3 --reps 20 --warmup 5 --backend cuda --time-limit $((left - 10)) \
  --json $OUT/bench_bsr-expand_11of16.json > $OUT/bench_bsr-expand_11of16.txt 2>&1
echo "bench bsr-expand 11/16: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
/usr/bin/python3 bench/report.py oracle $OUT/bench_bsr-expand_11of16.json > $OUT/oracle_expand.md 2>&1
cat $OUT/summary.txt; tail -n 4 $OUT/oracle_expand.md
cd $OUT && gzip -9 *.json; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
