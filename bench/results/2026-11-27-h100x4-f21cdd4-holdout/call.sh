# D1 (4 GPUs): full build; select tests; auto's selection on three ~1e8-nonzero matrices (GPU 0, alone, before the suites:
# one process each, auto built twice, with and without the build profile); then every suite with auto (tune=0|tune=1)
# dealt over the GPUs, bsr-expand's even parts 2, 6, 10, 14 (in no table) with every format and --builds 3; setup and oracle tables.
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive; DEADLINE=$((T0 + ${BUDGET:-530}))
. scripts/gpu-env.sh
export NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
timeout 60 build-gpu/tests/spmvkit_select_tests --gtest_brief=1 > $OUT/select.log 2>&1; echo "select tests rc=$?" >> $OUT/summary.txt
grep -aB3 -A12 "Failure" $OUT/select.log | head -30
for m in reservoir_bs2_153 stencil5_4000 reservoir_bs32_24; do
  SPMVKIT_BUILD_PROFILE=1 CUDA_VISIBLE_DEVICES=0 OMP_NUM_THREADS=16 timeout 60 build-gpu/spmvkit bench $m --backend cuda --reps 5 --formats auto,auto --params 'auto:tune=0' > $OUT/prof_$m.txt 2>&1
  CUDA_VISIBLE_DEVICES=0 OMP_NUM_THREADS=16 timeout 60 build-gpu/spmvkit bench $m --backend cuda --reps 5 --formats auto,auto --params 'auto:tune=0' --json $OUT/sel_$m.json > $OUT/sel_$m.txt 2>&1
  echo "== selection $m rc=$?" >> $OUT/summary.txt
done
echo "selection done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
EXPAND_FORMATS=csr_scalar,csr_vector,csr_balanced,ell,hyb,hec,sellp,csr3,suraa_static,bsr,bsr_balanced,auto,cusparse_csr_alg1,cusparse_csr_alg2,cusparse_coo,cusparse_bsr,cusparse_bsrmv
run_list() {  # GPU ITEM...
  local gpu=$1; shift
  for item in "$@"; do
    local s=${item%@*} part=() tag=$item extra=()
    [ "$item" != "$s" ] && { part=(--part "${item#*@}"); tag=${s}_${item#*@}; tag=${tag//\//of}; }
    [ "$s" = bsr-expand ] && extra=(--formats "$EXPAND_FORMATS" --builds 3 --reps 20 --warmup 5)
    [ "$s" = real ] && extra=(--builds 3)
    local left=$((DEADLINE - $(date +%s))); [ $left -lt 15 ] && { echo "bench $item on GPU $gpu: not started" >> $OUT/summary.txt; continue; }
    local t0=$(date +%s)
    CUDA_VISIBLE_DEVICES=$gpu OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_$tag.tsv timeout $((left + 60)) build-gpu/spmvkit bench "$s" "${part[@]}" "${extra[@]}" \
      --backend cuda --time-limit $left --params 'auto:tune=0|tune=1' --json $OUT/bench_$tag.json > $OUT/bench_$tag.txt 2>&1
    echo "bench $item on GPU $gpu: rc=$? in $(( $(date +%s) - t0 ))s" >> $OUT/summary.txt
  done
}
run_list 0 csr ell real bsr-expand@2/16 &
run_list 1 bsr auto bsr-expand@6/16 &
run_list 2 bsr-all@1/2 bsr-expand@10/16 &
run_list 3 bsr-all@2/2 bsr-expand@14/16 &
wait
echo "suites done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
/usr/bin/python3 bench/report.py setup $OUT/bench_csr.json $OUT/bench_ell.json $OUT/bench_bsr.json > $OUT/setup_table.md 2>&1
/usr/bin/python3 bench/report.py oracle $OUT/bench_*.json --svg $OUT/auto_oracle.svg > $OUT/auto_oracle.md 2>&1
cat $OUT/summary.txt
grep -h "build-profile: auto \|selection" $OUT/prof_*.txt | grep -v "auto/" | head -40
for f in $OUT/sel_*.txt; do grep -o "selection [0-9.]* ms" $f; done
sed -n '/^| format | worst/,$p' $OUT/setup_table.md; sed -n '/^| variant/,$p' $OUT/auto_oracle.md
cd $OUT && gzip -9 bench_*.json sel_*.json; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
