# U1 (2 x H200): the tree given (COMMIT). GPU 0: bsr-expand part 6 of 16 (block sizes 6 and 22), every
# format, auto model only, --builds 3: the H200 neighbour table's part-6 records (564d4bd) predate
# K2's tma rule (bs 6-9, few block rows). GPU 1: K3's working set at bs 29 and 60, where the H200's
# shipped f64 entry covers the block's width in two passes (bs 29: n_tg=4, ept=4): bsr with the
# shipped K3 policy against one-pass ones, on the real matrices expanded and reservoirs of 512 to
# 17,576 block rows (T1: bs 29 ran 1.5x its neighbours at bs 27/30 on G51 and hangGlider_2); then
# bsr-expand part 9 (block sizes 9 and 25), every format, as GPU 0.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
EXPAND_FORMATS=csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa_static,bsr,bsr_balanced,auto,cusparse_csr_alg1,cusparse_csr_alg2,cusparse_coo,cusparse_bsr,cusparse_bsrmv
NAMES=$(tail -n +2 .deps/matrices/MANIFEST.tsv | cut -f1)
END=$((T0 + 330))
( CUDA_VISIBLE_DEVICES=0 OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t6.tsv timeout $((END - $(date +%s) + 15)) build-gpu/spmvkit bench bsr-expand --part 6/16 \
    --formats $EXPAND_FORMATS --builds 3 --reps 20 --warmup 5 --backend cuda --time-limit $((END - $(date +%s) - 10)) \
    --json $OUT/bench_bsr-expand_6of16.json > $OUT/bench_bsr-expand_6of16.txt 2>&1
  echo "bench bsr-expand 6/16: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt ) &
( M=""; for n in $NAMES; do M="$M expand_bs29_$n"; done
  CUDA_VISIBLE_DEVICES=1 OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/k29.tsv timeout 120 build-gpu/spmvkit bench $M reservoir_bs29_8 reservoir_bs29_10 \
      reservoir_bs29_12 reservoir_bs29_14 reservoir_bs29_17 reservoir_bs29_20 reservoir_bs29_26 --formats bsr \
      --params "bsr:kernel=k3|kernel=k3,nb=29,n_tg=8,ept=4|kernel=k3,nb=29,n_tg=6,ept=5|kernel=k3,nb=29,n_tg=10,ept=3" \
      --reps 20 --warmup 5 --builds 2 --no-check --backend cuda --json $OUT/k3_bs29.json > $OUT/k3_bs29.txt 2>&1
  echo "k3 bs29: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
  M=""; for n in $NAMES; do M="$M expand_bs60_$n"; done
  CUDA_VISIBLE_DEVICES=1 OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/k60.tsv timeout 90 build-gpu/spmvkit bench $M reservoir_bs60_6 reservoir_bs60_8 \
      reservoir_bs60_10 reservoir_bs60_13 reservoir_bs60_16 --formats bsr \
      --params "bsr:kernel=k3|kernel=k3,nb=60,n_tg=15,ept=4|kernel=k3,nb=60,n_tg=8,ept=8" \
      --reps 20 --warmup 5 --builds 2 --no-check --backend cuda --json $OUT/k3_bs60.json > $OUT/k3_bs60.txt 2>&1
  echo "k3 bs60: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
  CUDA_VISIBLE_DEVICES=1 OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t9.tsv timeout $((END - $(date +%s) + 15)) build-gpu/spmvkit bench bsr-expand --part 9/16 \
    --formats $EXPAND_FORMATS --builds 3 --reps 20 --warmup 5 --backend cuda --time-limit $((END - $(date +%s) - 10)) \
    --json $OUT/bench_bsr-expand_9of16.json > $OUT/bench_bsr-expand_9of16.txt 2>&1
  echo "bench bsr-expand 9/16: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt ) &
wait
for f in bench_bsr-expand_6of16 bench_bsr-expand_9of16; do tail -n 2 $OUT/$f.txt >> $OUT/summary.txt; /usr/bin/python3 bench/report.py oracle $OUT/$f.json 2>&1 | tail -n 1 >> $OUT/summary.txt; done
cat $OUT/summary.txt
cd $OUT && gzip -9 *.json *.txt; gunzip summary.txt.gz; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
