# E4 (4 GPUs): build spmvkit and the formats tests; csr_balanced's tests (row_sum=scan among them) on GPU 0; on GPUs 1-3
# csr_balanced row_sum=groups|scan x block_threads x items_per_thread against cuSPARSE CSR ALG1 on power laws, random,
# stencil, banded, reservoir matrices and the csr suite.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit spmvkit_formats_tests | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
( CUDA_VISIBLE_DEVICES=0 timeout 200 build-gpu/tests/spmvkit_formats_tests --gtest_brief=1 \
    --gtest_filter='*CsrBalanced*:*BalancedTiling*:*Suraa*:*suraa*:*csr_balanced*' > $OUT/tests.log 2>&1
  echo "formats tests (csr_balanced, suraa, tiling) rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt ) &
P='csr_balanced:row_sum=groups|row_sum=groups,block_threads=256|row_sum=scan|row_sum=scan,block_threads=256|row_sum=scan,items_per_thread=16|row_sum=scan,block_threads=256,items_per_thread=4'
F=csr_balanced,cusparse_csr_alg1
run() { local gpu=$1; shift; for m in "$@"; do
  CUDA_VISIBLE_DEVICES=$gpu OMP_NUM_THREADS=16 timeout 120 build-gpu/spmvkit bench $m --backend cuda --formats $F --params "$P" \
    --json $OUT/e4_$m.json > $OUT/e4_$m.txt 2>&1; echo "bench $m rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt; done; }
run 1 powerlaw_2000000 powerlaw_1000000_5000 powerlaw_1500000_100000 powerlaw_3000000_10000 &
run 2 powerlaw_4000000_20000 powerlaw_8000000 random_3000000_3000000_16 random_5000000_5000000_10 &
run 3 stencil27_150 banded_4000000_64_12 reservoir_bs3_100 csr powerlaw_200000 &
wait
cat $OUT/summary.txt; grep -aB2 -A10 "FAILED\|Failure" $OUT/tests.log | head -40; tail -3 $OUT/tests.log
for f in $OUT/e4_*.txt; do grep -E "csr_balanced|cusparse_csr_alg1" $f | awk '{print $1, $2, $7, $9}'; done
