# T1 (4 x H200): the tree given (COMMIT). bsr-expand parts 5, 7, 9 and 13 of 16 (block sizes 5, 7, 9,
# 13 and 21, 23, 25, 29), every format, auto model only, --builds 3, one part a GPU at once: the H200
# neighbour table holds only even block sizes (parts 2, 6, 10, 14), and BSR at odd ones (K2's
# vec=1) measured up to 1.75x its prediction on the hold-out parts 3 and 11.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
EXPAND_FORMATS=csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa_static,bsr,bsr_balanced,auto,cusparse_csr_alg1,cusparse_csr_alg2,cusparse_coo,cusparse_bsr,cusparse_bsrmv
left=$((T0 + 520 - $(date +%s)))
g=0
for p in 5 7 9 13; do
  CUDA_VISIBLE_DEVICES=$g OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_$p.tsv timeout $((left + 10)) build-gpu/spmvkit bench bsr-expand --part $p/16 \
    --formats $EXPAND_FORMATS --builds 3 --reps 20 --warmup 5 --backend cuda --time-limit $((left - 10)) \
    --json $OUT/bench_bsr-expand_${p}of16.json > $OUT/bench_bsr-expand_${p}of16.txt 2>&1 &
  g=$((g + 1))
done
wait
echo "bench bsr-expand 5 7 9 13 done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
for p in 5 7 9 13; do tail -n 2 $OUT/bench_bsr-expand_${p}of16.txt >> $OUT/summary.txt; done
cat $OUT/summary.txt
cd $OUT && gzip -9 *.json; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
