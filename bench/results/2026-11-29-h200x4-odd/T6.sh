# T6 (4 x H200): the tree given (COMMIT: bsr_fit_rows offers tma to K2 at bs 6-9 on few block
# rows). GPU 0: the BSR tests; GPU 1: bsr-all and the bsr suite, bsr and bsr_balanced (the rules
# must move none: "+rows"); GPU 2: every real matrix expanded at bs 6, 7, 8 with bsr (the rules
# on), bsr_balanced and csr_balanced (against T5's kernel=k2 and kernel=tma); GPU 3: bsr-expand
# part 8 with every format (T3 measured it before this change), auto model only, --builds 3.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
EXPAND_FORMATS=csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa_static,bsr,bsr_balanced,auto,cusparse_csr_alg1,cusparse_csr_alg2,cusparse_coo,cusparse_bsr,cusparse_bsrmv
NAMES=$(tail -n +2 .deps/matrices/MANIFEST.tsv | cut -f1)
M=""; for bs in 6 7 8; do for n in $NAMES; do M="$M expand_bs${bs}_$n"; done; done
( cd build-gpu && CUDA_VISIBLE_DEVICES=0 SPMVKIT_TUNING_FILE=/tmp/tt.tsv timeout 250 ctest -R "Bsr|bsr" -j 8 --timeout 120 > $OUT/ctest.txt 2>&1
  echo "ctest Bsr|bsr: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt ) &
( CUDA_VISIBLE_DEVICES=1 OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/tb.tsv timeout 250 build-gpu/spmvkit bench bsr-all bsr --formats bsr,bsr_balanced \
    --reps 20 --warmup 5 --backend cuda --no-check --json $OUT/bench_bsr.json > $OUT/bench_bsr.txt 2>&1
  echo "bench bsr-all bsr: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt ) &
( CUDA_VISIBLE_DEVICES=2 OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/te.tsv timeout 250 build-gpu/spmvkit bench $M --formats csr_balanced,bsr,bsr_balanced \
    --reps 20 --warmup 5 --builds 2 --backend cuda --json $OUT/bench_bs678.json > $OUT/bench_bs678.txt 2>&1
  echo "bench bs 6-8: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt ) &
( CUDA_VISIBLE_DEVICES=3 OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t8.tsv timeout 250 build-gpu/spmvkit bench bsr-expand --part 8/16 \
    --formats $EXPAND_FORMATS --builds 3 --reps 20 --warmup 5 --backend cuda --time-limit 200 \
    --json $OUT/bench_bsr-expand_8of16.json > $OUT/bench_bsr-expand_8of16.txt 2>&1
  echo "bench bsr-expand 8/16: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt ) &
wait
tail -n 3 $OUT/ctest.txt >> $OUT/summary.txt
/usr/bin/python3 -c "
import json
for f in ('bench_bsr', 'bench_bs678'):
    d = json.load(open('$OUT/%s.json' % f)); r = [x for x in d['results'] if x['format'] in ('bsr', 'bsr_balanced')]
    print('%s: +rows %d, kernel=tma+rows %d of %d records' % (f, sum('+rows' in x['details'] for x in r), sum('kernel=tma' in x['details'] and '+rows' in x['details'] for x in r), len(r)))" >> $OUT/summary.txt
/usr/bin/python3 bench/report.py oracle $OUT/bench_bsr-expand_8of16.json 2>&1 | tail -n 1 >> $OUT/summary.txt
cat $OUT/summary.txt
cd $OUT && gzip -9 *.json *.txt; gunzip summary.txt.gz; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
