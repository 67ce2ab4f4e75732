# U4 (2 x H200): the tree given (COMMIT: bsr_k3_lambda; the model's bsr chain mirrors it; the H200
# neighbour table rebuilt on merged/ and the H100's on its runs). Every target. GPU 0: every GPU
# test (scripts/gpu_tests.py on GPU 0 alone), then the csr, ell and bsr suites, every format,
# auto model only. GPU 1: bsr-expand parts 5 and 9 of 16 (block sizes 5, 21 and 9, 25; in no H200
# table), every format, auto model only, --builds 3.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=ON" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
EXPAND_FORMATS=csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa_static,bsr,bsr_balanced,auto,cusparse_csr_alg1,cusparse_csr_alg2,cusparse_coo,cusparse_bsr,cusparse_bsrmv
END=$((T0 + 500))
bench() {  # GPU, name, args...
  local g=$1 name=$2; shift 2
  CUDA_VISIBLE_DEVICES=$g OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/tune$g.tsv timeout $((END - $(date +%s) + 10)) build-gpu/spmvkit bench "$@" \
    --backend cuda --time-limit $((END - $(date +%s) - 5)) --json $OUT/bench_$name.json > $OUT/bench_$name.txt 2>&1
  echo "bench $name: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
}
( CUDA_VISIBLE_DEVICES=0 DEADLINE=$((T0 + 380)) /usr/bin/python3 scripts/gpu_tests.py build-gpu $OUT > $OUT/tests.txt 2>&1
  echo "tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
  bench 0 suites csr ell bsr ) &
( bench 1 bsr-expand_5of16 bsr-expand --part 5/16 --formats $EXPAND_FORMATS --builds 3 --reps 20 --warmup 5
  bench 1 bsr-expand_9of16 bsr-expand --part 9/16 --formats $EXPAND_FORMATS --builds 3 --reps 20 --warmup 5 ) &
wait
for n in suites bsr-expand_5of16 bsr-expand_9of16; do /usr/bin/python3 bench/report.py oracle $OUT/bench_$n.json 2>&1 | tail -n 1 >> $OUT/summary.txt; done
cat $OUT/summary.txt; tail -n 25 $OUT/tests.txt
cd $OUT && gzip -9 *.json *.txt *.log 2>/dev/null; gunzip summary.txt.gz; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
