# U3 (2 x H200): the tree given (COMMIT: K3 splits long block rows on few waves, bsr_k3_split).
# bsr and bsr_balanced on the 35 real matrices expanded at K3's block sizes: GPU 0 those of the
# H200 neighbour table's bsr-expand parts 2, 6, 10, 14 (bs 14, 18, 22, 26, 30), to replace their
# BSR records; GPU 1 those of the hold-out parts 13, 5, 9 (bs 13, 21, 25, 29), then the bsr
# suite (~1e8 nonzeros: the rule must leave it alone).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=OFF" spmvkit_cli | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
NAMES=$(tail -n +2 .deps/matrices/MANIFEST.tsv | cut -f1)
END=$((T0 + 360))
run() {  # GPU NAME BS...
  local g=$1 name=$2; shift 2
  local m=""; for bs in "$@"; do for n in $NAMES; do m="$m expand_bs${bs}_$n"; done; done
  CUDA_VISIBLE_DEVICES=$g OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/t$g.tsv timeout $((END - $(date +%s) + 10)) build-gpu/spmvkit bench $m \
    --formats bsr,bsr_balanced --reps 20 --warmup 5 --builds 2 --backend cuda --time-limit $((END - $(date +%s) - 5)) \
    --json $OUT/$name.json > $OUT/$name.txt 2>&1
  echo "$name: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
}
( run 0 table 14 18 22 26 30 ) &
( run 1 check 13 21 25 29
  CUDA_VISIBLE_DEVICES=1 OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=/tmp/tb.tsv timeout $((END - $(date +%s) + 10)) build-gpu/spmvkit bench bsr --formats bsr,bsr_balanced \
    --reps 20 --warmup 5 --backend cuda --no-check --time-limit $((END - $(date +%s) - 5)) --json $OUT/bench_bsr.json > $OUT/bench_bsr.txt 2>&1
  echo "bsr suite: rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt ) &
wait
cat $OUT/summary.txt
cd $OUT && gzip -9 *.json *.txt; gunzip summary.txt.gz; tar czf all.tgz --remove-files * 2>/dev/null; ls -la all.tgz
