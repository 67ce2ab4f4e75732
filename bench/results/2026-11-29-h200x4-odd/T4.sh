# T4 (4 x H200): the tree given (COMMIT: bsr_fit_rows). Every target; every GPU test
# (scripts/gpu_tests.py, shards over the four GPUs); then a GPU each: the real suite (--builds 3),
# the csr, ell and bsr suites, bsr-expand part 3 (in no H200 table; measured in S4 before the
# change) and part 4 (block sizes 4 and 20; K2 at bs 4, tuned at two rows an array; never measured
# on an H200), every format, auto model only.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=ON" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
DEADLINE=$((T0 + 290)) /usr/bin/python3 scripts/gpu_tests.py build-gpu $OUT > $OUT/tests.txt 2>&1
echo "tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
EXPAND_FORMATS=csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa_static,bsr,bsr_balanced,auto,cusparse_csr_alg1,cusparse_csr_alg2,cusparse_coo,cusparse_bsr,cusparse_bsrmv
left=$((T0 + 570 - $(date +%s)))
bench() {  # GPU, name, args...
  local g=$1 name=$2; shift 2
  CUDA_VISIBLE_DEVICES=$g OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/tune$g.tsv timeout $((left + 5)) build-gpu/spmvkit bench "$@" \
    --backend cuda --time-limit $((left - 15)) --json $OUT/bench_$name.json > $OUT/bench_$name.txt 2>&1
  echo "bench $name: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
}
bench 0 real real --builds 3 &
bench 1 suites csr ell bsr &
bench 2 bsr-expand_3of16 bsr-expand --part 3/16 --formats $EXPAND_FORMATS --builds 3 --reps 20 --warmup 5 &
bench 3 bsr-expand_4of16 bsr-expand --part 4/16 --formats $EXPAND_FORMATS --builds 3 --reps 20 --warmup 5 &
wait
for n in real suites bsr-expand_3of16 bsr-expand_4of16; do /usr/bin/python3 bench/report.py oracle $OUT/bench_$n.json 2>&1 | tail -n 1 >> $OUT/summary.txt; done
cat $OUT/summary.txt; tail -n 25 $OUT/tests.txt
cd $OUT && gzip -9 *.json *.txt *.log 2>/dev/null; gunzip summary.txt.gz; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
