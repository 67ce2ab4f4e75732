# T3 (4 x H200): the tree given (COMMIT: bsr_fit_rows, K2 at one block row an array on irregular or
# few block rows). GPU 0: the BSR, select and auto tests; GPU 1: bsr-all and the bsr suite with
# bsr and bsr_balanced (their details say where the rule moved K2, "+rows"); GPUs 2, 3: bsr-expand
# parts 7 and 8, 11 and 12 with every format (7 and 11 measured before the change in T1 and S5;
# 8 and 12 never on an H200), auto model only, --builds 3.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
EXPAND_FORMATS=csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa_static,bsr,bsr_balanced,auto,cusparse_csr_alg1,cusparse_csr_alg2,cusparse_coo,cusparse_bsr,cusparse_bsrmv
part() {  # GPU, part
  CUDA_VISIBLE_DEVICES=$1 OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/tune$1.tsv timeout 330 build-gpu/spmvkit bench bsr-expand --part $2/16 \
    --formats $EXPAND_FORMATS --builds 3 --reps 20 --warmup 5 --backend cuda --time-limit 260 \
    --json $OUT/bench_bsr-expand_$2of16.json > $OUT/bench_bsr-expand_$2of16.txt 2>&1
  echo "bench bsr-expand $2/16: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
}
( cd build-gpu && CUDA_VISIBLE_DEVICES=0 SPMVKIT_TUNING_FILE=/tmp/tt.tsv timeout 300 ctest -R "Bsr|bsr|Select|auto" -j 8 --timeout 120 > $OUT/ctest.txt 2>&1
  echo "ctest Bsr|bsr|Select|auto: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt ) &
( CUDA_VISIBLE_DEVICES=1 OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/tb.tsv timeout 330 build-gpu/spmvkit bench bsr-all bsr --formats bsr,bsr_balanced \
    --reps 20 --warmup 5 --backend cuda --no-check --json $OUT/bench_bsr.json > $OUT/bench_bsr.txt 2>&1
  echo "bench bsr-all bsr: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt ) &
( part 2 7; part 2 8 ) &
( part 3 11; part 3 12 ) &
wait
tail -n 3 $OUT/ctest.txt >> $OUT/summary.txt
/usr/bin/python3 -c "
import json; d=json.load(open('$OUT/bench_bsr.json')); r=[x for x in d['results'] if x['format'] in ('bsr','bsr_balanced')]
print('+rows in bsr-all and bsr: %d of %d records' % (sum('+rows' in x['details'] for x in r), len(r)))" >> $OUT/summary.txt
cat $OUT/summary.txt
cd $OUT && gzip -9 *.json *.txt; gunzip summary.txt.gz; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
