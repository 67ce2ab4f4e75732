# W3 (one H200, nothing beside it): the tree given (COMMIT: W1's library). The real suite (35
# shared matrices, every format, --builds 3) and the generated hold-outs auto-holdout (in no
# table or fit), auto model only.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive; DEADLINE=$((T0 + ${BUDGET:-440}))
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "-DSPMVKIT_TESTS=ON" spmvkit | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
EXPAND_FORMATS=csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa_static,bsr,bsr_balanced,auto,cusparse_csr_alg1,cusparse_csr_alg2,cusparse_coo,cusparse_bsr,cusparse_bsrmv
run_list() {  # GPU ITEM...
  local gpu=$1; shift
  for item in "$@"; do
    local s=${item%@*} part=() tag=$item extra=()
    [ "$item" != "$s" ] && { part=(--part "${item#*@}"); tag=${s}_${item#*@}; tag=${tag//\//of}; }
    [ "$s" = bsr-expand ] && extra=(--formats "$EXPAND_FORMATS" --builds 3 --reps 20 --warmup 5)
    [ "$s" = suites ] && { s=csr; extra=(ell bsr); }
    [ "$s" = real ] && extra=(--builds 3)
    local left=$((DEADLINE - $(date +%s))); [ $left -lt 40 ] && { echo "bench $item on GPU $gpu: not started" >> $OUT/summary.txt; continue; }
    local t0=$(date +%s)
    CUDA_VISIBLE_DEVICES=$gpu OMP_NUM_THREADS=8 SPMVKIT_TUNING_FILE=$OUT/tuning_$tag.tsv timeout $((left + 30)) build-gpu/spmvkit bench "$s" "${part[@]}" "${extra[@]}" \
      --backend cuda --time-limit $left --json $OUT/bench_$tag.json > $OUT/bench_$tag.txt 2>&1
    echo "bench $item on GPU $gpu: rc=$? in $(( $(date +%s) - t0 ))s at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
  done
}
run_list 0 real auto-holdout@1/2 auto-holdout@2/2
for f in $OUT/bench_*.json; do echo "$(basename $f): $(/usr/bin/python3 bench/report.py oracle $f 2>&1 | tail -n 1)" >> $OUT/summary.txt; done
cat $OUT/summary.txt
cd $OUT && gzip -9 *.json *.txt *.tsv 2>/dev/null; gunzip summary.txt.gz; tar czf /tmp/all.tgz --remove-files * 2>/dev/null; mv /tmp/all.tgz .; ls -la
