# F3 (4 GPUs): full build; select tests; the csr, ell and bsr suites with --setup-reps 5 (the setup table, issue 24),
# the auto-holdout and auto suites (hold-outs) with auto[tune=0|tune=1], real, bsr-all halves (time-limited); then every
# GPU test (scripts/gpu_tests.py) with the device pool on (the default).
T0=$(date +%s); export SPMVKIT_COMMIT=${COMMIT} OMP_WAIT_POLICY=passive; DEADLINE=$((T0 + ${BUDGET:-345}))
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/summary.txt 2>&1; date -u >> $OUT/summary.txt
GPU_BUILD_LOG=/tmp/build.log gpu_build build-gpu "" | tee -a $OUT/summary.txt
[ -x build-gpu/spmvkit ] || { grep -E "error" /tmp/build.log | head -30; exit 1; }
timeout 60 build-gpu/tests/spmvkit_select_tests --gtest_brief=1 > $OUT/select.log 2>&1; echo "select tests rc=$?" >> $OUT/summary.txt
grep -aB3 -A12 "Failure" $OUT/select.log | head -30
run_list() {  # GPU ITEM...
  local gpu=$1; shift
  for item in "$@"; do
    local s=${item%@*} part=() tag=$item extra=()
    [ "$item" != "$s" ] && { part=(--part "${item#*@}"); tag=${s}_${item#*@}; tag=${tag//\//of}; }
    case $s in auto|auto-holdout) extra=(--params 'auto:tune=0|tune=1');; csr|ell|bsr) extra=(--setup-reps 5);; esac
    local left=$((DEADLINE - $(date +%s))); [ $left -lt 15 ] && { echo "bench $item on GPU $gpu: not started" >> $OUT/summary.txt; continue; }
    local t0=$(date +%s)
    CUDA_VISIBLE_DEVICES=$gpu OMP_NUM_THREADS=16 SPMVKIT_TUNING_FILE=$OUT/tuning_$tag.tsv timeout $((left + 60)) build-gpu/spmvkit bench "$s" "${part[@]}" \
      --backend cuda --time-limit $left "${extra[@]}" --json $OUT/bench_$tag.json > $OUT/bench_$tag.txt 2>&1
    echo "bench $item on GPU $gpu: rc=$? in $(( $(date +%s) - t0 ))s" >> $OUT/summary.txt
  done
}
run_list 0 csr auto-holdout@1/4 auto@1/2 &
run_list 1 ell auto-holdout@2/4 auto@2/2 real &
run_list 2 bsr auto-holdout@3/4 bsr-all@2/2 &
run_list 3 auto-holdout@4/4 bsr-all@1/2 &
wait
echo "suites done at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
/usr/bin/python3 bench/report.py oracle $OUT/bench_*.json --svg $OUT/auto_oracle.svg > $OUT/auto_oracle.md 2>&1
/usr/bin/python3 bench/report.py setup $OUT/bench_csr.json $OUT/bench_ell.json $OUT/bench_bsr.json > $OUT/setup_table.md 2>&1
mkdir -p $OUT/gt
left=$(( ${TESTS_END_S:-570} - ($(date +%s) - T0) ))
DEADLINE=$(( $(date +%s) + left )) timeout $((left + 15)) python3 scripts/gpu_tests.py build-gpu $OUT/gt > $OUT/gt/tests.txt 2>&1
echo "gpu tests rc=$? at $(( $(date +%s) - T0 ))s" >> $OUT/summary.txt
cat $OUT/summary.txt; head -16 $OUT/gt/tests.txt; sed -n '/^| variant/,$p' $OUT/auto_oracle.md; sed -n '/^Worst over every/,$p' $OUT/setup_table.md
cd $OUT && gzip -9 bench_*.json; tar czf /tmp/all.tgz . && find . -mindepth 1 -delete && mv /tmp/all.tgz . && ls -la all.tgz
