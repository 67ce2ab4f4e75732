# U2 (2 x H200): the tree given (COMMIT: the H200's f64 K3 at bs 29 in one pass). GPU 0: the BSR
# tests (`ctest -R "Bsr|bsr"`); then balanced BSR's segment length lambda (4, 8, 16, 32; the rule
# gives 16 or 32) on the real matrices expanded at bs 16, 22 and 29 (K3 on the H200; U1:
# expand_bs22_hangGlider_2's one long block row in 32-block segments left bsr_balanced at 1.35x
# cuSPARSE COO). GPU 1: bsr-expand part 13 of 16 (block sizes 13 and 29), every format, auto
# model only, --builds 3 (T1 measured it with the two-pass K3 at bs 29).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
EXPAND_FORMATS=csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa_static,bsr,bsr_balanced,auto,cusparse_csr_alg1,cusparse_csr_alg2,cusparse_coo,cusparse_bsr,cusparse_bsrmv
NAMES=$(tail -n +2 .deps/matrices/MANIFEST.tsv | cut -f1)
END=$((T0 + 420))
( cd build-gpu && CUDA_VISIBLE_DEVICES=0 SPMVKIT_TUNING_FILE=/tmp/tt.tsv timeout 200 ctest -R "Bsr|bsr" -j 8 --timeout 120 > $OUT/ctest.txt 2>&1
  echo "ctest Bsr|bsr: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
  cd .. && M=""; for bs in 16 22 29; do for n in $NAMES; do M="$M expand_bs${bs}_$n"; done; done
  CUDA_VISIBLE_DEVICES=0 OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/tl.tsv timeout $((END - $(date +%s) + 10)) build-gpu/spmvkit bench $M \
      --formats bsr,bsr_balanced,cusparse_coo --params "bsr_balanced:lambda=4|lambda=8|lambda=16|lambda=32" \
      --reps 20 --warmup 5 --no-check --backend cuda --time-limit $((END - $(date +%s) - 5)) --json $OUT/lambda.json > $OUT/lambda.txt 2>&1
  echo "lambda: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt ) &
( CUDA_VISIBLE_DEVICES=1 OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t13.tsv timeout $((END - $(date +%s) + 15)) build-gpu/spmvkit bench bsr-expand --part 13/16 \
    --formats $EXPAND_FORMATS --builds 3 --reps 20 --warmup 5 --backend cuda --time-limit $((END - $(date +%s) - 10)) \
    --json $OUT/bench_bsr-expand_13of16.json > $OUT/bench_bsr-expand_13of16.txt 2>&1
  echo "bench bsr-expand 13/16: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt ) &
wait
tail -n 3 $OUT/ctest.txt >> $OUT/summary.txt
/usr/bin/python3 bench/report.py oracle $OUT/bench_bsr-expand_13of16.json 2>&1 | tail -n 1 >> $OUT/summary.txt
cat $OUT/summary.txt
cd $OUT && gzip -9 *.json *.txt; gunzip summary.txt.gz; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
