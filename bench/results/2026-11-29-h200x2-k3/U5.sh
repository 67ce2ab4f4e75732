# U5 (2 x H200): the tree given (COMMIT: U4's code, the shared-matrix tests by name). Every target.
# GPU 0: the tests U4 failed (its carried matrices gzipped; the test fix): ctest -R
# "SolverShared|MatrixMarketShared", then the select, BSR and solver tests. GPU 1: bsr-expand part
# 13 of 16 (block sizes 13 and 29, both K3; U2 measured it before the split rule), every format,
# auto model only, --builds 3.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=ON" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
EXPAND_FORMATS=csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa_static,bsr,bsr_balanced,auto,cusparse_csr_alg1,cusparse_csr_alg2,cusparse_coo,cusparse_bsr,cusparse_bsrmv
END=$((T0 + 290))
( cd build-gpu && CUDA_VISIBLE_DEVICES=0 SPMVKIT_TUNING_FILE=/tmp/tt.tsv timeout $((END - $(date +%s))) ctest -R "SolverShared|MatrixMarketShared|Select|BsrBalanced|BsrPolicy" -j 8 --timeout 120 > $OUT/ctest.txt 2>&1
  echo "ctest: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt ) &
( CUDA_VISIBLE_DEVICES=1 OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t13.tsv timeout $((END - $(date +%s) + 10)) build-gpu/spmvkit bench bsr-expand --part 13/16 \
    --formats $EXPAND_FORMATS --builds 3 --reps 20 --warmup 5 --backend cuda --time-limit $((END - $(date +%s) - 5)) \
    --json $OUT/bench_bsr-expand_13of16.json > $OUT/bench_bsr-expand_13of16.txt 2>&1
  echo "bench bsr-expand 13/16: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt ) &
wait
tail -n 3 $OUT/ctest.txt >> $OUT/summary.txt
/usr/bin/python3 bench/report.py oracle $OUT/bench_bsr-expand_13of16.json 2>&1 | tail -n 1 >> $OUT/summary.txt
cat $OUT/summary.txt
cd $OUT && gzip -9 *.json *.txt; gunzip summary.txt.gz; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
