# F6 (4 GPUs): full build; select tests; bsr-expand parts 4, 8, 10 and 14 (in no table) with every format, --builds 3, auto[tune=0|tune=1];
# no setup table, no tests (F5 ran them on the same tree).

T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive; DEADLINE=$((T0 + ${BUDGET:-345}))
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" spmvkit | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
run_list() {  # GPU ITEM...
  local gpu=$1; shift
  for item in "$@"; do
    local s=${item%@*} part=() tag=$item extra=()
    [ "$item" != "$s" ] && { part=(--part "${item#*@}"); tag=${s}_${item#*@}; tag=${tag//\//of}; }
    case $s in bsr-expand) extra=(--formats "$EXPAND_FORMATS" --builds 3 --reps 20 --warmup 5 --params 'auto:tune=0|tune=1');; csr|ell|bsr) extra=(--setup-reps 5);; esac
    local left=$((DEADLINE - $(date +%s))); [ $left -lt 15 ] && { echo "bench $item on GPU $gpu: not started" >> $OUT/summary.txt; continue; }
    local t0=$(date +%s)
    CUDA_VISIBLE_DEVICES=$gpu OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_$tag.tsv timeout $((left + 60)) build-gpu/spmvkit bench "$s" "${part[@]}" \
      --backend cuda --time-limit $left "${extra[@]}" --json $OUT/bench_$tag.json > $OUT/bench_$tag.txt 2>&1
    echo "bench $item on GPU $gpu: rc=$? in $(( $(date +%s) - t0 ))s" >> $OUT/summary.txt
  done
}
EXPAND_FORMATS=csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa_static,bsr,bsr_balanced,auto,cusparse_csr_alg1,cusparse_csr_alg2,cusparse_coo,cusparse_bsr,cusparse_bsrmv
run_list 0 bsr-expand@4/16 &
run_list 1 bsr-expand@8/16 &
run_list 2 bsr-expand@10/16 &
run_list 3 bsr-expand@14/16 &
wait
echo "suites done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
/usr/bin/python3 bench/report.py oracle $OUT/bench_*.json --svg $OUT/auto_oracle.svg > $OUT/auto_oracle.md 2>&1
cat $OUT/summary.txt; sed -n '/^| variant/,$p' $OUT/auto_oracle.md
cd $OUT && gzip -9 bench_*.json; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
